// Maps: after every tricky insert, the owner (dso) and MapIp of each interesting address
// (the first and last byte of every piece, and the bytes just outside) are checked, as
// simpleperf's thread_tree tests do. Splits follow perf's maps__fixup_overlap_and_insert:
// the head piece keeps its pgoff, the tail piece's pgoff advances by the cut length so that
// MapIp of every surviving byte is unchanged; identity maps keep MapIp(ip) == ip.
#include "model/maps.h"

#include <cstdint>
#include <optional>
#include <ostream>
#include <vector>

#include <gtest/gtest.h>

#include "model/dso.h"

namespace perflens {
namespace {

// Distinct Dso objects used as owners.
Dso kA(0, "/lib/a.so", DsoKind::kUser);
Dso kB(1, "/lib/b.so", DsoKind::kUser);
Dso kC(2, "/lib/c.so", DsoKind::kUser);
Dso kD(3, "/lib/d.so", DsoKind::kUser);
Dso kAnon(4, "//anon", DsoKind::kAnon);

Map M(uint64_t start, uint64_t end, uint64_t pgoff, Dso* dso, bool identity = false) {
  Map m;
  m.start = start;
  m.end = end;
  m.pgoff = pgoff;
  m.dso = dso;
  m.identity = identity;
  return m;
}

// Owner of `ip` and its MapIp; nullopt when no map holds it.
struct Owner {
  const Dso* dso;
  uint64_t map_ip;
  bool operator==(const Owner&) const = default;
};
std::optional<Owner> OwnerOf(const Maps& maps, uint64_t ip) {
  const Map* m = maps.Find(ip);
  if (!m) return std::nullopt;
  return Owner{m->dso, m->MapIp(ip)};
}

// The exact layout: (start, end, pgoff, dso) of every map in order.
struct Piece {
  uint64_t start, end, pgoff;
  const Dso* dso;
  bool operator==(const Piece&) const = default;
};
std::vector<Piece> Layout(const Maps& maps) {
  std::vector<Piece> v;
  for (const Map& m : maps.maps()) v.push_back({m.start, m.end, m.pgoff, m.dso});
  return v;
}
void PrintTo(const Piece& p, std::ostream* os) {
  *os << std::hex << "[0x" << p.start << ",0x" << p.end << ") pgoff 0x" << p.pgoff << " "
      << (p.dso ? p.dso->long_name() : "null");
}
void PrintTo(const Owner& o, std::ostream* os) {
  *os << (o.dso ? o.dso->long_name() : "null") << " @0x" << std::hex << o.map_ip;
}

TEST(MapsTest, EmptyFindsNothing) {
  Maps maps;
  EXPECT_EQ(maps.Find(0), nullptr);
  EXPECT_EQ(maps.Find(0x1000), nullptr);
  EXPECT_EQ(maps.Find(UINT64_MAX), nullptr);
  EXPECT_EQ(maps.size(), 0u);
  EXPECT_EQ(maps.generation(), 0u);
}

TEST(MapsTest, SingleMapBoundsAndMapIp) {
  Maps maps;
  maps.Insert(M(0x1000, 0x5000, 0x100, &kA));
  EXPECT_EQ(OwnerOf(maps, 0xfff), std::nullopt);
  EXPECT_EQ(OwnerOf(maps, 0x1000), (Owner{&kA, 0x100}));
  EXPECT_EQ(OwnerOf(maps, 0x4fff), (Owner{&kA, 0x40ff}));
  EXPECT_EQ(OwnerOf(maps, 0x5000), std::nullopt);  // end is exclusive
}

TEST(MapsTest, InsertSplitsOneMapInTheMiddle) {
  Maps maps;
  maps.Insert(M(0x1000, 0x5000, 0x100, &kA));
  maps.Insert(M(0x2000, 0x3000, 0x7000, &kB));
  EXPECT_EQ(Layout(maps), (std::vector<Piece>{{0x1000, 0x2000, 0x100, &kA},
                                              {0x2000, 0x3000, 0x7000, &kB},
                                              {0x3000, 0x5000, 0x2100, &kA}}));
  EXPECT_EQ(OwnerOf(maps, 0x1000), (Owner{&kA, 0x100}));
  EXPECT_EQ(OwnerOf(maps, 0x1fff), (Owner{&kA, 0x10ff}));
  EXPECT_EQ(OwnerOf(maps, 0x2000), (Owner{&kB, 0x7000}));
  EXPECT_EQ(OwnerOf(maps, 0x2fff), (Owner{&kB, 0x7fff}));
  // The tail keeps the file offsets it had before the cut: 0x3000 - 0x1000 + 0x100.
  EXPECT_EQ(OwnerOf(maps, 0x3000), (Owner{&kA, 0x2100}));
  EXPECT_EQ(OwnerOf(maps, 0x4fff), (Owner{&kA, 0x40ff}));
  EXPECT_EQ(OwnerOf(maps, 0x5000), std::nullopt);
}

TEST(MapsTest, IdentityTailKeepsIdentityMapIp) {
  Maps maps;
  maps.Insert(M(0x10000, 0x20000, 0, &kAnon, /*identity=*/true));
  maps.Insert(M(0x14000, 0x15000, 0x3000, &kB));
  ASSERT_EQ(maps.size(), 3u);
  EXPECT_EQ(OwnerOf(maps, 0x13fff), (Owner{&kAnon, 0x13fff}));
  EXPECT_EQ(OwnerOf(maps, 0x14000), (Owner{&kB, 0x3000}));
  EXPECT_EQ(OwnerOf(maps, 0x15000), (Owner{&kAnon, 0x15000}));
  EXPECT_EQ(OwnerOf(maps, 0x1ffff), (Owner{&kAnon, 0x1ffff}));
  // Identity pieces keep pgoff (it is not used by MapIp) and the identity flag.
  EXPECT_TRUE(maps.maps()[2].identity);
  EXPECT_EQ(maps.maps()[2].pgoff, 0u);
  EXPECT_EQ(maps.maps()[2].start, 0x15000u);
}

TEST(MapsTest, InsertOverlappingTheStartCutsTheHead) {
  Maps maps;
  maps.Insert(M(0x1000, 0x2000, 0x0, &kA));
  maps.Insert(M(0x800, 0x1800, 0x40000, &kB));
  EXPECT_EQ(Layout(maps), (std::vector<Piece>{{0x800, 0x1800, 0x40000, &kB}, {0x1800, 0x2000, 0x800, &kA}}));
  EXPECT_EQ(OwnerOf(maps, 0x7ff), std::nullopt);
  EXPECT_EQ(OwnerOf(maps, 0x800), (Owner{&kB, 0x40000}));
  EXPECT_EQ(OwnerOf(maps, 0x17ff), (Owner{&kB, 0x40fff}));
  EXPECT_EQ(OwnerOf(maps, 0x1800), (Owner{&kA, 0x800}));
  EXPECT_EQ(OwnerOf(maps, 0x1fff), (Owner{&kA, 0xfff}));
  EXPECT_EQ(OwnerOf(maps, 0x2000), std::nullopt);
}

TEST(MapsTest, InsertOverlappingTheEndCutsTheTail) {
  Maps maps;
  maps.Insert(M(0x1000, 0x2000, 0x3000, &kA));
  maps.Insert(M(0x1800, 0x2800, 0x0, &kB));
  EXPECT_EQ(Layout(maps), (std::vector<Piece>{{0x1000, 0x1800, 0x3000, &kA}, {0x1800, 0x2800, 0x0, &kB}}));
  EXPECT_EQ(OwnerOf(maps, 0x17ff), (Owner{&kA, 0x37ff}));
  EXPECT_EQ(OwnerOf(maps, 0x1800), (Owner{&kB, 0x0}));
  EXPECT_EQ(OwnerOf(maps, 0x27ff), (Owner{&kB, 0xfff}));
  EXPECT_EQ(OwnerOf(maps, 0x2800), std::nullopt);
}

TEST(MapsTest, InsertCoveringSeveralMapsKeepsOnlyTheOuterPieces) {
  Maps maps;
  maps.Insert(M(0x1000, 0x2000, 0x0, &kA));
  maps.Insert(M(0x2000, 0x3000, 0x1000, &kB));
  maps.Insert(M(0x3000, 0x4000, 0x2000, &kC));
  maps.Insert(M(0x5000, 0x6000, 0x0, &kA));  // untouched, after a gap
  maps.Insert(M(0x1800, 0x3800, 0x9000, &kD));
  EXPECT_EQ(Layout(maps), (std::vector<Piece>{{0x1000, 0x1800, 0x0, &kA},
                                              {0x1800, 0x3800, 0x9000, &kD},
                                              {0x3800, 0x4000, 0x2800, &kC},
                                              {0x5000, 0x6000, 0x0, &kA}}));
  EXPECT_EQ(OwnerOf(maps, 0x17ff), (Owner{&kA, 0x7ff}));
  EXPECT_EQ(OwnerOf(maps, 0x2000), (Owner{&kD, 0x9800}));  // b.so is gone entirely
  EXPECT_EQ(OwnerOf(maps, 0x3000), (Owner{&kD, 0xa800}));
  EXPECT_EQ(OwnerOf(maps, 0x37ff), (Owner{&kD, 0xafff}));
  EXPECT_EQ(OwnerOf(maps, 0x3800), (Owner{&kC, 0x2800}));
  EXPECT_EQ(OwnerOf(maps, 0x3fff), (Owner{&kC, 0x2fff}));
  EXPECT_EQ(OwnerOf(maps, 0x4000), std::nullopt);
  EXPECT_EQ(OwnerOf(maps, 0x5000), (Owner{&kA, 0x0}));
}

TEST(MapsTest, InsertSpanningGapsAndWholeMapsRemovesThem) {
  Maps maps;
  maps.Insert(M(0x2000, 0x3000, 0x0, &kA));
  maps.Insert(M(0x4000, 0x5000, 0x0, &kB));
  maps.Insert(M(0x1000, 0x6000, 0x0, &kC));
  EXPECT_EQ(Layout(maps), (std::vector<Piece>{{0x1000, 0x6000, 0x0, &kC}}));
  EXPECT_EQ(OwnerOf(maps, 0x3800), (Owner{&kC, 0x2800}));
}

TEST(MapsTest, InsertWithTheExactSameRangeReplaces) {
  Maps maps;
  maps.Insert(M(0x1000, 0x2000, 0x0, &kA));
  maps.Insert(M(0x1000, 0x2000, 0x5000, &kB));
  EXPECT_EQ(Layout(maps), (std::vector<Piece>{{0x1000, 0x2000, 0x5000, &kB}}));
  EXPECT_EQ(OwnerOf(maps, 0x1000), (Owner{&kB, 0x5000}));
  EXPECT_EQ(OwnerOf(maps, 0x1fff), (Owner{&kB, 0x5fff}));
}

TEST(MapsTest, AdjacentMapsDoNotCut) {
  Maps maps;
  maps.Insert(M(0x2000, 0x3000, 0x0, &kB));
  maps.Insert(M(0x1000, 0x2000, 0x0, &kA));  // ends where B starts
  maps.Insert(M(0x3000, 0x4000, 0x0, &kC));  // starts where B ends
  EXPECT_EQ(Layout(maps), (std::vector<Piece>{{0x1000, 0x2000, 0x0, &kA},
                                              {0x2000, 0x3000, 0x0, &kB},
                                              {0x3000, 0x4000, 0x0, &kC}}));
  EXPECT_EQ(OwnerOf(maps, 0x1fff), (Owner{&kA, 0xfff}));
  EXPECT_EQ(OwnerOf(maps, 0x2000), (Owner{&kB, 0x0}));
  EXPECT_EQ(OwnerOf(maps, 0x2fff), (Owner{&kB, 0xfff}));
  EXPECT_EQ(OwnerOf(maps, 0x3000), (Owner{&kC, 0x0}));
}

TEST(MapsTest, InsertInsideAtTheSameStartKeepsOnlyTheTail) {
  Maps maps;
  maps.Insert(M(0x1000, 0x4000, 0x10, &kA));
  maps.Insert(M(0x1000, 0x2000, 0x0, &kB));
  EXPECT_EQ(Layout(maps), (std::vector<Piece>{{0x1000, 0x2000, 0x0, &kB}, {0x2000, 0x4000, 0x1010, &kA}}));
  maps.Insert(M(0x3000, 0x4000, 0x0, &kC));  // same end
  EXPECT_EQ(Layout(maps), (std::vector<Piece>{{0x1000, 0x2000, 0x0, &kB},
                                              {0x2000, 0x3000, 0x1010, &kA},
                                              {0x3000, 0x4000, 0x0, &kC}}));
  EXPECT_EQ(OwnerOf(maps, 0x2fff), (Owner{&kA, 0x200f}));
}

TEST(MapsTest, RepeatedSplitsKeepFileOffsetsConsistent) {
  // Cutting the same DSO map twice: every surviving byte keeps its original file offset.
  Maps maps;
  maps.Insert(M(0x10000, 0x20000, 0x1000, &kA));
  maps.Insert(M(0x12000, 0x13000, 0x0, &kB));
  maps.Insert(M(0x18000, 0x19000, 0x0, &kC));
  for (uint64_t ip : {0x10000ULL, 0x11fffULL, 0x13000ULL, 0x17fffULL, 0x19000ULL, 0x1ffffULL})
    EXPECT_EQ(OwnerOf(maps, ip), (Owner{&kA, ip - 0x10000 + 0x1000})) << std::hex << ip;
  EXPECT_EQ(maps.size(), 5u);
}

TEST(MapsTest, ZeroLengthInsertIsIgnored) {
  Maps maps;
  maps.Insert(M(0x1000, 0x2000, 0x0, &kA));
  uint64_t gen = maps.generation();
  maps.Insert(M(0x1800, 0x1800, 0x0, &kB));
  EXPECT_EQ(Layout(maps), (std::vector<Piece>{{0x1000, 0x2000, 0x0, &kA}}));
  EXPECT_EQ(OwnerOf(maps, 0x1800), (Owner{&kA, 0x800}));
  EXPECT_EQ(maps.generation(), gen + 1);  // bumped anyway (a harmless extra invalidation)
}

TEST(MapsTest, WrappingRangeIsIgnored) {
  // A hostile MMAP whose start + len wraps gives end < start: nothing is inserted and
  // nothing is cut.
  Maps maps;
  maps.Insert(M(0x1000, 0x2000, 0x0, &kA));
  maps.Insert(M(0xfffffffffffff000, 0x1800, 0x0, &kB));
  EXPECT_EQ(Layout(maps), (std::vector<Piece>{{0x1000, 0x2000, 0x0, &kA}}));
  EXPECT_EQ(OwnerOf(maps, 0xfffffffffffff800), std::nullopt);
  EXPECT_EQ(OwnerOf(maps, 0x1800), (Owner{&kA, 0x800}));
}

TEST(MapsTest, MapUpToTheTopOfTheAddressSpace) {
  // Machine clamps a wrapping len to end = UINT64_MAX; such a map still cuts what it covers.
  Maps maps;
  maps.Insert(M(0xffffffff81000000, 0xffffffff82000000, 0x0, &kA, true));
  maps.Insert(M(0xffffffff81800000, UINT64_MAX, 0x0, &kB, true));
  EXPECT_EQ(Layout(maps), (std::vector<Piece>{{0xffffffff81000000, 0xffffffff81800000, 0x0, &kA},
                                              {0xffffffff81800000, UINT64_MAX, 0x0, &kB}}));
  EXPECT_EQ(OwnerOf(maps, 0xffffffff817fffff), (Owner{&kA, 0xffffffff817fffff}));
  EXPECT_EQ(OwnerOf(maps, 0xfffffffffffffffe), (Owner{&kB, 0xfffffffffffffffe}));
  EXPECT_EQ(OwnerOf(maps, UINT64_MAX), std::nullopt);  // end is exclusive
}

TEST(MapsTest, RemoveAtRemovesOnlyAnExactStart) {
  Maps maps;
  maps.Insert(M(0x1000, 0x2000, 0x0, &kA));
  maps.Insert(M(0x3000, 0x4000, 0x0, &kB));
  uint64_t gen = maps.generation();
  EXPECT_FALSE(maps.RemoveAt(0x1800));  // inside, not a start
  EXPECT_FALSE(maps.RemoveAt(0x2000));  // a gap
  EXPECT_FALSE(maps.RemoveAt(0x5000));  // past the end
  EXPECT_EQ(maps.generation(), gen);    // failed removals change nothing
  EXPECT_TRUE(maps.RemoveAt(0x3000));
  EXPECT_EQ(maps.generation(), gen + 1);
  EXPECT_EQ(Layout(maps), (std::vector<Piece>{{0x1000, 0x2000, 0x0, &kA}}));
  EXPECT_EQ(OwnerOf(maps, 0x3000), std::nullopt);
  EXPECT_FALSE(maps.RemoveAt(0x3000));
  EXPECT_TRUE(maps.RemoveAt(0x1000));
  EXPECT_EQ(maps.size(), 0u);
}

TEST(MapsTest, RemoveAtAfterASplitRemovesOnePiece) {
  Maps maps;
  maps.Insert(M(0x1000, 0x4000, 0x0, &kA));
  maps.Insert(M(0x2000, 0x3000, 0x0, &kB));
  EXPECT_TRUE(maps.RemoveAt(0x2000));
  EXPECT_EQ(Layout(maps), (std::vector<Piece>{{0x1000, 0x2000, 0x0, &kA}, {0x3000, 0x4000, 0x2000, &kA}}));
  EXPECT_EQ(OwnerOf(maps, 0x2800), std::nullopt);
}

TEST(MapsTest, GenerationBumpsOnEveryInsert) {
  Maps maps;
  maps.Insert(M(0x1000, 0x2000, 0x0, &kA));
  EXPECT_EQ(maps.generation(), 1u);
  maps.Insert(M(0x1000, 0x2000, 0x0, &kA));  // identical: still a change
  EXPECT_EQ(maps.generation(), 2u);
  maps.Insert(M(0x5000, 0x6000, 0x0, &kB));
  EXPECT_EQ(maps.generation(), 3u);
  Maps copy = maps;  // a fork's copy starts from the same generation, then diverges
  copy.Insert(M(0x7000, 0x8000, 0x0, &kC));
  EXPECT_EQ(copy.generation(), 4u);
  EXPECT_EQ(maps.generation(), 3u);
  EXPECT_EQ(maps.size(), 2u);
  EXPECT_EQ(copy.size(), 3u);
}

TEST(MapsTest, EveryMapsHasItsOwnId) {
  Maps a, b;
  a.Insert(M(0x1000, 0x2000, 0x0, &kA));
  Maps copy = a;  // same maps and generation, another address space
  EXPECT_NE(a.id(), 0u);
  EXPECT_NE(a.id(), b.id());
  EXPECT_NE(copy.id(), a.id());
  EXPECT_EQ(copy.generation(), a.generation());
  uint64_t id = a.id();
  a.Insert(M(0x3000, 0x4000, 0x0, &kB));
  EXPECT_EQ(a.id(), id);  // changes bump the generation, not the id
  b = a;
  EXPECT_NE(b.id(), a.id());
}

TEST(MapsTest, ManyMapsStaySortedAndFindable) {
  Maps maps;
  // Insert 64 maps in a scrambled order, each 0x1000 long with a 0x1000 gap.
  for (uint64_t i = 0; i < 64; ++i) {
    uint64_t k = (i * 37) % 64;
    maps.Insert(M(0x100000 + k * 0x2000, 0x101000 + k * 0x2000, k * 0x10, k % 2 ? &kA : &kB));
  }
  ASSERT_EQ(maps.size(), 64u);
  for (size_t i = 1; i < maps.maps().size(); ++i) EXPECT_LT(maps.maps()[i - 1].end, maps.maps()[i].start);
  for (uint64_t k = 0; k < 64; ++k) {
    uint64_t start = 0x100000 + k * 0x2000;
    EXPECT_EQ(OwnerOf(maps, start + 0x10), (Owner{k % 2 ? &kA : &kB, k * 0x10 + 0x10}));
    EXPECT_EQ(OwnerOf(maps, start + 0x1000), std::nullopt);
  }
}

}  // namespace
}  // namespace perflens
