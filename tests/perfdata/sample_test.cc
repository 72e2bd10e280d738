// DecodeSample and DecodeSampleIdTrailer on synthetic records: every sample_type field in
// A8 order, both byte orders, defaults for absent fields, and bounds errors.
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

constexpr uint64_t kAllFields =
    kSampleIdentifier | kSampleIp | kSampleTid | kSampleTime | kSampleAddr | kSampleId | kSampleStreamId |
    kSampleCpu | kSamplePeriod | kSampleRead | kSampleCallchain | kSampleRaw | kSampleBranchStack |
    kSampleRegsUser | kSampleStackUser | kSampleWeightStruct | kSampleDataSrc | kSampleTransaction |
    kSampleRegsIntr | kSamplePhysAddr | kSampleCgroup | kSampleDataPageSize | kSampleCodePageSize | kSampleAux;

EventAttr AllFieldsAttr() {
  EventAttr a = MakeAttr(kAllFields);
  a.read_format = kReadGroup | kReadTotalTimeEnabled | kReadTotalTimeRunning | kReadId | kReadLost;
  a.branch_sample_type = kBranchSampleHwIndex | kBranchSampleCounters | 1;
  a.sample_regs_user = 0b1011;  // 3 registers
  a.sample_regs_intr = 0b11;    // 2 registers
  return a;
}

SampleFields AllFieldsSample() {
  SampleFields s;
  s.misc = kMiscKernel | kMiscExactIp;
  s.identifier = s.id = 4242;
  s.ip = 0xffffffff81000010;
  s.pid = 1234;
  s.tid = 1235;
  s.time = 0x0102030405060708;
  s.addr = 0xdead0000;
  s.stream_id = 4343;
  s.cpu = 7;
  s.period = 250000;
  // GROUP: nr=2, enabled, running, then {value, id, lost} × 2.
  s.read_values = {2, 1000, 900, 11, 4242, 0, 22, 4243, 1};
  s.callchain = {kContextKernel, 0xffffffff81000010, 0xffffffff81000020, kContextUser, 0x401000, 0x401100};
  s.raw = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};  // 4 + 12 = 16, a multiple of 8
  s.branches = {{0x401000, 0x402000, 0x11}, {0x402010, 0x403000, (5ULL << 4) | 1}};
  s.branch_hw_idx = 3;
  s.branch_counters = {0x1, 0x2};
  s.user_regs_abi = 2;
  s.user_regs = {0x10, 0x20, 0x30};
  s.user_stack = std::vector<uint8_t>(32);
  for (size_t i = 0; i < s.user_stack.size(); ++i) s.user_stack[i] = static_cast<uint8_t>(i);
  s.user_stack_dyn_size = 24;
  s.weight = (uint64_t{0x0005} << 48) | (uint64_t{0x0077} << 32) | 0x1234;
  s.data_src = 0x6900000042ULL;
  s.transaction = 0x8;
  s.intr_regs_abi = 2;
  s.intr_regs = {0xaa, 0xbb};
  s.phys_addr = 0x123456000;
  s.cgroup = 0x77;
  s.data_page_size = 4096;
  s.code_page_size = 2 << 20;
  s.aux = {0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7};
  return s;
}

class SampleTest : public testing::TestWithParam<Endian> {};

