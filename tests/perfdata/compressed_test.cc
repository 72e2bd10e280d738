// PERF_RECORD_COMPRESSED (81) and COMPRESSED2 (83), spec A11: one zstd stream across
// records, records split across two compressed records, inner records delivered right
// after their compressed record with its file offset, and the decompression cap.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "perfdata/perf_file.h"
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

struct Variant {
  PerfDataWriter::Mode mode;
  Endian endian;
  bool compressed2;
};

class CompressedTest : public testing::TestWithParam<Variant> {
 protected:
  PerfDataWriter Writer() {
    PerfDataWriter w(GetParam().mode, GetParam().endian);
    w.AddAttr(MakeAttr(kSampleIp | kSampleTid | kSampleTime | kSampleCallchain), {1});
    testutil::ByteWriter comp(GetParam().endian);  // HEADER_COMPRESSED: version, zstd, level, ratio, mmap_len
    for (uint32_t v : {1u, 1u, 1u, 4u, 528384u}) comp.U32(v);
    w.AddFeature(kFeatCompressed, comp.bytes());
    return w;
  }
  uint32_t CompType() const { return GetParam().compressed2 ? kRecordCompressed2 : kRecordCompressed; }
};

void AddSample(PerfDataWriter& w, uint64_t ip, uint64_t time, size_t depth = 3) {
  SampleFields s;
  s.ip = ip;
  s.pid = s.tid = 42;
  s.time = time;
  s.callchain.push_back(kContextUser);
  for (size_t i = 0; i < depth; ++i) s.callchain.push_back(ip + 0x100 * i);
  w.Sample(0, s);
}

TEST_P(CompressedTest, RecordSpanningTwoCompressedRecords) {
  PerfDataWriter w = Writer();
  w.Comm(42, 42, "before", false, SidAt(42, 1));
  w.BeginCompressed();
  w.Comm(42, 42, "inside", false, SidAt(42, 2));
  size_t sample_start = w.captured_size();
  AddSample(w, 0x401000, 3);
  AddSample(w, 0x402000, 4);
  // Cut in the middle of the first sample: its bytes are in two COMPRESSED records.
  std::vector<uint8_t> inner = w.EndCompressed({sample_start + 13}, GetParam().compressed2);
  w.Comm(42, 42, "after", false, SidAt(42, 5));
  ReaderOptions opts;
  opts.ordered = false;
  auto rr = ReadAll(w.Finish(), opts);
  ASSERT_TRUE(rr.file);
  EXPECT_FALSE(rr.stats.stopped.has_value());
  EXPECT_EQ(rr.stats.nr_bad_records, 0u);
  EXPECT_TRUE(rr.stats.warnings.empty()) << rr.stats.warnings[0];
  auto comps = rr.OfType(CompType());
  ASSERT_EQ(comps.size(), 2u);
  EXPECT_EQ(rr.stats.decompressed_bytes, inner.size());
  // File order: COMM before, COMPRESSED#1, COMM inside, COMPRESSED#2, the two samples
  // (the first completed by #2), COMM after.
  std::vector<uint32_t> types;
  for (const auto& r : rr.records)
    if (r.type < 64 || r.type == CompType()) types.push_back(r.type);
  EXPECT_EQ(types, (std::vector<uint32_t>{kRecordComm, CompType(), kRecordComm, CompType(), kRecordSample,
                                          kRecordSample, kRecordComm}));
  auto comms = rr.OfType(kRecordComm);
  ASSERT_EQ(comms.size(), 3u);
  CommEvent c;
  ASSERT_TRUE(DecodeComm(comms[1]->view(), rr.file->loader(), &c));
  EXPECT_EQ(c.comm, "inside");
  EXPECT_TRUE(comms[1]->compressed);
  EXPECT_EQ(comms[1]->perf_data_offset, comps[0]->perf_data_offset);
  EXPECT_FALSE(comms[2]->compressed);
  auto samples = rr.OfType(kRecordSample);
  ASSERT_EQ(samples.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_TRUE(samples[i]->compressed);
    EXPECT_EQ(samples[i]->perf_data_offset, comps[1]->perf_data_offset);
    Sample s;
    const Evsel* ev;
    ASSERT_EQ(rr.file->ParseSample(samples[i]->view(), &s, &ev), SampleError::kNone);
    EXPECT_EQ(s.ip, i == 0 ? 0x401000u : 0x402000u);
    EXPECT_EQ(s.time, 3u + i);
    ASSERT_EQ(s.callchain.size, 4u);
    EXPECT_EQ(s.callchain[3], s.ip + 0x200);
  }
  if (GetParam().compressed2) {
    // u64 data_size, payload padded to 8.
    EXPECT_EQ(comps[0]->bytes.size() % 8, 0u);
    EXPECT_LE(rr.file->loader().U64(comps[0]->bytes.data() + 8), comps[0]->bytes.size() - 16);
  }
}

TEST_P(CompressedTest, CompressedRecordsAreOrderedWithTheRest) {
  PerfDataWriter w = Writer();
  AddSample(w, 0x30, 30);
  w.BeginCompressed();
  AddSample(w, 0x10, 10);
  AddSample(w, 0x40, 40);
  w.EndCompressed({}, GetParam().compressed2);
  AddSample(w, 0x20, 20);
  auto rr = ReadAll(w.Finish());
  ASSERT_TRUE(rr.file);
  std::vector<uint64_t> ips;
  for (auto* r : rr.OfType(kRecordSample)) ips.push_back(rr.file->loader().U64(r->bytes.data() + 8));
  EXPECT_EQ(ips, (std::vector<uint64_t>{0x10, 0x20, 0x30, 0x40}));
}

