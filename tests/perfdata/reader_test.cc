// PerfFile reading of synthetic files: header and attrs, every record type with its
// sample_id trailer, evsel lookup by id, in file and pipe mode and both byte orders.
#include <gtest/gtest.h>

#include <string>

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
using testutil::SidAt;
using ReaderTest = testutil::LayoutTest;

constexpr uint64_t kTrailerType = kSampleIp | kSampleTid | kSampleTime | kSampleId | kSampleCpu | kSamplePeriod;

TEST_P(ReaderTest, HeaderAndAttrFields) {
  PerfDataWriter w = Writer();
  EventAttr a = MakeAttr(kTrailerType | kSampleCallchain, 136, 0x3c);
  a.type = 4;
  a.sample_period = 0x123456789;
  a.read_format = kReadTotalTimeEnabled | kReadId;
  a.flags |= (3ULL << 15) | (1ULL << 34) | (1ULL << 37);  // precise_ip=3, build_id, sigtrap
  a.wakeup_events = 17;
  a.bp_type = 3;
  a.config1 = 0x1111;
  a.config2 = 0x2222;
  a.branch_sample_type = 0x4000;
  a.sample_regs_user = 0xff0fULL;
  a.sample_stack_user = 8192;
  a.clockid = 1;
  a.sample_regs_intr = 0x3;
  a.aux_watermark = 4096;
  a.sample_max_stack = 127;
  a.aux_sample_size = 512;
  a.sig_data = 0xdeadbeefcafeULL;
  a.config3 = 0x3333;
  w.AddAttr(a, {11, 12, 13});
  w.AddFeature(kFeatHostname, w.FeatureString("host"));
  w.AddFeature(kFeatArch, w.FeatureString("x86_64"));
  w.FinishedRound();
  auto rr = ReadAll(w.Finish());
  ASSERT_TRUE(rr.file);
  const PerfFile& f = *rr.file;
  EXPECT_EQ(f.pipe_mode(), pipe());
  EXPECT_EQ(f.cross_endian(), big());
  ASSERT_EQ(f.evsels().size(), 1u);
  const Evsel& ev = f.evsels()[0];
  EXPECT_EQ(ev.ids, (std::vector<uint64_t>{11, 12, 13}));
  const EventAttr& b = ev.attr;
  EXPECT_EQ(b.type, 4u);
  EXPECT_EQ(b.size, 136u);
  EXPECT_EQ(b.config, 0x3cu);
  EXPECT_EQ(b.sample_period, 0x123456789u);
  EXPECT_EQ(b.sample_type, a.sample_type);
  EXPECT_EQ(b.read_format, a.read_format);
  EXPECT_EQ(b.flags, a.flags);
  EXPECT_TRUE(b.disabled());
  EXPECT_TRUE(b.mmap());
  EXPECT_TRUE(b.comm());
  EXPECT_TRUE(b.freq());
  EXPECT_TRUE(b.sample_id_all());
  EXPECT_TRUE(b.mmap2());
  EXPECT_TRUE(b.comm_exec());
  EXPECT_TRUE(b.build_id());
  EXPECT_FALSE(b.inherit());
  EXPECT_FALSE(b.exclude_kernel());
  EXPECT_EQ(b.precise_ip(), 3);
  EXPECT_EQ(b.wakeup_events, 17u);
  EXPECT_EQ(b.bp_type, 3u);
  EXPECT_EQ(b.config1, 0x1111u);
  EXPECT_EQ(b.config2, 0x2222u);
  EXPECT_EQ(b.branch_sample_type, 0x4000u);
  EXPECT_EQ(b.sample_regs_user, 0xff0fu);
  EXPECT_EQ(b.sample_stack_user, 8192u);
  EXPECT_EQ(b.clockid, 1);
  EXPECT_EQ(b.sample_regs_intr, 3u);
  EXPECT_EQ(b.aux_watermark, 4096u);
  EXPECT_EQ(b.sample_max_stack, 127u);
  EXPECT_EQ(b.aux_sample_size, 512u);
  EXPECT_EQ(b.sig_data, 0xdeadbeefcafeu);
  EXPECT_EQ(b.config3, 0x3333u);
  EXPECT_TRUE(f.HasFeature(kFeatHostname));
  EXPECT_TRUE(f.HasFeature(kFeatArch));
  EXPECT_FALSE(f.HasFeature(kFeatBuildId));
  if (!pipe()) {
    EXPECT_EQ(f.header_size(), 104u);
    EXPECT_EQ(f.attr_size(), 136u + 16);
    EXPECT_EQ(f.data_offset(), w.data_offset());
    EXPECT_EQ(f.data_size(), w.data().size());
  }
  ASSERT_EQ(rr.OfType(kRecordFinishedRound).size(), 1u);
  EXPECT_FALSE(rr.stats.stopped.has_value());
}