TEST_P(SampleTest, EveryFieldDecodes) {
  PerfDataWriter w(PerfDataWriter::kFile, GetParam());
  int ev = w.AddAttr(AllFieldsAttr(), {4242, 4243});
  w.Sample(ev, AllFieldsSample());
  auto rr = ReadAll(w.Finish());
  ASSERT_TRUE(rr.file);
  auto recs = rr.OfType(kRecordSample);
  ASSERT_EQ(recs.size(), 1u);
  Sample s;
  const Evsel* evsel = nullptr;
  ASSERT_EQ(rr.file->ParseSample(recs[0]->view(), &s, &evsel), SampleError::kNone);
  ASSERT_EQ(evsel, &rr.file->evsels()[0]);
  EXPECT_EQ(s.cpumode(), kMiscKernel);
  EXPECT_TRUE(s.misc & kMiscExactIp);
  EXPECT_EQ(s.id, 4242u);
  EXPECT_EQ(s.ip, 0xffffffff81000010u);
  EXPECT_EQ(s.pid, 1234u);
  EXPECT_EQ(s.tid, 1235u);
  EXPECT_EQ(s.time, 0x0102030405060708u);
  EXPECT_EQ(s.addr, 0xdead0000u);
  EXPECT_EQ(s.stream_id, 4343u);
  EXPECT_EQ(s.cpu, 7u);
  EXPECT_EQ(s.period, 250000u);
  ASSERT_EQ(s.read_values.size, 9u);
  std::vector<uint64_t> rv;
  for (uint64_t i = 0; i < s.read_values.size; ++i) rv.push_back(s.read_values[i]);
  EXPECT_EQ(rv, AllFieldsSample().read_values);
  ASSERT_EQ(s.callchain.size, 6u);
  EXPECT_EQ(s.callchain[0], kContextKernel);
  EXPECT_EQ(s.callchain[1], 0xffffffff81000010u);
  EXPECT_EQ(s.callchain[3], kContextUser);
  EXPECT_EQ(s.callchain[5], 0x401100u);
  EXPECT_GE(s.callchain[0], kContextMax);
  EXPECT_LT(s.callchain[4], kContextMax);
  ASSERT_EQ(s.raw_size, 12u);
  EXPECT_EQ(std::vector<uint8_t>(s.raw_data, s.raw_data + 12), AllFieldsSample().raw);
  ASSERT_EQ(s.branch_nr, 2u);
  EXPECT_EQ(s.branch_hw_idx, 3u);
  EXPECT_EQ(s.branch(0).from, 0x401000u);
  EXPECT_EQ(s.branch(0).to, 0x402000u);
  EXPECT_EQ(s.branch(0).flags, 0x11u);
  EXPECT_EQ(s.branch(1).from, 0x402010u);
  EXPECT_EQ(s.branch(1).to, 0x403000u);
  EXPECT_EQ(s.branch(1).flags, (5u << 4) | 1u);
  ASSERT_EQ(s.branch_counters.size, 2u);
  EXPECT_EQ(s.branch_counters[1], 2u);
  EXPECT_EQ(s.user_regs_abi, 2u);
  ASSERT_EQ(s.user_regs.size, 3u);
  EXPECT_EQ(s.user_regs[0], 0x10u);
  EXPECT_EQ(s.user_regs[2], 0x30u);
  ASSERT_EQ(s.user_stack_size, 32u);
  EXPECT_EQ(s.user_stack_dyn_size, 24u);
  EXPECT_EQ(s.user_stack[31], 31);
  EXPECT_EQ(s.weight, 0x1234u);  // WEIGHT_STRUCT var1
  EXPECT_EQ(s.ins_lat, 0x77u);   // var2
  EXPECT_EQ(s.data_src, 0x6900000042u);
  EXPECT_EQ(s.transaction, 8u);
  EXPECT_EQ(s.intr_regs_abi, 2u);
  ASSERT_EQ(s.intr_regs.size, 2u);
  EXPECT_EQ(s.intr_regs[1], 0xbbu);
  EXPECT_EQ(s.phys_addr, 0x123456000u);
  EXPECT_EQ(s.cgroup, 0x77u);
  EXPECT_EQ(s.data_page_size, 4096u);
  EXPECT_EQ(s.code_page_size, 2u << 20);
  ASSERT_EQ(s.aux_size, 8u);
  EXPECT_EQ(s.aux_data[7], 0xf7);
  EXPECT_EQ(rr.file->RecordTime(recs[0]->view()), 0x0102030405060708u);
}

