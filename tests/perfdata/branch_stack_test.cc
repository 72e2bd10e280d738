// PERF_SAMPLE_BRANCH_STACK decoding: entries and HW_INDEX in both byte orders, the flags
// bitfield as each byte order's compiler lays it out (DecodeBranchFlags), and malformed
// counts, which are errors and never reads past the record.
#include <gtest/gtest.h>

#include <vector>

#include "perfdata/perf_file.h"
#include "perfdata/sample.h"
#include "testutil/perf_data_writer.h"
#include "testutil/read_records.h"

namespace perflens {
namespace {

using testutil::Endian;
using testutil::MakeAttr;
using testutil::PerfDataWriter;
using testutil::ReadAll;
using testutil::SampleFields;

// A flags word as a writer of `e` stores it: each field at its little-endian bit
// position, or, big-endian, from bit 63 down (the u64 itself is byte-swapped by the
// writer like any other).
uint64_t FlagsWord(Endian e, bool mispred, bool predicted, bool in_tx, bool abort, uint16_t cycles, uint8_t type,
                   uint8_t spec = 0, uint8_t new_type = 0, uint8_t priv = 0) {
  struct Field {
    unsigned pos, size;
    uint64_t v;
  };
  const Field fields[] = {{0, 1, mispred},  {1, 1, predicted}, {2, 1, in_tx},    {3, 1, abort},  {4, 16, cycles},
                          {20, 4, type},    {24, 2, spec},      {26, 4, new_type}, {30, 3, priv}};
  uint64_t w = 0;
  for (const Field& f : fields) w |= f.v << (e == Endian::kBig ? 64 - f.pos - f.size : f.pos);
  return w;
}

class BranchStackTest : public ::testing::TestWithParam<Endian> {};

TEST_P(BranchStackTest, EntriesHwIndexAndFlagsDecode) {
  for (bool hw_index : {false, true}) {
    SCOPED_TRACE(hw_index ? "HW_INDEX" : "no HW_INDEX");
    PerfDataWriter w(PerfDataWriter::kFile, GetParam());
    EventAttr a = MakeAttr(kSampleIp | kSampleTid | kSampleBranchStack);
    a.branch_sample_type = 1 | (hw_index ? kBranchSampleHwIndex : 0);
    const int ev = w.AddAttr(a);
    SampleFields s;
    s.ip = 0x401000;
    s.pid = s.tid = 7;
    s.branch_hw_idx = 5;
    s.branches = {{0x401010, 0x402000, FlagsWord(GetParam(), false, true, false, false, 12, 4)},
                  {0x402020, 0x401100, FlagsWord(GetParam(), true, false, true, true, 0xffff, 6, 2, 3, 7)},
                  {0xffffffff81000000, 0x7f0000001000, FlagsWord(GetParam(), false, false, false, false, 0, 15, 0, 2)}};
    w.Sample(ev, s);
    auto rr = ReadAll(w.Finish());
    ASSERT_TRUE(rr.file);
    auto recs = rr.OfType(kRecordSample);
    ASSERT_EQ(recs.size(), 1u);
    Sample d;
    ASSERT_EQ(DecodeSample(recs[0]->view(), rr.file->evsels()[0].attr, rr.file->loader(), &d), SampleError::kNone);
    ASSERT_EQ(d.branch_nr, 3u);
    EXPECT_EQ(d.branch_hw_idx, hw_index ? 5u : UINT64_MAX);
    EXPECT_EQ(d.branch(0).from, 0x401010u);
    EXPECT_EQ(d.branch(0).to, 0x402000u);
    EXPECT_EQ(d.branch(2).from, 0xffffffff81000000u);
    EXPECT_EQ(d.branch(2).to, 0x7f0000001000u);

    const BranchFlags f0 = d.branch_flags(0);
    EXPECT_FALSE(f0.mispred);
    EXPECT_TRUE(f0.predicted);
    EXPECT_FALSE(f0.in_tx);
    EXPECT_FALSE(f0.abort);
    EXPECT_EQ(f0.cycles, 12);
    EXPECT_EQ(f0.type, 4);  // PERF_BR_CALL
    const BranchFlags f1 = d.branch_flags(1);
    EXPECT_TRUE(f1.mispred);
    EXPECT_FALSE(f1.predicted);
    EXPECT_TRUE(f1.in_tx);
    EXPECT_TRUE(f1.abort);
    EXPECT_EQ(f1.cycles, 0xffff);
    EXPECT_EQ(f1.type, 6);
    EXPECT_EQ(f1.spec, 2);
    EXPECT_EQ(f1.new_type, 3);
    EXPECT_EQ(f1.priv, 7);
    const BranchFlags f2 = d.branch_flags(2);
    EXPECT_EQ(f2.type, 15);
    EXPECT_EQ(f2.new_type, 2);
    EXPECT_EQ(f2.cycles, 0);
    EXPECT_FALSE(f2.mispred || f2.predicted);
  }
}

TEST_P(BranchStackTest, EmptyStack) {
  PerfDataWriter w(PerfDataWriter::kFile, GetParam());
  EventAttr a = MakeAttr(kSampleIp | kSampleBranchStack | kSamplePeriod);
  a.branch_sample_type = 1 | kBranchSampleHwIndex;
  const int ev = w.AddAttr(a);
  SampleFields s;
  s.ip = 0x401000;
  s.period = 99;
  w.Sample(ev, s);
  auto rr = ReadAll(w.Finish());
  ASSERT_TRUE(rr.file);
  Sample d;
  ASSERT_EQ(DecodeSample(rr.OfType(kRecordSample)[0]->view(), rr.file->evsels()[0].attr, rr.file->loader(), &d),
            SampleError::kNone);
  EXPECT_EQ(d.branch_nr, 0u);
  EXPECT_EQ(d.branch_hw_idx, 0u);
}

// nr larger than the bytes left, nr whose byte size overflows, HW_INDEX cut off: each is
// kBadBranchStack.
TEST_P(BranchStackTest, MalformedCountsAreErrors) {
  struct Case {
    const char* what;
    bool hw_index;
    std::vector<uint64_t> words;  // after the ip
  };
  const Case cases[] = {
      {"nr one more than present", false, {2, 0x401000, 0x402000, 0}},
      {"nr * 24 overflows", false, {0x0aaaaaaaaaaaaaabULL, 0x401000, 0x402000, 0}},
      {"nr = UINT64_MAX", true, {UINT64_MAX, 0, 0x401000, 0x402000, 0}},
      {"hw_idx missing", true, {0}},
      {"nr missing", false, {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    PerfDataWriter w(PerfDataWriter::kFile, GetParam());
    EventAttr a = MakeAttr(kSampleIp | kSampleBranchStack, 136, 0, false);
    a.branch_sample_type = 1 | (c.hw_index ? kBranchSampleHwIndex : 0);
    w.AddAttr(a);
    testutil::ByteWriter body(GetParam());
    body.U64(0x401000);
    for (uint64_t v : c.words) body.U64(v);
    w.Raw(kRecordSample, kMiscUser, body.bytes());
    auto rr = ReadAll(w.Finish());
    ASSERT_TRUE(rr.file);
    auto recs = rr.OfType(kRecordSample);
    ASSERT_EQ(recs.size(), 1u);
    Sample d;
    EXPECT_EQ(DecodeSample(recs[0]->view(), rr.file->evsels()[0].attr, rr.file->loader(), &d),
              SampleError::kBadBranchStack);
  }
}

// The bitfield rule alone: a little-endian writer's bit 0 is mispred, a big-endian
// writer's bit 63.
TEST(DecodeBranchFlags, ByteOrderOfTheWriter) {
  EXPECT_TRUE(DecodeBranchFlags(1, false).mispred);
  EXPECT_FALSE(DecodeBranchFlags(1, true).mispred);
  EXPECT_TRUE(DecodeBranchFlags(1ULL << 63, true).mispred);
  EXPECT_EQ(DecodeBranchFlags(uint64_t{300} << 4, false).cycles, 300);
  EXPECT_EQ(DecodeBranchFlags(uint64_t{300} << 44, true).cycles, 300);
  EXPECT_EQ(DecodeBranchFlags(uint64_t{5} << 40, true).type, 5);
}

INSTANTIATE_TEST_SUITE_P(BothEndians, BranchStackTest, testing::Values(Endian::kLittle, Endian::kBig),
                         [](const auto& info) { return info.param == Endian::kBig ? "Big" : "Little"; });

}  // namespace
}  // namespace perflens