TEST_P(CompressedTest, ManySplitsAndLargeOutput) {
  // ~1.5 MB of records through one or a handful of compressed records; every sample
  // must come out, whatever zstd buffers internally when the output buffer fills up.
  for (int nr_pieces : {1, 8}) {
    SCOPED_TRACE(nr_pieces);
    PerfDataWriter w = Writer();
    w.BeginCompressed();
    const int kSamples = 12000;
    for (int i = 0; i < kSamples; ++i) AddSample(w, 0x400000 + 16 * static_cast<uint64_t>(i % 64), 100 + i, 10);
    size_t total = w.captured_size();
    std::vector<size_t> splits;
    for (int k = 1; k < nr_pieces; ++k) splits.push_back(total * k / nr_pieces + 3);
    w.EndCompressed(splits, GetParam().compressed2);
    ReaderOptions opts;
    opts.ordered = false;
    auto rr = ReadAll(w.Finish(), opts);
    ASSERT_TRUE(rr.file);
    EXPECT_EQ(rr.stats.nr_records[kRecordSample], static_cast<uint64_t>(kSamples));
    EXPECT_EQ(rr.stats.decompressed_bytes, total);
    auto samples = rr.OfType(kRecordSample);
    ASSERT_EQ(samples.size(), static_cast<size_t>(kSamples));
    EXPECT_EQ(rr.file->RecordTime(samples.back()->view()), 100u + kSamples - 1);
  }
}

TEST_P(CompressedTest, ZipBombHitsTheCap) {
  PerfDataWriter w = Writer();
  AddSample(w, 0x1, 1);
  // 4 MiB of FINISHED_ROUND records compress to a few hundred bytes.
  std::vector<uint8_t> bomb;
  testutil::ByteWriter fr(GetParam().endian);
  for (int i = 0; i < (4 << 20) / 8; ++i) {
    fr.U32(kRecordFinishedRound);
    fr.U16(0);
    fr.U16(8);
  }
  const uint64_t bomb_offset = w.data_offset() + w.data().size();
  w.AppendCompressed(fr.bytes(), {}, GetParam().compressed2);
  AddSample(w, 0x2, 2);
  ReaderOptions opts;
  opts.max_decompressed_bytes = 1 << 20;
  auto rr = ReadAll(w.Finish(), opts);
  ASSERT_TRUE(rr.file);
  EXPECT_LE(rr.stats.decompressed_bytes, (1u << 20) + (2u << 20));  // stopped near the cap
  EXPECT_LT(rr.stats.nr_records[kRecordFinishedRound], (4u << 20) / 8);
  EXPECT_GE(rr.stats.nr_bad_records, 1u);
  ASSERT_FALSE(rr.stats.warnings.empty());
  const std::string& msg = rr.stats.warnings.back();
  EXPECT_NE(msg.find(GetParam().compressed2 ? "COMPRESSED2" : "COMPRESSED"), std::string::npos) << msg;
  EXPECT_NE(msg.find(fmt::format("{:#x}", bomb_offset)), std::string::npos) << msg;
  EXPECT_NE(msg.find("cap"), std::string::npos) << msg;
  // Records outside the bomb are still read.
  EXPECT_EQ(rr.stats.nr_records[kRecordSample], 2u);
}

TEST_P(CompressedTest, CorruptStreamIsReportedNotFatal) {
  PerfDataWriter w = Writer();
  std::vector<uint8_t> garbage(40, 0x5a);
  if (GetParam().compressed2) {
    testutil::ByteWriter body(GetParam().endian);
    body.U64(garbage.size());
    body.Bytes(garbage);
    w.Raw(kRecordCompressed2, 0, body.bytes());
  } else {
    w.Raw(kRecordCompressed, 0, garbage);
  }
  AddSample(w, 0x7, 7);
  auto rr = ReadAll(w.Finish());
  ASSERT_TRUE(rr.file);
  EXPECT_EQ(rr.stats.nr_records[kRecordSample], 1u);
  EXPECT_EQ(rr.stats.nr_bad_records, 1u);
  ASSERT_EQ(rr.stats.warnings.size(), 1u);
  EXPECT_NE(rr.stats.warnings[0].find("zstd"), std::string::npos) << rr.stats.warnings[0];
}

INSTANTIATE_TEST_SUITE_P(
    Variants, CompressedTest,
    testing::Values(Variant{PerfDataWriter::kFile, Endian::kLittle, false},
                    Variant{PerfDataWriter::kFile, Endian::kLittle, true},
                    Variant{PerfDataWriter::kFile, Endian::kBig, false},
                    Variant{PerfDataWriter::kPipe, Endian::kLittle, false},
                    Variant{PerfDataWriter::kPipe, Endian::kLittle, true},
                    Variant{PerfDataWriter::kPipe, Endian::kBig, true}),
    [](const testing::TestParamInfo<Variant>& i) {
      return std::string(i.param.mode == PerfDataWriter::kFile ? "File" : "Pipe") +
             (i.param.endian == Endian::kLittle ? "Little" : "Big") + (i.param.compressed2 ? "Comp2" : "Comp");
    });

}  // namespace
}  // namespace perflens