TEST_P(SampleTest, AbsentFieldsTakeDefaults) {
  PerfDataWriter w(PerfDataWriter::kFile, GetParam());
  EventAttr a = MakeAttr(kSampleIp | kSampleWeight | kSampleRegsUser | kSampleStackUser);
  a.sample_period = 1234567;
  a.sample_regs_user = 0xff;
  int ev = w.AddAttr(a);
  SampleFields f;
  f.ip = 0x99;
  f.weight = 0xabcdef0123;  // plain WEIGHT keeps all 64 bits
  f.user_regs_abi = 0;      // no registers follow
  w.Sample(ev, f);           // empty user stack: only the u64 size 0
  auto rr = ReadAll(w.Finish());
  ASSERT_TRUE(rr.file);
  auto recs = rr.OfType(kRecordSample);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0]->bytes.size(), 8u + 8 + 8 + 8 + 8);
  Sample s;
  ASSERT_EQ(DecodeSample(recs[0]->view(), rr.file->evsels()[0].attr, rr.file->loader(), &s), SampleError::kNone);
  EXPECT_EQ(s.ip, 0x99u);
  EXPECT_EQ(s.weight, 0xabcdef0123u);
  EXPECT_EQ(s.ins_lat, 0u);
  EXPECT_EQ(s.period, 1234567u);  // attr.sample_period
  EXPECT_EQ(s.pid, UINT32_MAX);
  EXPECT_EQ(s.tid, UINT32_MAX);
  EXPECT_EQ(s.cpu, UINT32_MAX);
  EXPECT_EQ(s.time, UINT64_MAX);
  EXPECT_EQ(s.id, UINT64_MAX);
  EXPECT_EQ(s.stream_id, UINT64_MAX);
  EXPECT_EQ(s.user_regs_abi, 0u);
  EXPECT_TRUE(s.user_regs.empty());
  EXPECT_EQ(s.user_stack_size, 0u);
  EXPECT_EQ(s.user_stack, nullptr);
  EXPECT_TRUE(s.callchain.empty());
  EXPECT_EQ(rr.file->RecordTime(recs[0]->view()), 0u);
}

// Every field of two samples, spans by their (data, size).
void ExpectSameSample(const Sample& a, const Sample& b) {
  auto span = [](const U64Array& x) { return std::make_pair(x.data, x.size); };
  EXPECT_EQ(a.ip, b.ip);
  EXPECT_EQ(a.pid, b.pid);
  EXPECT_EQ(a.tid, b.tid);
  EXPECT_EQ(a.time, b.time);
  EXPECT_EQ(a.addr, b.addr);
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.stream_id, b.stream_id);
  EXPECT_EQ(a.cpu, b.cpu);
  EXPECT_EQ(a.period, b.period);
  EXPECT_EQ(a.weight, b.weight);
  EXPECT_EQ(a.ins_lat, b.ins_lat);
  EXPECT_EQ(a.data_src, b.data_src);
  EXPECT_EQ(a.transaction, b.transaction);
  EXPECT_EQ(a.phys_addr, b.phys_addr);
  EXPECT_EQ(a.cgroup, b.cgroup);
  EXPECT_EQ(a.data_page_size, b.data_page_size);
  EXPECT_EQ(a.code_page_size, b.code_page_size);
  EXPECT_EQ(a.misc, b.misc);
  EXPECT_EQ(span(a.read_values), span(b.read_values));
  EXPECT_EQ(span(a.callchain), span(b.callchain));
  EXPECT_EQ(a.raw_data, b.raw_data);
  EXPECT_EQ(a.raw_size, b.raw_size);
  EXPECT_EQ(a.branch_nr, b.branch_nr);
  EXPECT_EQ(a.branch_hw_idx, b.branch_hw_idx);
  EXPECT_EQ(span(a.branch_entries), span(b.branch_entries));
  EXPECT_EQ(span(a.branch_counters), span(b.branch_counters));
  EXPECT_EQ(a.user_regs_abi, b.user_regs_abi);
  EXPECT_EQ(span(a.user_regs), span(b.user_regs));
  EXPECT_EQ(a.user_stack, b.user_stack);
  EXPECT_EQ(a.user_stack_size, b.user_stack_size);
  EXPECT_EQ(a.user_stack_dyn_size, b.user_stack_dyn_size);
  EXPECT_EQ(a.intr_regs_abi, b.intr_regs_abi);
  EXPECT_EQ(span(a.intr_regs), span(b.intr_regs));
  EXPECT_EQ(a.aux_data, b.aux_data);
  EXPECT_EQ(a.aux_size, b.aux_size);
}

