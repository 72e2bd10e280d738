// Malformed samples are skipped, counted, and summarized once with the first one's file
// offset and reason (never one line per sample).
#include <gtest/gtest.h>

#include <string>

#include "base/mapped_file.h"
#include "report/report.h"
#include "testutil/perf_data_writer.h"

namespace perflens {
namespace {

using testutil::PerfDataWriter;
using testutil::ByteWriter;
using testutil::SampleFields;

TEST(BadSampleSummary, NamesTheFirstOffsetAndReason) {
  PerfDataWriter w;
  EventAttr a;
  a.type = 1;
  a.size = 128;
  a.sample_type = kSampleIp | kSampleTid | kSamplePeriod | kSampleCallchain;
  a.sample_period = 1000;
  w.AddAttr(a);
  SampleFields good;
  good.pid = good.tid = 5;
  good.ip = 0x1000;
  good.period = 1000;
  good.callchain = {kContextUser, 0x1000};
  w.Sample(0, good);
  // Two samples whose callchain nr claims far more entries than the record holds.
  PerfDataWriter bad_writer;
  bad_writer.AddAttr(a);
  bad_writer.Sample(0, good);
  for (int i = 0; i < 2; ++i) {
    ByteWriter body;
    body.U64(0x2000);      // ip
    body.U32(5);           // pid
    body.U32(5);           // tid
    body.U64(1000);        // period
    body.U64(1ULL << 40);  // callchain nr
    body.U64(kContextUser);
    bad_writer.Raw(kRecordSample, kMiscUser, body.bytes());
  }
  auto file = PerfFile::FromBytes(MappedFile::FromBuffer(bad_writer.Finish()));
  ASSERT_TRUE(file.ok());
  auto r = Report::Create(file->get(), ReportOptions{});
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE((*r)->Process().ok());
  EXPECT_EQ((*r)->counters().nr_samples, 1u);
  EXPECT_EQ((*r)->counters().nr_bad_samples, 2u);
  std::string line;
  for (const auto& l : (*r)->SummaryLines())
    if (l.find("malformed") != std::string::npos) line = l;
  uint64_t first = (*r)->counters().first_bad_sample_offset;
  EXPECT_GT(first, 0u);
  EXPECT_EQ(line, fmt::format("2 malformed samples skipped (first: SAMPLE at offset {:#x}: callchain larger than the record)",
                              first));
}

}  // namespace
}  // namespace perflens
