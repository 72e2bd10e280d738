// Hostile headers: section sizes that overflow 64-bit arithmetic, attrs overlapping
// the file header, a million attrs, a COMPRESSED zip bomb (reader_fixes_test.cc: the
// cases that needed a fix).
// Each case asserts the exact error or warning perflens gives.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>

#include "hardening/hardening_util.h"

namespace perflens::hardening {
namespace {

using testutil::PerfDataWriter;

TEST(HostileHeaderTest, AttrsSectionWrapsAround) {
  auto b = SmallFile();
  Put(b, kAttrsOff, 0xfffffffffffffff8);
  Put(b, kAttrsSize, 0x10);
  EXPECT_EQ(OpenError(b), fmt::format("<memory>: attrs section [0xfffffffffffffff8, +0x10) lies outside the "
                                      "{}-byte file", b.size()));
}

TEST(HostileHeaderTest, AttrsSizeNearU64Max) {
  auto b = SmallFile();
  Put(b, kAttrsSize, ~uint64_t{0});
  EXPECT_EQ(OpenError(b), fmt::format("<memory>: attrs section [{:#x}, +0xffffffffffffffff) lies outside the "
                                      "{}-byte file", Get(b, kAttrsOff), b.size()));
}

TEST(HostileHeaderTest, DataOffsetNearU64Max) {
  auto b = SmallFile();
  Put(b, kDataOff, ~uint64_t{0});
  EXPECT_EQ(OpenError(b), fmt::format("<memory>: data section offset 0xffffffffffffffff is past the end of the "
                                      "file ({} bytes)", b.size()));
}

TEST(HostileHeaderTest, DataSizeNearU64MaxReadsWhatIsThere) {
  auto b = SmallFile();
  const uint64_t data_off = Get(b, kDataOff);
  Put(b, kDataSize, ~uint64_t{0});
  auto f = PerfFile::FromBytes(MappedFile::FromBuffer(b));
  ASSERT_TRUE(f.ok()) << f.error().message;
  ASSERT_FALSE((*f)->env().warnings.empty());
  EXPECT_EQ((*f)->env().warnings[0],
            fmt::format("data section [{:#x}, +0xffffffffffffffff) extends past the end of the file ({} bytes); "
                        "reading what is there", data_off, b.size()));
  ReportRun run = RunReport(b);
  EXPECT_NE(run.out.find("victim"), std::string::npos) << run.out;
}

TEST(HostileHeaderTest, IdsSectionWrapsAround) {
  auto b = SmallFile();
  const uint64_t attr_off = Get(b, kAttrsOff);
  const uint64_t ids_at = attr_off + Get(b, kAttrSize) - 16;  // perf_file_section ids
  Put(b, ids_at, 0xfffffffffffffff8);
  Put(b, ids_at + 8, 0x10);
  EXPECT_EQ(OpenError(b), fmt::format("<memory>: attr 0 at offset {:#x}: ids [0xfffffffffffffff8, +0x10) outside "
                                      "the file", attr_off));
}

TEST(HostileHeaderTest, FeatureSectionWrapsAround) {
  PerfDataWriter w;
  int ev = w.AddAttr(CyclesAttr(), {1});
  testutil::SampleFields s;
  s.ip = 0x1000;
  s.pid = s.tid = 1;
  w.Sample(ev, s);
  w.AddFeature(kFeatHostname, w.FeatureString("host"));
  auto b = w.Finish();
  const uint64_t index = Get(b, kDataOff) + Get(b, kDataSize);
  Put(b, index, 0xffffffffffffff00);
  Put(b, index + 8, 0x200);
  auto f = PerfFile::FromBytes(MappedFile::FromBuffer(b));
  ASSERT_TRUE(f.ok()) << f.error().message;
  ASSERT_EQ((*f)->env().warnings.size(), 1u);
  EXPECT_EQ((*f)->env().warnings[0], "feature hostname section [0xffffffffffffff00, +0x200) is outside the file; skipped");
}

TEST(HostileHeaderTest, AttrsOverlapTheHeader) {
  auto b = SmallFile();
  Put(b, kAttrsOff, 8);
  Put(b, kAttrsSize, Get(b, kAttrSize));
  EXPECT_EQ(OpenError(b), "<memory>: attrs section at 0x8 overlaps the file header");
}

TEST(HostileHeaderTest, AuxtraceTrailingSizeNearU64Max) {
  PerfDataWriter w;
  w.AddAttr(CyclesAttr(), {1});
  uint8_t body[40] = {};
  std::memset(body, 0xff, 8);  // u64 size of the trailing AUX data
  w.Raw(kRecordAuxtrace, 0, body);
  auto b = w.Finish();
  ReportRun run = RunReport(b);
  ASSERT_TRUE(run.stats.stopped.has_value());
  EXPECT_EQ(run.stats.stopped->message,
            fmt::format("AUXTRACE (type 71) at offset {:#x} announces 18446744073709551615 bytes of trailing data "
                        "past the end of the file", Get(b, kDataOff)));
}

// The most attrs perflens reads (65536 80-byte attrs of zeros, no ids): linear time and
// memory. One more is refused (2M attrs took 2 GB; see reliability_test.cc).
TEST(HostileHeaderTest, ManyAttrs) {
  auto file_of = [](uint64_t nr) { return AttrsOnlyFile(nr, 80); };
  constexpr uint64_t kNr = 1 << 16;
  auto f = PerfFile::FromBytes(MappedFile::FromBuffer(file_of(kNr)));
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ((*f)->evsels().size(), kNr);
  EXPECT_EQ((*f)->evsels().back().name, (*f)->evsels().front().name);
  EXPECT_EQ(OpenError(file_of(kNr + 1)),
            "<memory>: attrs section at 0x68 holds 65537 attrs, more than the 65536 events perflens reads");
}

// 32 MiB of FINISHED_ROUND records compressed into a few KiB: decompression stops at the
// cap and the warning names the record.
TEST(HostileHeaderTest, CompressedZipBombStopsAtTheCap) {
  PerfDataWriter w;
  w.AddAttr(CyclesAttr(), {1});
  w.BeginCompressed();
  for (int i = 0; i < (4 << 20); ++i) w.FinishedRound();
  w.EndCompressed();
  auto b = w.Finish();
  ASSERT_LT(b.size(), 64u << 10);
  ReaderOptions ro;
  ro.max_decompressed_bytes = 1 << 20;
  ReportRun run = RunReport(b, {}, ro);
  ASSERT_FALSE(run.stats.warnings.empty());
  EXPECT_EQ(run.stats.warnings[0],
            fmt::format("COMPRESSED (type 81) at offset {:#x}: decompressed data exceeds the 1048576-byte cap ({} "
                        "compressed bytes read); compressed data after it ignored",
                        Get(b, kDataOff), run.stats.compressed_bytes));
  EXPECT_EQ(run.stats.nr_bad_records, 1u);
  EXPECT_LE(run.stats.decompressed_bytes, (1u << 20) + (2u << 20));
}

}  // namespace
}  // namespace perflens::hardening