// Callers reuse one Sample: what a rich sample set must not leak into the next one
// (DecodeSample resets field by field rather than assigning Sample{}).
TEST_P(SampleTest, ReusedSampleKeepsNothingFromTheLastOne) {
  PerfDataWriter w(PerfDataWriter::kFile, GetParam());
  int rich = w.AddAttr(AllFieldsAttr(), {4242, 4243});
  EventAttr plain_attr = MakeAttr(kSampleIdentifier | kSampleIp);
  plain_attr.sample_period = 777;
  int plain = w.AddAttr(plain_attr, {5151});
  w.Sample(rich, AllFieldsSample());
  SampleFields f;
  f.identifier = 5151;
  f.ip = 0x1234;
  f.misc = kMiscUser;
  w.Sample(plain, f);
  auto rr = ReadAll(w.Finish());
  ASSERT_TRUE(rr.file);
  auto recs = rr.OfType(kRecordSample);
  ASSERT_EQ(recs.size(), 2u);
  // The timeless plain sample is delivered first (nothing to order it by).
  if (recs[0]->bytes.size() > recs[1]->bytes.size()) std::swap(recs[0], recs[1]);
  const RecordView plain_view = recs[0]->view(), rich_view = recs[1]->view();
  Sample reused, fresh;
  const Evsel* ev = nullptr;
  ASSERT_EQ(rr.file->ParseSample(rich_view, &reused, &ev), SampleError::kNone);
  ASSERT_EQ(ev, &rr.file->evsels()[0]);
  ASSERT_EQ(rr.file->ParseSample(plain_view, &reused, &ev), SampleError::kNone);
  ASSERT_EQ(ev, &rr.file->evsels()[1]);
  ASSERT_EQ(DecodeSample(plain_view, ev->attr, rr.file->loader(), &fresh), SampleError::kNone);
  EXPECT_EQ(reused.ip, 0x1234u);
  EXPECT_EQ(reused.period, 777u);
  ExpectSameSample(reused, fresh);
  // And a Sample{} reset by decoding equals its defaults apart from what was read.
  Sample defaults;
  defaults.id = 5151;
  defaults.ip = 0x1234;
  defaults.misc = kMiscUser;
  defaults.period = 777;
  ExpectSameSample(fresh, defaults);
}

TEST_P(SampleTest, ReadFormatWithoutGroup) {
  PerfDataWriter w(PerfDataWriter::kPipe, GetParam());
  EventAttr a = MakeAttr(kSampleIp | kSampleRead);
  a.read_format = kReadTotalTimeEnabled | kReadId;
  int ev = w.AddAttr(a, {8});
  SampleFields f;
  f.ip = 1;
  f.read_values = {500, 600, 8};  // value, enabled, id
  w.Sample(ev, f);
  auto rr = ReadAll(w.Finish());
  ASSERT_TRUE(rr.file);
  auto recs = rr.OfType(kRecordSample);
  ASSERT_EQ(recs.size(), 1u);
  Sample s;
  ASSERT_EQ(DecodeSample(recs[0]->view(), rr.file->evsels()[0].attr, rr.file->loader(), &s), SampleError::kNone);
  ASSERT_EQ(s.read_values.size, 3u);
  EXPECT_EQ(s.read_values[0], 500u);
  EXPECT_EQ(s.read_values[1], 600u);
  EXPECT_EQ(s.read_values[2], 8u);
}

