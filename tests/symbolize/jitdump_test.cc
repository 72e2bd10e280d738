// ParseJitdump on jitdumps built here (layout in symbolize/jitdump.h, spec B9.1), in both
// byte orders, and on hostile ones: damage is counted, never a crash or a big allocation.
#include "symbolize/jitdump.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testutil/jitdump_writer.h"

namespace perflens {
namespace {

using testutil::Endian;
using testutil::JitdumpWriter;

std::string NameAt(const SymbolTable& t, uint64_t addr) {
  const Symbol* s = t.Find(addr);
  return s ? std::string(s->name) : "<none>";
}

class JitdumpEndianTest : public ::testing::TestWithParam<Endian> {};

TEST_P(JitdumpEndianTest, LoadsMovesAndNewestWins) {
  JitdumpWriter w(4242, GetParam());
  w.CodeLoad(0x7f0000001000, 0x40, 1, "Interp::add");
  w.CodeLoad(0x7f0000002000, 0x100, 2, "LazyCompile:~loop a.js:3");
  w.DebugInfo();  // skipped
  w.CodeLoad(0x7f0000002080, 0x20, 3, "inner");  // newer, inside the older one
  w.CodeMove(0x7f0000001000, 0x7f0000009000, 0x40, 1);
  w.Close();
  auto d = ParseJitdump(w.bytes());
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->pid, 4242u);
  EXPECT_EQ(d->version, 1u);
  EXPECT_EQ(d->swapped, GetParam() == Endian::kBig);
  EXPECT_EQ(d->bad_records, 0u);
  EXPECT_EQ(d->code_loads, 3u);
  EXPECT_EQ(d->code_moves, 1u);
  const SymbolTable& t = d->symbols;
  EXPECT_EQ(NameAt(t, 0x7f0000001000), "Interp::add");
  EXPECT_EQ(NameAt(t, 0x7f000000103f), "Interp::add");
  EXPECT_EQ(NameAt(t, 0x7f0000001040), "<none>");  // sized: not stretched
  EXPECT_EQ(NameAt(t, 0x7f0000002000), "LazyCompile:~loop a.js:3");
  EXPECT_EQ(NameAt(t, 0x7f0000002080), "inner");
  EXPECT_EQ(NameAt(t, 0x7f00000020a0), "LazyCompile:~loop a.js:3");  // older keeps the rest
  EXPECT_EQ(NameAt(t, 0x7f0000009010), "Interp::add");                // moved
}

INSTANTIATE_TEST_SUITE_P(BothOrders, JitdumpEndianTest, ::testing::Values(Endian::kLittle, Endian::kBig));

TEST(JitdumpTest, NotAJitdumpIsAnError) {
  std::vector<uint8_t> small(39, 0);
  EXPECT_FALSE(ParseJitdump(small).ok());
  JitdumpWriter w(1);
  std::vector<uint8_t> bytes = w.bytes();
  bytes[0] = 'X';
  auto bad_magic = ParseJitdump(bytes);
  ASSERT_FALSE(bad_magic.ok());
  EXPECT_NE(bad_magic.error().message.find("magic"), std::string::npos);
  for (uint32_t header_size : {0u, 39u, 41u, 0xffffffffu}) {
    JitdumpWriter h(1);
    h.PatchU32(8, header_size);
    EXPECT_FALSE(ParseJitdump(h.bytes()).ok()) << header_size;
  }
}

TEST(JitdumpTest, LongerHeaderIsSkipped) {
  JitdumpWriter w(1, Endian::kLittle, /*extra_header=*/8);
  w.CodeLoad(0x1000, 0x10, 1, "f");
  auto d = ParseJitdump(w.bytes());
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(NameAt(d->symbols, 0x1000), "f");
}

TEST(JitdumpTest, DamagedRecordsAreCounted) {
  JitdumpWriter w(1);
  w.CodeLoad(0x1000, 0x10, 1, "good");
  // Name without NUL before the code bytes.
  w.RawCodeLoad(0x2000, 0x10, 2, std::string("nonul"), /*code_bytes=*/0x10);
  // code_size larger than the record (would overflow the name room).
  w.RawCodeLoad(0x3000, 0xfffffffffffffff0ULL, 3, std::string("big\0", 4), 0);
  // Body shorter than the CODE_LOAD fields.
  w.Record(0, std::vector<uint8_t>(8, 0));
  // Move of a code_index never loaded.
  w.CodeMove(0x5000, 0x6000, 0x10, 99);
  w.CodeLoad(0x7000, 0x10, 7, "after");
  auto d = ParseJitdump(w.bytes());
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->bad_records, 4u);
  EXPECT_EQ(d->code_loads, 2u);
  EXPECT_EQ(NameAt(d->symbols, 0x1000), "good");
  EXPECT_EQ(NameAt(d->symbols, 0x7000), "after");
  EXPECT_EQ(NameAt(d->symbols, 0x2000), "<none>");
  EXPECT_EQ(NameAt(d->symbols, 0x3000), "<none>");
}

