// SampleLayout: the offsets every sample decoder reads, checked against the field order
// of include/uapi/linux/perf_event.h (spec A7, A8) for the example in sample_layout.h.
#include "perfdata/sample_layout.h"

#include <gtest/gtest.h>

#include "perfdata/perf_event.h"

namespace perflens {
namespace {

TEST(SampleLayoutTest, FixedFieldsAndTrailer) {
  EventAttr attr;
  attr.sample_type = kSampleIp | kSampleTid | kSampleTime | kSampleCpu | kSamplePeriod;
  attr.sample_period = 4000;
  const SampleLayout l = MakeSampleLayout(attr);
  EXPECT_EQ(l.ip, 8u);
  EXPECT_EQ(l.tid, 16u);
  EXPECT_EQ(l.time, 24u);
  EXPECT_EQ(l.addr, 0u);
  EXPECT_EQ(l.cpu, 32u);
  EXPECT_EQ(l.period, 40u);
  EXPECT_EQ(l.fixed_end, 48u);
  EXPECT_EQ(l.sample_evsel_id, 0u);
  // Trailer TID, TIME, CPU: distances from the record's end.
  EXPECT_EQ(l.trailer_size, 24u);
  EXPECT_EQ(l.trailer_cpu, 8u);
  EXPECT_EQ(l.trailer_time, 16u);
  EXPECT_EQ(l.trailer_tid, 24u);
  EXPECT_EQ(l.trailer_evsel_id, 0u);
  EXPECT_TRUE(l.basics_in_place);
  EXPECT_FALSE(l.callchain);
  EXPECT_EQ(l.sample_period, 4000u);
}

TEST(SampleLayoutTest, EvselIdPositions) {
  EventAttr attr;
  // ID without IDENTIFIER: after IP, TID, TIME, ADDR in a sample; before STREAM_ID and
  // CPU in the trailer (perf's id_pos / is_pos).
  attr.sample_type = kSampleIp | kSampleTid | kSampleTime | kSampleId | kSampleCpu | kSampleCallchain;
  SampleLayout l = MakeSampleLayout(attr);
  EXPECT_EQ(l.sample_evsel_id, 8u + 3 * 8u);
  EXPECT_EQ(l.trailer_evsel_id, 16u);
  EXPECT_TRUE(l.basics_in_place);
  EXPECT_TRUE(l.callchain);
  // IDENTIFIER: first word of a sample, last of a trailer.
  attr.sample_type |= kSampleIdentifier | kSampleRaw;
  l = MakeSampleLayout(attr);
  EXPECT_EQ(l.sample_evsel_id, 8u);
  EXPECT_EQ(l.trailer_evsel_id, 8u);
  EXPECT_EQ(l.ip, 16u);
  EXPECT_FALSE(l.basics_in_place);
}

}  // namespace
}  // namespace perflens