TEST_P(ReaderTest, EveryRecordTypeDecodes) {
  PerfDataWriter w = Writer();
  int ev = w.AddAttr(MakeAttr(kTrailerType), {77});
  w.Comm(100, 101, "workload", /*exec=*/true, SidAt(100, 1000, 77, 2));
  w.Mmap(100, 101, 0x400000, 0x2000, 0x1000, "/bin/w", SidAt(100, 1001, 77, 2));
  PerfDataWriter::Mmap2Fields m2;
  m2.pid = 100;
  m2.tid = 102;
  m2.start = 0x7f0000001000;
  m2.len = 0x3000;
  m2.pgoff = 0x5000;
  m2.maj = 8;
  m2.min = 3;
  m2.ino = 0x123456;
  m2.ino_generation = 9;
  m2.prot = 5;
  m2.flags = 0x802;
  m2.filename = "/usr/lib/libc.so.6";
  w.Mmap2(m2, SidAt(100, 1002, 77, 2));
  PerfDataWriter::Mmap2Fields m3 = m2;
  m3.build_id = {0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  m3.filename = "[vdso]";
  w.Mmap2(m3, SidAt(100, 1003, 77, 2));
  w.Fork(200, 100, 201, 101, 1004, SidAt(200, 1004, 77, 3));
  w.Exit(200, 100, 201, 101, 1005, SidAt(200, 1005, 77, 3));
  w.Lost(77, 42, SidAt(100, 1006, 77, 1));
  w.Throttle(1007, 77, 78, false, SidAt(100, 1007, 77, 1));
  w.Throttle(1008, 77, 78, true, SidAt(100, 1008, 77, 1));
  w.Ksymbol(0xffffffffc0001000, 0x80, 1, 0, "bpf_prog_abc", SidAt(0, 1009, 77, 0));
  SampleFields s;
  s.ip = 0x401234;
  s.pid = 100;
  s.tid = 101;
  s.time = 1010;
  s.id = 77;
  s.cpu = 2;
  s.period = 100003;
  w.Sample(ev, s);
  std::vector<uint8_t> aux(24);
  for (size_t i = 0; i < aux.size(); ++i) aux[i] = static_cast<uint8_t>(0xa0 + i);
  w.Auxtrace(0x100, 0x200, 1, 101, 2, aux);
  w.Raw(200, 0, std::vector<uint8_t>(16, 0x55));  // unknown user type
  w.Raw(60, 0, std::vector<uint8_t>(8, 0x66));    // unknown kernel type, no trailer
  w.FinishedRound();
  ReaderOptions opts;
  opts.ordered = false;
  auto rr = ReadAll(w.Finish(), opts);
  ASSERT_TRUE(rr.file);
  const PerfFile& f = *rr.file;
  const Loader& ld = f.loader();
  EXPECT_FALSE(rr.stats.stopped.has_value()) << rr.stats.stopped->message;
  EXPECT_EQ(rr.stats.nr_records[kRecordMmap2], 2u);
  EXPECT_EQ(rr.stats.nr_records[kRecordAuxtrace], 1u);
  EXPECT_EQ(rr.stats.nr_unknown_type, 1u);
  EXPECT_EQ(rr.stats.nr_records[60], 1u);
  // Both are records of a type the reader does not know: counted, the first named by
  // type and offset (the cli says so once; perf stops there).
  EXPECT_EQ(rr.stats.nr_unknown_records, 2u);
  EXPECT_EQ(rr.stats.first_unknown_type, 200u);
  ASSERT_EQ(rr.OfType(200).size(), 1u);
  EXPECT_GT(rr.stats.first_unknown_offset, 0u);
  EXPECT_EQ(rr.stats.first_unknown_offset, rr.OfType(200)[0]->view().perf_data_offset);

  auto trailer = [&](const testutil::OwnedRecord* r) {
    SampleId sid;
    EXPECT_TRUE(DecodeSampleIdTrailer(r->view(), kTrailerType, ld, &sid));
    return sid;
  };
  auto comm = rr.OfType(kRecordComm);
  ASSERT_EQ(comm.size(), 1u);
  CommEvent c;
  ASSERT_TRUE(DecodeComm(comm[0]->view(), ld, &c));
  EXPECT_EQ(c.pid, 100u);
  EXPECT_EQ(c.tid, 101u);
  EXPECT_EQ(c.comm, "workload");
  EXPECT_TRUE(c.exec);
  SampleId sid = trailer(comm[0]);
  EXPECT_EQ(sid.pid, 100u);
  EXPECT_EQ(sid.tid, 100u);
  EXPECT_EQ(sid.time, 1000u);
  EXPECT_EQ(sid.id, 77u);
  EXPECT_EQ(sid.cpu, 2u);
  EXPECT_EQ(f.RecordTime(comm[0]->view()), 1000u);

  auto mmap = rr.OfType(kRecordMmap);
  ASSERT_EQ(mmap.size(), 1u);
  MmapEvent me;
  ASSERT_TRUE(DecodeMmap(mmap[0]->view(), ld, &me));
  EXPECT_FALSE(me.is_mmap2);
  EXPECT_EQ(me.pid, 100u);
  EXPECT_EQ(me.tid, 101u);
  EXPECT_EQ(me.start, 0x400000u);
  EXPECT_EQ(me.len, 0x2000u);
  EXPECT_EQ(me.pgoff, 0x1000u);
  EXPECT_EQ(me.filename, "/bin/w");
  EXPECT_EQ(trailer(mmap[0]).time, 1001u);

  auto mmap2 = rr.OfType(kRecordMmap2);
  ASSERT_EQ(mmap2.size(), 2u);
  ASSERT_TRUE(DecodeMmap2(mmap2[0]->view(), ld, &me));
  EXPECT_TRUE(me.is_mmap2);
  EXPECT_EQ(me.pid, 100u);
  EXPECT_EQ(me.tid, 102u);
  EXPECT_EQ(me.start, 0x7f0000001000u);
  EXPECT_EQ(me.len, 0x3000u);
  EXPECT_EQ(me.pgoff, 0x5000u);
  EXPECT_EQ(me.maj, 8u);
  EXPECT_EQ(me.min, 3u);
  EXPECT_EQ(me.ino, 0x123456u);
  EXPECT_EQ(me.ino_generation, 9u);
  EXPECT_EQ(me.prot, 5u);
  EXPECT_EQ(me.flags, 0x802u);
  EXPECT_TRUE(me.build_id.empty());
  EXPECT_EQ(me.filename, "/usr/lib/libc.so.6");
  EXPECT_EQ(trailer(mmap2[0]).time, 1002u);
  ASSERT_TRUE(DecodeMmap2(mmap2[1]->view(), ld, &me));
  EXPECT_TRUE(mmap2[1]->misc & kMiscMmapBuildId);
  EXPECT_EQ(me.build_id.ToHex(), "deadbeef0102030405060708090a0b0c0d0e0f10");
  EXPECT_EQ(me.maj, 0u);
  EXPECT_EQ(me.ino, 0u);
  EXPECT_EQ(me.prot, 5u);
  EXPECT_EQ(me.filename, "[vdso]");
  EXPECT_EQ(trailer(mmap2[1]).time, 1003u);

  for (uint32_t type : {kRecordFork, kRecordExit}) {
    auto task = rr.OfType(type);
    ASSERT_EQ(task.size(), 1u);
    TaskEvent t;
    ASSERT_TRUE(DecodeTask(task[0]->view(), ld, &t));
    EXPECT_EQ(t.pid, 200u);
    EXPECT_EQ(t.ppid, 100u);
    EXPECT_EQ(t.tid, 201u);
    EXPECT_EQ(t.ptid, 101u);
    EXPECT_EQ(t.time, type == kRecordFork ? 1004u : 1005u);
    EXPECT_EQ(trailer(task[0]).cpu, 3u);
  }

  auto lost = rr.OfType(kRecordLost);
  ASSERT_EQ(lost.size(), 1u);
  LostEvent le;
  ASSERT_TRUE(DecodeLost(lost[0]->view(), ld, &le));
  EXPECT_EQ(le.id, 77u);
  EXPECT_EQ(le.lost, 42u);
  EXPECT_EQ(trailer(lost[0]).time, 1006u);

  for (uint32_t type : {kRecordThrottle, kRecordUnthrottle}) {
    auto th = rr.OfType(type);
    ASSERT_EQ(th.size(), 1u);
    EXPECT_EQ(ld.U64(th[0]->bytes.data() + 8), type == kRecordThrottle ? 1007u : 1008u);
    EXPECT_EQ(ld.U64(th[0]->bytes.data() + 16), 77u);
    EXPECT_EQ(ld.U64(th[0]->bytes.data() + 24), 78u);
    EXPECT_EQ(f.RecordTime(th[0]->view()), type == kRecordThrottle ? 1007u : 1008u);
  }

  auto ks = rr.OfType(kRecordKsymbol);
  ASSERT_EQ(ks.size(), 1u);
  KsymbolEvent ke;
  ASSERT_TRUE(DecodeKsymbol(ks[0]->view(), ld, &ke));
  EXPECT_EQ(ke.addr, 0xffffffffc0001000u);
  EXPECT_EQ(ke.len, 0x80u);
  EXPECT_EQ(ke.ksym_type, 1u);
  EXPECT_EQ(ke.flags, 0u);
  EXPECT_EQ(ke.name, "bpf_prog_abc");

  auto samples = rr.OfType(kRecordSample);
  ASSERT_EQ(samples.size(), 1u);
  Sample smp;
  const Evsel* evsel = nullptr;
  ASSERT_EQ(f.ParseSample(samples[0]->view(), &smp, &evsel), SampleError::kNone);
  ASSERT_EQ(evsel, &f.evsels()[0]);
  EXPECT_EQ(smp.ip, 0x401234u);
  EXPECT_EQ(smp.pid, 100u);
  EXPECT_EQ(smp.tid, 101u);
  EXPECT_EQ(smp.time, 1010u);
  EXPECT_EQ(smp.id, 77u);
  EXPECT_EQ(smp.cpu, 2u);
  EXPECT_EQ(smp.period, 100003u);
  EXPECT_EQ(smp.cpumode(), kMiscUser);

  auto at = rr.OfType(kRecordAuxtrace);
  ASSERT_EQ(at.size(), 1u);
  EXPECT_EQ(ld.U64(at[0]->bytes.data() + 8), 24u);     // size of the trailing AUX bytes
  EXPECT_EQ(ld.U64(at[0]->bytes.data() + 16), 0x100u);  // offset
  EXPECT_EQ(ld.U32(at[0]->bytes.data() + 36), 101u);    // tid
  // The AUX bytes were skipped: the next record is the unknown type 200, then 60.
  size_t i_aux = static_cast<size_t>(at[0] - rr.records.data());
  ASSERT_LT(i_aux + 3, rr.records.size());
  EXPECT_EQ(rr.records[i_aux + 1].type, 200u);
  EXPECT_EQ(rr.records[i_aux + 1].perf_data_offset, at[0]->perf_data_offset + 48 + 24);
  EXPECT_EQ(rr.records[i_aux + 2].type, 60u);
  EXPECT_EQ(rr.records[i_aux + 3].type, kRecordFinishedRound);
  EXPECT_EQ(rr.records.back().type, kRecordFinishedRound);
}

TEST_P(ReaderTest, AttrsAfterDataAndShortHeader) {
  if (pipe()) GTEST_SKIP() << "file-mode layout only";
  PerfDataWriter w = Writer();
  int ev = w.AddAttr(MakeAttr(kSampleIp | kSampleTime), {3});
  w.AddFeature(kFeatHostname, w.FeatureString("h"));
  w.set_attrs_after_data(true);
  SampleFields s;
  s.ip = 0xabc;
  s.time = 1;
  w.Sample(ev, s);
  auto rr = ReadAll(w.Finish());
  ASSERT_TRUE(rr.file);
  EXPECT_EQ(rr.file->evsels()[0].ids, std::vector<uint64_t>{3});
  EXPECT_TRUE(rr.file->HasFeature(kFeatHostname));
  ASSERT_EQ(rr.OfType(kRecordSample).size(), 1u);

  // header.size 72: the old header without a feature bitmap.
  PerfDataWriter old = Writer();
  ev = old.AddAttr(MakeAttr(kSampleIp | kSampleTime), {3});
  old.set_file_header_size(72);
  old.Sample(ev, s);
  auto rr2 = ReadAll(old.Finish());
  ASSERT_TRUE(rr2.file);
  EXPECT_EQ(rr2.file->header_size(), 72u);
  EXPECT_TRUE(rr2.file->env().features_present.empty());
  ASSERT_EQ(rr2.OfType(kRecordSample).size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(AllLayouts, ReaderTest, testutil::AllLayouts(), testutil::LayoutName);

}  // namespace
}  // namespace perflens
