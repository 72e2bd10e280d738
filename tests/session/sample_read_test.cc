// PERF_SAMPLE_READ: the read_format block decoded by SampleRead in both byte orders
// (GROUP with and without ID, TOTAL_TIME_ENABLED/RUNNING, LOST; one value without
// GROUP), a block whose nr claims more values than the record holds (a counted bad
// sample, never read past), and the session's split of a group sample into one sample
// per member with periods from each id's counter growth (perf 6.1's
// deliver_sample_group / deliver_sample_value: the first sample's period is the whole
// value, a zero period is not delivered, an unknown id is counted).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/mapped_file.h"
#include "perfdata/sample_read.h"
#include "session/sample_counts.h"
#include "session/session.h"
#include "testutil/perf_data_writer.h"
#include "testutil/read_records.h"

namespace perflens {
namespace {

using testutil::Endian;
using testutil::MakeAttr;
using testutil::PerfDataWriter;
using testutil::ReadAll;
using testutil::SampleFields;

constexpr uint64_t kSampleType = kSampleIp | kSampleTid | kSampleId | kSampleRead;

class SampleReadTest : public testing::TestWithParam<Endian> {
 protected:
  // One evsel (ids 11 and 22 both its own) with `read_format`, one sample holding `block`.
  SampleRead Decode(uint64_t read_format, std::vector<uint64_t> block) {
    PerfDataWriter w(PerfDataWriter::kFile, GetParam());
    EventAttr a = MakeAttr(kSampleType);
    a.read_format = read_format;
    int ev = w.AddAttr(a, {11, 22});
    SampleFields f;
    f.ip = 0x401000;
    f.pid = f.tid = 7;
    f.id = 11;
    f.read_values = std::move(block);
    w.Sample(ev, f);
    rr_ = ReadAll(w.Finish());
    EXPECT_TRUE(rr_.file);
    auto recs = rr_.OfType(kRecordSample);
    EXPECT_EQ(recs.size(), 1u);
    const Evsel* evsel = nullptr;
    EXPECT_EQ(rr_.file->ParseSample(recs.at(0)->view(), &sample_, &evsel), SampleError::kNone);
    return SampleRead(sample_.read_values, read_format);
  }
  testutil::ReadResult rr_;
  Sample sample_;
};

void ExpectValue(const ReadValue& v, uint64_t value, uint64_t id, uint64_t lost) {
  EXPECT_EQ(v.value, value);
  EXPECT_EQ(v.id, id);
  EXPECT_EQ(v.lost, lost);
}

TEST_P(SampleReadTest, GroupWithIdAndLost) {
  // perf 6.1's `{a,b}:S`: ID|GROUP|LOST.
  const SampleRead r = Decode(kReadGroup | kReadId | kReadLost, {2, 1000, 11, 0, 900, 22, 5});
  EXPECT_TRUE(r.group());
  ASSERT_EQ(r.size(), 2u);
  ExpectValue(r.at(0), 1000, 11, 0);
  ExpectValue(r.at(1), 900, 22, 5);
  EXPECT_EQ(r.time_enabled(), 0u);
  EXPECT_EQ(r.time_running(), 0u);
}

TEST_P(SampleReadTest, GroupWithTimesWithoutId) {
  const SampleRead r = Decode(kReadGroup | kReadTotalTimeEnabled | kReadTotalTimeRunning, {3, 700, 600, 10, 20, 30});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r.time_enabled(), 700u);
  EXPECT_EQ(r.time_running(), 600u);
  ExpectValue(r.at(0), 10, 0, 0);
  ExpectValue(r.at(2), 30, 0, 0);
}

TEST_P(SampleReadTest, GroupWithRunningAndId) {
  const SampleRead r = Decode(kReadGroup | kReadTotalTimeRunning | kReadId, {1, 600, 42, 11});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r.time_enabled(), 0u);
  EXPECT_EQ(r.time_running(), 600u);
  ExpectValue(r.at(0), 42, 11, 0);
}

TEST_P(SampleReadTest, OneValueWithEveryField) {
  const SampleRead r =
      Decode(kReadTotalTimeEnabled | kReadTotalTimeRunning | kReadId | kReadLost, {500, 700, 600, 22, 3});
  EXPECT_FALSE(r.group());
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r.time_enabled(), 700u);
  EXPECT_EQ(r.time_running(), 600u);
  ExpectValue(r.at(0), 500, 22, 3);
  ExpectValue(r.at(1), 0, 0, 0);  // past the end: nothing read
}

