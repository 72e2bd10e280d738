// Attrs of every on-disk size and the id -> evsel map (attr ids, HEADER_ATTR ids; ID_INDEX
// leaves it alone) with two events, in file and pipe mode and both byte orders.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "perfdata/perf_file.h"
#include "testutil/perf_data_writer.h"
#include "testutil/read_records.h"

namespace perflens {
namespace {

using testutil::MakeAttr;
using testutil::PerfDataWriter;
using testutil::ReadAll;
using testutil::SampleFields;
using testutil::SidAt;
using AttrTest = testutil::LayoutTest;

TEST_P(AttrTest, AttrSizesFrom64UpAndLarger) {
  for (uint32_t size : {0u, 64u, 72u, 80u, 96u, 104u, 112u, 120u, 128u, 136u, 144u, 256u}) {
    SCOPED_TRACE("attr size " + std::to_string(size));
    PerfDataWriter w = Writer();
    EventAttr a = MakeAttr(kSampleIp | kSampleTid | kSampleTime, size, 7);
    a.config2 = 0x22;
    a.branch_sample_type = 0x33;
    a.sample_regs_user = 0x44;
    a.sample_regs_intr = 0x55;
    a.aux_watermark = 0x66;
    a.aux_sample_size = 0x77;
    a.sig_data = 0x88;
    a.config3 = 0x99;
    int ev = w.AddAttr(a, {5}, /*extra_fill=*/0xab);
    SampleFields s;
    s.ip = 0x1000 + size;
    s.pid = s.tid = 9;
    s.time = 50;
    w.Sample(ev, s);
    auto rr = ReadAll(w.Finish());
    ASSERT_TRUE(rr.file);
    ASSERT_EQ(rr.file->evsels().size(), 1u);
    const Evsel& e = rr.file->evsels()[0];
    const uint32_t disk = AttrDiskSize(size);
    EXPECT_EQ(e.attr.size, size);
    EXPECT_EQ(e.attr.config, 7u);
    EXPECT_EQ(e.ids, std::vector<uint64_t>{5});
    EXPECT_TRUE(e.attr.sample_id_all());
    EXPECT_EQ(e.attr.config2, disk >= 72 ? 0x22u : 0u);
    EXPECT_EQ(e.attr.branch_sample_type, disk >= 80 ? 0x33u : 0u);
    EXPECT_EQ(e.attr.sample_regs_user, disk >= 96 ? 0x44u : 0u);
    EXPECT_EQ(e.attr.sample_regs_intr, disk >= 104 ? 0x55u : 0u);
    EXPECT_EQ(e.attr.aux_watermark, disk >= 112 ? 0x66u : 0u);
    EXPECT_EQ(e.attr.aux_sample_size, disk >= 120 ? 0x77u : 0u);
    EXPECT_EQ(e.attr.sig_data, disk >= 128 ? 0x88u : 0u);
    EXPECT_EQ(e.attr.config3, disk >= 136 ? 0x99u : 0u);
    if (!pipe()) {
      EXPECT_EQ(rr.file->attr_size(), disk + 16u);
    }
    auto samples = rr.OfType(kRecordSample);
    ASSERT_EQ(samples.size(), 1u);
    Sample smp;
    const Evsel* evsel;
    ASSERT_EQ(rr.file->ParseSample(samples[0]->view(), &smp, &evsel), SampleError::kNone);
    EXPECT_EQ(smp.ip, 0x1000u + size);
    EXPECT_EQ(smp.time, 50u);
  }
}

TEST_P(AttrTest, TwoEventsMapIdsToEvsels) {
  // IDENTIFIER (id_pos 0 / is_pos 1) and plain ID (id_pos after IP,TID,TIME).
  for (uint64_t id_bit : {kSampleIdentifier, kSampleId}) {
    SCOPED_TRACE(id_bit == kSampleId ? "ID" : "IDENTIFIER");
    PerfDataWriter w = Writer();
    const uint64_t st = kSampleIp | kSampleTid | kSampleTime | kSampleCpu | id_bit;
    int e0 = w.AddAttr(MakeAttr(st, 136, 0), {1001, 1002});
    int e1 = w.AddAttr(MakeAttr(st, 136, 1), {2001, 2002});
    for (uint64_t id : {1001, 2002, 1002, 2001, 9999}) {
      SampleFields s;
      s.ip = id * 16;
      s.identifier = s.id = id;
      s.time = id;
      w.Sample(id >= 2000 && id < 3000 ? e1 : e0, s);
    }
    w.Comm(5, 5, "x", false, SidAt(5, 7, 2002));
    w.Comm(6, 6, "y", false, SidAt(6, 8, 1001));
    auto rr = ReadAll(w.Finish());
    ASSERT_TRUE(rr.file);
    const PerfFile& f = *rr.file;
    ASSERT_EQ(f.evsels().size(), 2u);
    EXPECT_EQ(f.evsels()[1].attr.config, 1u);
    auto samples = rr.OfType(kRecordSample);
    ASSERT_EQ(samples.size(), 5u);
    std::map<uint64_t, const Evsel*> by_ip;
    for (auto* r : samples) {
      Sample s;
      const Evsel* ev = nullptr;
      EXPECT_EQ(f.ParseSample(r->view(), &s, &ev), SampleError::kNone);
      by_ip[Loader{f.cross_endian()}.U64(r->bytes.data() + (id_bit == kSampleIdentifier ? 16 : 8))] = ev;
    }
    EXPECT_EQ(by_ip[1001 * 16], &f.evsels()[0]);
    EXPECT_EQ(by_ip[1002 * 16], &f.evsels()[0]);
    EXPECT_EQ(by_ip[2001 * 16], &f.evsels()[1]);
    EXPECT_EQ(by_ip[2002 * 16], &f.evsels()[1]);
    EXPECT_EQ(by_ip[9999 * 16], nullptr);  // unknown id
    auto comm = rr.OfType(kRecordComm);
    ASSERT_EQ(comm.size(), 2u);
    EXPECT_EQ(f.EvselForRecord(comm[0]->view()), &f.evsels()[1]);
    EXPECT_EQ(f.EvselForRecord(comm[1]->view()), &f.evsels()[0]);
  }
}

TEST_P(AttrTest, IdIndexDoesNotChangeTheIdToEvselMap) {
  // ID_INDEX entries are {id, idx, cpu, tid} where idx is the mmap (ring buffer) index,
  // not an evsel index: perf_event__process_id_index only annotates ids the attrs
  // already own and ignores unknown ones. The attr ids alone decide the evsel.
  PerfDataWriter w = Writer();
  const uint64_t st = kSampleIdentifier | kSampleIp | kSampleTime;
  int e0 = w.AddAttr(MakeAttr(st, 136, 0), {500, 501});
  int e1 = w.AddAttr(MakeAttr(st, 136, 1), {600});
  w.IdIndex({{500, 1, 0, 1}, {501, 0, 1, 1}, {600, 0, 0, 1}, {777, 1, 0, 1}});
  uint64_t time = 10;
  for (uint64_t id : {500, 600, 501, 777}) {
    SampleFields s;
    s.identifier = id;
    s.ip = id;
    s.time = time++;
    w.Sample(id == 600 ? e1 : e0, s);
  }
  ReaderOptions opts;
  opts.ordered = false;
  auto rr = ReadAll(w.Finish(), opts);
  ASSERT_TRUE(rr.file);
  const PerfFile& f = *rr.file;
  EXPECT_FALSE(rr.stats.stopped.has_value());
  EXPECT_EQ(rr.stats.nr_records[kRecordIdIndex], 1u);
  ASSERT_EQ(f.evsels().size(), 2u);
  EXPECT_EQ(f.evsels()[0].ids, (std::vector<uint64_t>{500, 501}));
  EXPECT_EQ(f.evsels()[1].ids, std::vector<uint64_t>{600});
  auto samples = rr.OfType(kRecordSample);
  ASSERT_EQ(samples.size(), 4u);
  std::vector<int> evsel_index;
  for (auto* r : samples) {
    const Evsel* ev = f.EvselForSample(r->view());
    evsel_index.push_back(ev ? ev->index : -1);
  }
  EXPECT_EQ(evsel_index, (std::vector<int>{0, 1, 0, -1}));
}

INSTANTIATE_TEST_SUITE_P(AllLayouts, AttrTest, testutil::AllLayouts(), testutil::LayoutName);

}  // namespace
}  // namespace perflens