TEST_P(SampleTest, OversizedCountsAreErrorsNotCrashes) {
  struct Case {
    uint64_t sample_type;
    SampleError expected;
  };
  for (Case c : {Case{kSampleCallchain, SampleError::kBadCallchain}, Case{kSampleRaw, SampleError::kBadRaw},
                 Case{kSampleBranchStack, SampleError::kBadBranchStack},
                 Case{kSampleStackUser, SampleError::kBadStack}, Case{kSampleAux, SampleError::kBadAux},
                 Case{kSamplePeriod | kSampleTime, SampleError::kTruncated}}) {
    SCOPED_TRACE(SampleErrorName(c.expected));
    PerfDataWriter w(PerfDataWriter::kFile, GetParam());
    int ev = w.AddAttr(MakeAttr(kSampleIp | c.sample_type, 136, 0, false));
    // A record with only the ip, then the count (or u32 size) of the variable part set
    // to a huge value and nothing behind it.
    testutil::ByteWriter body(GetParam());
    body.U64(0x401000);
    if (c.sample_type == kSampleRaw) {
      body.U32(0xfffffff0);
      body.U32(0);
    } else if (c.sample_type != (kSamplePeriod | kSampleTime)) {
      body.U64(0x2000000000000000ULL);  // nr * 8 overflows 64 bits
    }
    w.Raw(kRecordSample, kMiscUser, body.bytes());
    (void)ev;
    auto rr = ReadAll(w.Finish());
    ASSERT_TRUE(rr.file);
    auto recs = rr.OfType(kRecordSample);
    ASSERT_EQ(recs.size(), 1u);
    Sample s;
    EXPECT_EQ(DecodeSample(recs[0]->view(), rr.file->evsels()[0].attr, rr.file->loader(), &s), c.expected);
  }
}

// DecodeSampleBasics reads a few words in place: for every layout and every header.size
// from 8 to the full record it must give DecodeSample's error and, without one, its
// ip, pid, tid, cpu and period.
TEST_P(SampleTest, BasicsAgreeWithDecodeSample) {
  const uint64_t fixed = kSampleIdentifier | kSampleIp | kSampleTid | kSampleTime | kSampleAddr | kSampleId |
                         kSampleStreamId | kSampleCpu | kSamplePeriod;
  int checked = 0;
  for (uint64_t st : {kSampleIp | kSampleTid | kSamplePeriod, kSampleIp | kSampleTid | kSampleTime | kSampleCallchain,
                      fixed, fixed | kSampleCallchain, kSampleTid | kSampleCpu | kSampleCallchain,
                      kSampleIp | kSampleTid | kSampleRaw, kSampleIp | kSampleRead | kSampleCallchain, kAllFields}) {
    SCOPED_TRACE(st);
    PerfDataWriter w(PerfDataWriter::kFile, GetParam());
    EventAttr attr = st == kAllFields ? AllFieldsAttr() : MakeAttr(st);
    if (st & kSampleRead) attr.read_format = kReadTotalTimeEnabled;
    attr.sample_period = 4000;  // the period of samples without PERF_SAMPLE_PERIOD
    int ev = w.AddAttr(attr);
    SampleFields f = AllFieldsSample();
    f.read_values = (st & kSampleRead) ? std::vector<uint64_t>{5, 6} : f.read_values;
    w.Sample(ev, f);
    auto rr = ReadAll(w.Finish());
    ASSERT_TRUE(rr.file);
    auto recs = rr.OfType(kRecordSample);
    ASSERT_EQ(recs.size(), 1u);
    const RecordView full = recs[0]->view();
    for (uint32_t size = 8; size <= full.size; size += 4) {
      RecordView r = full;
      r.size = static_cast<uint16_t>(size);
      Sample ref, scratch;
      SampleBasics b;
      SampleError want = DecodeSample(r, attr, rr.file->loader(), &ref);
      ASSERT_EQ(DecodeSampleBasics(r, attr, rr.file->loader(), &b, &scratch), want) << "size " << size;
      ++checked;
      if (want != SampleError::kNone) continue;
      EXPECT_EQ(b.ip, ref.ip);
      EXPECT_EQ(b.pid, ref.pid);
      EXPECT_EQ(b.tid, ref.tid);
      EXPECT_EQ(b.cpu, ref.cpu);
      EXPECT_EQ(b.period, ref.period);
    }
    // The full record decodes, with the written values.
    SampleBasics b;
    Sample scratch;
    ASSERT_EQ(DecodeSampleBasics(full, attr, rr.file->loader(), &b, &scratch), SampleError::kNone);
    EXPECT_EQ(b.ip, (st & kSampleIp) ? f.ip : 0u);
    EXPECT_EQ(b.tid, (st & kSampleTid) ? f.tid : UINT32_MAX);
    EXPECT_EQ(b.cpu, (st & kSampleCpu) ? f.cpu : UINT32_MAX);
    EXPECT_EQ(b.period, (st & kSamplePeriod) ? f.period : 4000u);
  }
  EXPECT_GT(checked, 100);
  // A callchain count whose bytes would overflow: kBadCallchain, as DecodeSample.
  PerfDataWriter w(PerfDataWriter::kFile, GetParam());
  EventAttr attr = MakeAttr(kSampleIp | kSampleCallchain, 136, 0, false);
  w.AddAttr(attr);
  testutil::ByteWriter body(GetParam());
  body.U64(0x401000);
  body.U64(0x2000000000000000ULL);
  w.Raw(kRecordSample, kMiscUser, body.bytes());
  auto rr = ReadAll(w.Finish());
  ASSERT_TRUE(rr.file);
  auto recs = rr.OfType(kRecordSample);
  ASSERT_EQ(recs.size(), 1u);
  SampleBasics b;
  Sample scratch;
  EXPECT_EQ(DecodeSampleBasics(recs[0]->view(), attr, rr.file->loader(), &b, &scratch), SampleError::kBadCallchain);
}

