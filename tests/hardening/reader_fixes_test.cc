// Regression tests for reader bugs found while hardening (issue #6), one per fix.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>

#include "hardening/hardening_util.h"

namespace perflens::hardening {
namespace {

using testutil::PerfDataWriter;

// 2,000 attrs whose ids sections all name the same 64 KiB: 16 million ids from a
// 224 KiB file. perf writes disjoint ids sections, so their total is bounded by the file.
TEST(ReaderFixesTest, IdsSectionsAddUpToMoreThanTheFile) {
  constexpr uint64_t kNr = 2000, kSize = 80, kIds = 64 << 10;
  std::vector<uint8_t> b = AttrsOnlyFile(kNr, kSize, kIds);
  const uint64_t ids_off = 104 + kNr * kSize;
  for (uint64_t i = 0; i < kNr; ++i) {
    Put(b, 104 + i * kSize + 64, ids_off);
    Put(b, 104 + i * kSize + 72, kIds);
  }
  const uint64_t first_bad = b.size() / kIds;  // attrs 0..first_bad-1 still fit
  EXPECT_EQ(OpenError(b), fmt::format("<memory>: attr {} at offset {:#x}: ids sections of all attrs add up to more "
                                      "than the {}-byte file", first_bad, 104 + first_bad * kSize, b.size()));
}

// The data section used to be read from inside the file header: its magic and
// size fields became a bogus record.
TEST(ReaderFixesTest, DataOverlapsTheHeader) {
  auto b = SmallFile();
  Put(b, kDataOff, 0);
  EXPECT_EQ(OpenError(b), "<memory>: data section at 0x0 overlaps the file header");
  Put(b, kDataOff, 96);
  EXPECT_EQ(OpenError(b), "<memory>: data section at 0x60 overlaps the file header");
}


// EVENT_UPDATE names are matched to evsels through the id index, not by scanning
// every id of every attr per record (which took minutes for this 4 MiB stream).
TEST(ReaderFixesTest, ManyEventUpdatesInPipeMode) {
  PerfDataWriter w(PerfDataWriter::kPipe);
  std::vector<uint64_t> ids(8000);
  for (int a = 0; a < 50; ++a) {
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = a * 100000 + i + 1;
    w.AddAttr(CyclesAttr(), ids);
  }
  for (int i = 0; i < 100000; ++i) {
    uint8_t body[24] = {};
    body[0] = 2;  // PERF_EVENT_UPDATE__NAME
    uint64_t id = 49 * 100000 + 8000;  // the last id of the last attr
    std::memcpy(body + 8, &id, 8);
    std::memcpy(body + 16, "renamed", 7);
    w.Raw(kRecordEventUpdate, 0, body);
  }
  auto start = std::chrono::steady_clock::now();
  auto f = PerfFile::FromBytes(MappedFile::FromBuffer(w.Finish()));
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ((*f)->evsels()[49].name, "renamed");
  EXPECT_EQ((*f)->evsels()[48].name, (*f)->evsels()[0].name);
  EXPECT_NE((*f)->evsels()[48].name, "renamed");
  EXPECT_LT(secs, 30.0);
}

}  // namespace
}  // namespace perflens::hardening
