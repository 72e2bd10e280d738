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
  std::vector<uint8_t> b(104 + kNr * kSize + kIds, 0);
  std::memcpy(b.data(), "PERFILE2", 8);
  Put(b, 8, 104);
  Put(b, kAttrSize, kSize);
  Put(b, kAttrsOff, 104);
  Put(b, kAttrsSize, kNr * kSize);
  Put(b, kDataOff, b.size());
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

}  // namespace
}  // namespace perflens::hardening