// nr says 1000 values; the record holds two. DecodeSample refuses the block
// (kBadRead), SampleCounts counts it once with its offset, and a SampleRead over a
// hand-made short block reads only the values it holds.
TEST_P(SampleReadTest, NrLargerThanTheBytesIsACountedBadSample) {
  PerfDataWriter w(PerfDataWriter::kFile, GetParam());
  EventAttr a = MakeAttr(kSampleType);
  a.read_format = kReadGroup | kReadId;
  int ev = w.AddAttr(a, {11});
  SampleFields f;
  f.id = 11;
  f.read_values = {1000, 5, 11, 6, 11};
  w.Sample(ev, f);
  auto rr = ReadAll(w.Finish());
  ASSERT_TRUE(rr.file);
  auto recs = rr.OfType(kRecordSample);
  ASSERT_EQ(recs.size(), 1u);
  Sample s;
  const Evsel* evsel = nullptr;
  EXPECT_EQ(rr.file->ParseSample(recs[0]->view(), &s, &evsel), SampleError::kBadRead);
  SampleCounts counts;
  EXPECT_FALSE(counts.Parse(*rr.file, recs[0]->view(), &s, &evsel));
  EXPECT_EQ(counts.nr_bad_samples, 1u);
  EXPECT_EQ(counts.first_bad_sample_error, SampleError::kBadRead);
  EXPECT_EQ(counts.nr_samples, 0u);

  const std::vector<uint64_t> words = {1000, 5, 11, 6, 11};  // native order
  const SampleRead clamped(U64Array{reinterpret_cast<const uint8_t*>(words.data()), words.size(), false},
                           kReadGroup | kReadId);
  ASSERT_EQ(clamped.size(), 2u);
  ExpectValue(clamped.at(1), 6, 11, 0);
  const SampleRead empty(U64Array{}, kReadGroup | kReadTotalTimeEnabled);
  EXPECT_EQ(empty.size(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Endians, SampleReadTest, testing::Values(Endian::kLittle, Endian::kBig));

struct PeriodRecorder : SampleConsumer {
  std::vector<std::string> lines;  // "evsel period"
  void OnSample(const ResolvedSample& s) override {
    lines.push_back(std::to_string(s.evsel) + " " + std::to_string(s.period));
  }
};

class SampleReadSplitTest : public testing::TestWithParam<Endian> {};

TEST_P(SampleReadSplitTest, OneSamplePerMemberWithCounterGrowthAsPeriod) {
  PerfDataWriter w(PerfDataWriter::kFile, GetParam());
  EventAttr leader = MakeAttr(kSampleType);
  leader.read_format = kReadGroup | kReadId | kReadLost;
  EventAttr member = leader;
  member.config = 1;
  w.AddAttr(leader, {11});
  w.AddAttr(member, {22});
  auto sample = [&](std::vector<uint64_t> block) {
    SampleFields f;
    f.ip = 0x401000;
    f.pid = f.tid = 7;
    f.id = 11;  // the leader's sample, read values for both
    f.read_values = std::move(block);
    w.Sample(0, f);
  };
  sample({2, 1000, 11, 0, 900, 22, 0});   // first: each whole value
  sample({2, 3000, 11, 0, 900, 22, 0});   // the member did not grow: not delivered
  sample({2, 3500, 99, 0, 1900, 22, 0});  // id 99 is no evsel's: counted
  sample({2, 4000, 11, 0, 2000, 22, 1});
  const std::vector<uint8_t> bytes = w.Finish();
  auto file = PerfFile::FromBytes(MappedFile::FromBuffer(bytes));
  ASSERT_TRUE(file.ok());
  for (bool threads : {false, true}) {
    SCOPED_TRACE(threads);
    SessionOptions o;
    o.use_threads = threads;
    o.consumer_thread = threads;
    auto session = Session::Open(file->get(), std::move(o));
    PeriodRecorder r;
    session->AddConsumer(&r);
    ASSERT_TRUE(session->Run().ok());
    EXPECT_EQ(r.lines, (std::vector<std::string>{"0 1000", "1 900", "0 2000", "1 1000", "0 1000", "1 100"}));
    EXPECT_EQ(session->counters().nr_unknown_id, 1u);
  }
}

// With inherit each thread's counter is read under the parent's id: periods are each
// thread's own growth (perf 6.1 subtracts another thread's value: README "differs on
// purpose"); without inherit one value per id, as before.
TEST_P(SampleReadSplitTest, InheritedCountersGrowPerThread) {
  PerfDataWriter w(PerfDataWriter::kFile, GetParam());
  EventAttr a = MakeAttr(kSampleType);
  a.read_format = kReadId;
  a.flags |= 1ULL << 1;  // inherit
  w.AddAttr(a, {11});
  for (auto [tid, value] : {std::pair<uint32_t, uint64_t>{7, 1000}, {8, 500}, {7, 1800}, {8, 900}}) {
    SampleFields f;
    f.pid = 7;
    f.tid = tid;
    f.id = 11;
    f.read_values = {value, 11};
    w.Sample(0, f);
  }
  const std::vector<uint8_t> bytes = w.Finish();
  auto file = PerfFile::FromBytes(MappedFile::FromBuffer(bytes));
  ASSERT_TRUE(file.ok());
  auto session = Session::Open(file->get(), SessionOptions{});
  PeriodRecorder r;
  session->AddConsumer(&r);
  ASSERT_TRUE(session->Run().ok());
  EXPECT_EQ(r.lines, (std::vector<std::string>{"0 1000", "0 500", "0 800", "0 400"}));
}

INSTANTIATE_TEST_SUITE_P(Endians, SampleReadSplitTest, testing::Values(Endian::kLittle, Endian::kBig));

}  // namespace
}  // namespace perflens