TEST_P(SampleTest, TrailerParsedFromTheEnd) {
  const uint64_t st = kSampleTid | kSampleTime | kSampleId | kSampleStreamId | kSampleCpu | kSampleIdentifier;
  PerfDataWriter w(PerfDataWriter::kFile, GetParam());
  w.AddAttr(MakeAttr(st), {31});
  SampleId in;
  in.pid = 10;
  in.tid = 11;
  in.time = 12;
  in.id = 31;
  in.stream_id = 14;
  in.cpu = 15;
  w.Comm(10, 11, "a-much-longer-comm", false, in);
  auto rr = ReadAll(w.Finish());
  ASSERT_TRUE(rr.file);
  auto recs = rr.OfType(kRecordComm);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(SampleIdTrailerSize(st), 48u);
  SampleId out;
  ASSERT_TRUE(DecodeSampleIdTrailer(recs[0]->view(), st, rr.file->loader(), &out));
  EXPECT_EQ(out.pid, 10u);
  EXPECT_EQ(out.tid, 11u);
  EXPECT_EQ(out.time, 12u);
  EXPECT_EQ(out.id, 31u);
  EXPECT_EQ(out.stream_id, 14u);
  EXPECT_EQ(out.cpu, 15u);
  CommEvent c;
  ASSERT_TRUE(DecodeComm(recs[0]->view(), rr.file->loader(), &c));
  EXPECT_EQ(c.comm, "a-much-longer-comm");
  // A record shorter than its trailer.
  RecordView shortr = recs[0]->view();
  shortr.size = 8 + 40;
  EXPECT_FALSE(DecodeSampleIdTrailer(shortr, st, rr.file->loader(), &out));
}

INSTANTIATE_TEST_SUITE_P(BothEndians, SampleTest, testing::Values(Endian::kLittle, Endian::kBig),
                         [](const testing::TestParamInfo<Endian>& i) {
                           return i.param == Endian::kLittle ? "Little" : "Big";
                         });

}  // namespace
}  // namespace perflens
