// Malformed input: truncation at every byte, bad header and record sizes, sections
// outside the file, huge counts. The reader must never crash (run under ASan in CI): it
// either refuses the file with an Error or stops cleanly with stats.stopped.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <fmt/format.h>

#include "perfdata/perf_file.h"
#include "testutil/perf_data_writer.h"
#include "testutil/read_records.h"

namespace perflens {
namespace {

using testutil::ByteWriter;
using testutil::Endian;
using testutil::MakeAttr;
using testutil::OpenBytes;
using testutil::PerfDataWriter;
using testutil::ReadAll;
using testutil::SampleFields;
using testutil::SidAt;

// A small but complete file: every common record, a feature, a compressed record.
std::vector<uint8_t> SmallFile(PerfDataWriter::Mode mode, Endian endian) {
  PerfDataWriter w(mode, endian);
  int ev = w.AddAttr(MakeAttr(kSampleIp | kSampleTid | kSampleTime | kSampleId | kSampleCallchain), {9});
  w.AddFeature(kFeatHostname, w.FeatureString("box"));
  w.Comm(1, 1, "prog", true, SidAt(1, 10, 9));
  w.Mmap(1, 1, 0x400000, 0x1000, 0, "/prog", SidAt(1, 11, 9));
  SampleFields s;
  s.ip = 0x400100;
  s.pid = s.tid = 1;
  s.time = 12;
  s.id = 9;
  s.callchain = {kContextUser, 0x400100, 0x400200};
  w.Sample(ev, s);
  w.FinishedRound();
  w.BeginCompressed();
  s.time = 13;
  w.Sample(ev, s);
  w.EndCompressed();
  w.Auxtrace(0, 0, 0, 1, 0, std::vector<uint8_t>(16, 0xcc));
  w.Exit(1, 1, 1, 1, 14, SidAt(1, 14, 9));
  return w.Finish();
}

class TruncationTest : public testing::TestWithParam<std::pair<PerfDataWriter::Mode, Endian>> {};

TEST_P(TruncationTest, EveryPrefixFailsCleanly) {
  const std::vector<uint8_t> full = SmallFile(GetParam().first, GetParam().second);
  // The complete file reads without complaint.
  {
    auto rr = ReadAll(full);
    ASSERT_TRUE(rr.file);
    EXPECT_FALSE(rr.stats.stopped.has_value()) << rr.stats.stopped->message;
    EXPECT_EQ(rr.stats.nr_records[kRecordSample], 2u);
  }
  size_t opened = 0, stopped = 0;
  for (size_t n = 0; n < full.size(); ++n) {
    std::vector<uint8_t> prefix(full.begin(), full.begin() + static_cast<long>(n));
    auto f = OpenBytes(std::move(prefix));
    if (!f.ok()) {
      EXPECT_FALSE(f.error().message.empty());
      continue;
    }
    ++opened;
    ReadStats stats;
    uint64_t delivered = 0;
    Status st = (*f)->ReadRecords(
        [&](const RecordView& r) {
          ++delivered;
          ASSERT_GE(r.size, 8u);
          // Decoding what is delivered must be safe too.
          if (r.type == kRecordSample) {
            Sample s;
            const Evsel* ev;
            (void)(*f)->ParseSample(r, &s, &ev);
          }
        },
        &stats);
    EXPECT_TRUE(st.ok());
    EXPECT_EQ(delivered, stats.nr_records_total);
    if (stats.stopped) {
      ++stopped;
      EXPECT_NE(stats.stopped->message.find("offset"), std::string::npos) << stats.stopped->message;
    }
  }
  // File mode: the header is needed, so short prefixes are refused; a prefix cut inside
  // the data section opens and stops. Pipe mode opens as soon as the attr is there.
  EXPECT_GT(opened, 0u);
  EXPECT_GT(stopped, 0u);
}

INSTANTIATE_TEST_SUITE_P(Layouts, TruncationTest,
                         testing::Values(std::pair{PerfDataWriter::kFile, Endian::kLittle},
                                         std::pair{PerfDataWriter::kFile, Endian::kBig},
                                         std::pair{PerfDataWriter::kPipe, Endian::kLittle},
                                         std::pair{PerfDataWriter::kPipe, Endian::kBig}));

// File mode, data section cut but data.size still claiming the full length: the reader
// reads what is there and stops at the cut record.
TEST(MalformedTest, DataSizePastEndOfFileIsAWarningAndAStop) {
  PerfDataWriter w;
  w.AddAttr(MakeAttr(kSampleIp | kSampleTime), {1});
  w.Comm(1, 1, "a", false, SidAt(1, 1));
  w.Comm(2, 2, "b", false, SidAt(2, 2));
  std::vector<uint8_t> bytes = w.Finish();
  bytes.resize(bytes.size() - 4);  // inside the second COMM; no features
  auto rr = ReadAll(bytes);
  ASSERT_TRUE(rr.file);
  EXPECT_FALSE(rr.file->env().warnings.empty());
  EXPECT_EQ(rr.stats.nr_records[kRecordComm], 1u);
  ASSERT_TRUE(rr.stats.stopped.has_value());
  EXPECT_NE(rr.stats.stopped->message.find("COMM"), std::string::npos) << rr.stats.stopped->message;
}

// A file cut inside its data section: the feature-index warning names where the header
// puts the index (data offset + recorded data size), not the clamped end of the file.
TEST(MalformedTest, TruncatedFileNamesTheRecordedFeatureIndexOffset) {
  PerfDataWriter w;
  w.AddAttr(MakeAttr(kSampleIp | kSampleTime), {1});
  w.AddFeature(kFeatHostname, w.FeatureString("box"));
  w.Comm(1, 1, "a", false, SidAt(1, 1));
  w.Comm(2, 2, "b", false, SidAt(2, 2));
  std::vector<uint8_t> bytes = w.Finish();
  Loader ld;
  const uint64_t index_at = ld.U64(bytes.data() + 40) + ld.U64(bytes.data() + 48);
  bytes.resize(index_at - 4);  // inside the data section: the index and the features are gone
  auto rr = ReadAll(bytes);
  ASSERT_TRUE(rr.file);
  std::string all;
  for (const std::string& warning : rr.file->env().warnings) all += warning + "\n";
  EXPECT_NE(all.find(fmt::format("feature index at {:#x} ", index_at)), std::string::npos) << all;
}

TEST(MalformedTest, ZeroAndTooSmallRecordSizeStop) {
  for (uint16_t bad_size : {0, 4, 7}) {
    SCOPED_TRACE(bad_size);
    PerfDataWriter w;
    w.AddAttr(MakeAttr(kSampleIp | kSampleTime), {1});
    w.Comm(1, 1, "ok", false, SidAt(1, 1));
    const uint64_t bad_offset = w.data_offset() + w.data().size();
    w.Raw(kRecordSample, kMiscUser, std::vector<uint8_t>(16), bad_size);
    w.Comm(2, 2, "never", false, SidAt(2, 2));
    auto rr = ReadAll(w.Finish());
    ASSERT_TRUE(rr.file);
    EXPECT_EQ(rr.stats.nr_records[kRecordComm], 1u);
    EXPECT_EQ(rr.stats.nr_records[kRecordSample], 0u);
    ASSERT_TRUE(rr.stats.stopped.has_value());
    const std::string& msg = rr.stats.stopped->message;
    EXPECT_NE(msg.find(fmt::format("{:#x}", bad_offset)), std::string::npos) << msg;
    EXPECT_NE(msg.find("size " + std::to_string(bad_size)), std::string::npos) << msg;
  }
}

// A record whose size field runs past the end of an intact data section (a corrupt size,
// or a cut the header does not show): the reader stops there and says it could be
// either, with how much of the data was not read.
TEST(MalformedTest, RecordSizePastTheDataEndSaysTruncatedOrCorrupt) {
  PerfDataWriter w;
  w.AddAttr(MakeAttr(kSampleIp | kSampleTime), {1});
  w.Comm(1, 1, "ok", false, SidAt(1, 1));
  const uint64_t bad_offset = w.data_offset() + w.data().size();
  w.Raw(kRecordSample, kMiscUser, std::vector<uint8_t>(16), 0xffff);
  w.Comm(2, 2, "never", false, SidAt(2, 2));
  auto rr = ReadAll(w.Finish());
  ASSERT_TRUE(rr.file);
  EXPECT_EQ(rr.stats.nr_records[kRecordComm], 1u);
  ASSERT_TRUE(rr.stats.stopped.has_value());
  const std::string& msg = rr.stats.stopped->message;
  EXPECT_NE(msg.find(fmt::format("SAMPLE (type 9) at offset {:#x} has size 65535", bad_offset)), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("truncated or the record's size is corrupt"), std::string::npos) << msg;
  EXPECT_NE(msg.find("were not read"), std::string::npos) << msg;
}

TEST(MalformedTest, HeaderFieldsOutOfRange) {
  PerfDataWriter w;
  w.AddAttr(MakeAttr(kSampleIp), {1});
  w.Comm(1, 1, "a");
  const std::vector<uint8_t> good = w.Finish();
  ASSERT_TRUE(OpenBytes(good).ok());
  auto patched = [&](size_t at, uint64_t v) {
    std::vector<uint8_t> b = good;
    ByteWriter bw;
    bw.U64(v);
    std::copy(bw.bytes().begin(), bw.bytes().end(), b.begin() + static_cast<long>(at));
    return b;
  };
  struct Case {
    const char* what;
    size_t at;
    uint64_t value;
    const char* expect;
  };
  for (const Case& c : {Case{"header size", 8, 50, "header size"}, Case{"attr_size 0", 16, 0, "attr_size"},
                        Case{"attr_size small", 16, 40, "attr_size"},
                        Case{"attrs offset", 24, 1ULL << 40, "attrs section"},
                        Case{"attrs size", 32, 1ULL << 62, "attrs section"},
                        Case{"data offset", 40, 1ULL << 50, "data section"},
                        Case{"data offset ~0", 40, ~0ULL, "data section"}}) {
    SCOPED_TRACE(c.what);
    auto f = OpenBytes(patched(c.at, c.value));
    ASSERT_FALSE(f.ok());
    EXPECT_NE(f.error().message.find(c.expect), std::string::npos) << f.error().message;
  }
  // Bad magic and tiny inputs.
  std::vector<uint8_t> bad = good;
  bad[0] = 'X';
  EXPECT_FALSE(OpenBytes(bad).ok());
  EXPECT_FALSE(OpenBytes({}).ok());
  EXPECT_FALSE(OpenBytes(std::vector<uint8_t>(good.begin(), good.begin() + 15)).ok());
}

TEST(MalformedTest, FeatureAndIdSectionsOutsideTheFile) {
  PerfDataWriter w;
  w.AddAttr(MakeAttr(kSampleIp), {1, 2});
  w.AddFeature(kFeatHostname, w.FeatureString("h"));
  w.Comm(1, 1, "a");
  std::vector<uint8_t> good = w.Finish();
  // The attr's ids section {offset, size} sits in the last 16 bytes of the attr entry.
  const size_t ids_sec = w.data_offset() - 16;
  std::vector<uint8_t> b = good;
  ByteWriter bw;
  bw.U64(good.size() - 8);  // offset in the file, size 16 runs past the end
  bw.U64(16);
  std::copy(bw.bytes().begin(), bw.bytes().end(), b.begin() + static_cast<long>(ids_sec));
  auto f = OpenBytes(b);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message.find("ids"), std::string::npos) << f.error().message;