TEST(JitdumpTest, UnreadableRecordSizesStopWithOneCount) {
  for (uint32_t total_size : {0u, 15u, 0xffffffffu}) {
    JitdumpWriter w(1);
    w.CodeLoad(0x1000, 0x10, 1, "first");
    w.RecordHeader(0, total_size);
    w.CodeLoad(0x2000, 0x10, 2, "unreachable");
    auto d = ParseJitdump(w.bytes());
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(d->bad_records, 1u) << total_size;
    EXPECT_EQ(NameAt(d->symbols, 0x1000), "first");
    EXPECT_EQ(NameAt(d->symbols, 0x2000), "<none>");
  }
}

TEST(JitdumpTest, TruncatedFileCountsTheTornRecord) {
  JitdumpWriter w(1);
  w.CodeLoad(0x1000, 0x10, 1, "whole");
  w.CodeLoad(0x2000, 0x10, 2, "torn");
  std::vector<uint8_t> bytes = w.bytes();
  for (size_t cut : {size_t{1}, size_t{10}, size_t{30}}) {
    std::vector<uint8_t> t(bytes.begin(), bytes.end() - static_cast<std::ptrdiff_t>(cut));
    auto d = ParseJitdump(t);
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(d->bad_records, 1u) << cut;
    EXPECT_EQ(NameAt(d->symbols, 0x1000), "whole");
    EXPECT_EQ(NameAt(d->symbols, 0x2000), "<none>");
  }
}

TEST(JitdumpTest, AddressRangeWrapsAtTop) {
  JitdumpWriter w(1);
  w.RawCodeLoad(0xfffffffffffff000ULL, 0x2000, 1, std::string("top\0", 4), 0);
  auto d = ParseJitdump(w.bytes());
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->bad_records, 1u);  // code_size 0x2000 but no code bytes: larger than the record
  JitdumpWriter ok(1);
  ok.CodeLoad(0xfffffffffffffff0ULL, 0x10, 1, "top");
  auto t = ParseJitdump(ok.bytes());
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(NameAt(t->symbols, 0xffffffffffffffffULL - 1), "top");
}

TEST(JitdumpTest, JitdumpMarkerNamesItsOwnPid) {
  EXPECT_TRUE(IsJitdumpMarker("/home/u/.debug/jit/java-jit-20250101.XXabc/jit-77.dump", 77));
  EXPECT_TRUE(IsJitdumpMarker("jit-77.dump", 77));
  EXPECT_FALSE(IsJitdumpMarker("/tmp/jit-77.dump", 78));  // another process's dump
  EXPECT_FALSE(IsJitdumpMarker("/tmp/jit-.dump", 0));
  EXPECT_FALSE(IsJitdumpMarker("/tmp/jit-77.dump.bak", 77));
  EXPECT_FALSE(IsJitdumpMarker("/tmp/jit-7x7.dump", 77));
  EXPECT_FALSE(IsJitdumpMarker("/tmp/jit-77.dump/x", 77));
  EXPECT_FALSE(IsJitdumpMarker("/tmp/jit-4294967373.dump", 77));  // 2^32 + 77
  EXPECT_FALSE(IsJitdumpMarker("/tmp/perf-77.map", 77));
}

}  // namespace
}  // namespace perflens