  // Feature index entry pointing past the end: a warning, the file still reads.
  b = good;
  const size_t index = w.data_offset() + w.data().size();
  ByteWriter fw;
  fw.U64(1ULL << 40);
  std::copy(fw.bytes().begin(), fw.bytes().end(), b.begin() + static_cast<long>(index));
  auto rr = ReadAll(b);
  ASSERT_TRUE(rr.file);
  EXPECT_FALSE(rr.file->env().warnings.empty());
  EXPECT_EQ(rr.stats.nr_records[kRecordComm], 1u);
}

TEST(MalformedTest, AuxtraceTrailingSizePastEndStops) {
  PerfDataWriter w(PerfDataWriter::kPipe);
  w.AddAttr(MakeAttr(kSampleIp), {1});
  w.Comm(1, 1, "a");
  testutil::ByteWriter body;
  body.U64(1ULL << 60);  // size of AUX data that is not there
  body.Zeros(32);
  w.Raw(kRecordAuxtrace, 0, body.bytes());
  w.Comm(2, 2, "b");
  auto rr = ReadAll(w.Finish());
  ASSERT_TRUE(rr.file);
  EXPECT_EQ(rr.stats.nr_records[kRecordComm], 1u);
  ASSERT_TRUE(rr.stats.stopped.has_value());
  EXPECT_NE(rr.stats.stopped->message.find("AUXTRACE"), std::string::npos) << rr.stats.stopped->message;
}

TEST(MalformedTest, HugeCallchainNrIsABadSampleNotACrash) {
  PerfDataWriter w;
  int ev = w.AddAttr(MakeAttr(kSampleIp | kSampleCallchain, 136, 0, false));
  for (uint64_t nr : {uint64_t{1} << 61, uint64_t{0xffffffffffffffff}, uint64_t{3}}) {
    ByteWriter body;
    body.U64(0x401000);
    body.U64(nr);
    body.U64(0x401000);  // one ip present
    w.Raw(kRecordSample, kMiscUser, body.bytes());
  }
  (void)ev;
  auto rr = ReadAll(w.Finish());
  ASSERT_TRUE(rr.file);
  auto samples = rr.OfType(kRecordSample);
  ASSERT_EQ(samples.size(), 3u);
  for (auto* r : samples) {
    Sample s;
    const Evsel* e;
    EXPECT_EQ(rr.file->ParseSample(r->view(), &s, &e), SampleError::kBadCallchain);
  }
}

TEST(MalformedTest, PipeWithoutAttrIsRefused) {
  PerfDataWriter w(PerfDataWriter::kPipe);
  w.FinishedRound();
  auto f = OpenBytes(w.Finish());
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message.find("HEADER_ATTR"), std::string::npos) << f.error().message;
}

}  // namespace
}  // namespace perflens
