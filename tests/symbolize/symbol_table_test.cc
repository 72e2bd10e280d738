#include "symbolize/symbol_table.h"

#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace perflens {
namespace {

constexpr uint8_t kLocal = 0, kGlobal = 1, kWeak = 2;

TEST(SymbolTableTest, FindUsesHalfOpenRanges) {
  SymbolTable t;
  t.Add(0x1000, 0x10, "a");
  t.Add(0x1020, 0x10, "b");
  t.Finish();
  EXPECT_EQ(t.Find(0xfff), nullptr);
  EXPECT_EQ(t.Find(0x1000)->name, "a");
  EXPECT_EQ(t.Find(0x100f)->name, "a");
  EXPECT_EQ(t.Find(0x1010), nullptr);  // gap
  EXPECT_EQ(t.Find(0x102f)->name, "b");
  EXPECT_EQ(t.Find(0x1030), nullptr);
}

TEST(SymbolTableTest, ZeroSizeExtendsToNextAndLastGetsPagePlusPage) {
  SymbolTable t;
  t.Add(0x2000, 0, "last");
  t.Add(0x1000, 0, "first");
  t.Finish();
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t.symbols()[0].end, 0x2000u);
  // roundup(0x2000, 4096) + 4096
  EXPECT_EQ(t.symbols()[1].end, 0x3000u);
  SymbolTable u;
  u.Add(0x2010, 0, "unaligned");
  u.Finish();
  EXPECT_EQ(u.symbols()[0].end, 0x4000u);  // roundup(0x2010) = 0x3000, + 0x1000
}

TEST(SymbolTableTest, DuplicatePrefersGlobalOverWeak) {
  // The vdso: weak clock_gettime and global __vdso_clock_gettime share an address;
  // perf 6.1 shows __vdso_clock_gettime.
  SymbolTable t;
  t.Add(0xb00, 0x80, "clock_gettime", kWeak);
  t.Add(0xb00, 0x80, "__vdso_clock_gettime", kGlobal);
  t.Finish();
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t.Find(0xb46)->name, "__vdso_clock_gettime");
}

TEST(SymbolTableTest, DuplicateRules) {
  auto winner = [](auto add) {
    SymbolTable t;
    add(t);
    t.Add(0x9000, 0x10, "after");
    t.Finish();
    return std::string(t.Find(0x100)->name);
  };
  // non-zero size beats zero size (after the end fix-up the last of a zero-size group
  // has a size, so it wins).
  EXPECT_EQ(winner([](SymbolTable& t) { t.Add(0x100, 0, "zero", kGlobal); t.Add(0x100, 0x10, "sized", kLocal); }),
            "sized");
  // perf quirk: a zero-size alias added last is stretched to the next symbol first, so
  // it has a size too and the other rules decide.
  EXPECT_EQ(winner([](SymbolTable& t) { t.Add(0x100, 0x10, "sized", kLocal); t.Add(0x100, 0, "zero", kGlobal); }),
            "zero");
  EXPECT_EQ(winner([](SymbolTable& t) { t.Add(0x100, 0, "z1", kGlobal); t.Add(0x100, 0, "z2", kLocal); }), "z2");
  EXPECT_EQ(winner([](SymbolTable& t) { t.Add(0x100, 8, "loc", kLocal); t.Add(0x100, 8, "glob", kGlobal); }), "glob");
  EXPECT_EQ(winner([](SymbolTable& t) { t.Add(0x100, 8, "__x", kGlobal); t.Add(0x100, 8, "_x", kGlobal); }), "_x");
  EXPECT_EQ(winner([](SymbolTable& t) { t.Add(0x100, 8, "ab", kGlobal); t.Add(0x100, 8, "abc", kGlobal); }), "abc");
  EXPECT_EQ(winner([](SymbolTable& t) { t.Add(0x100, 8, "SyS_x", kGlobal); t.Add(0x100, 8, "sys_x", kGlobal); }),
            "sys_x");
  EXPECT_EQ(winner([](SymbolTable& t) { t.Add(0x100, 8, "one", kGlobal); t.Add(0x100, 8, "two", kGlobal); }), "one");
  // perf 6.1 has no NOTYPE-vs-FUNC rule: a global label beats a local function.
  EXPECT_EQ(winner([](SymbolTable& t) {
              t.Add(0x100, 8, "labelfoo", kLocal, 2 /*FUNC*/);
              t.Add(0x100, 8, "labelbar", kGlobal, 0 /*NOTYPE*/);
            }),
            "labelbar");
}

TEST(SymbolTableTest, FinishTwiceKeepsEarlierTableOnTies) {
  SymbolTable t;
  t.Add(0x100, 0x10, "from_symtab");
  t.Finish();
  t.Add(0x100, 0x10, "from_dynsym");
  t.Add(0x200, 0x10, "only_dynsym");
  t.Finish();
  EXPECT_EQ(t.size(), 2u);
  EXPECT_EQ(t.Find(0x105)->name, "from_symtab");  // all ties: the first added stays
  EXPECT_EQ(t.Find(0x205)->name, "only_dynsym");
}

TEST(SymbolTableTest, CopyOwnsItsNames) {
  SymbolTable copy;
  {
    SymbolTable t;
    t.Add(0x10, 4, std::string("a_fairly_long_name_beyond_sso_buffer"));
    t.Finish();
    copy = t;
  }
  EXPECT_EQ(copy.Find(0x11)->name, "a_fairly_long_name_beyond_sso_buffer");
  SymbolTable moved = std::move(copy);
  EXPECT_EQ(moved.Find(0x11)->name, "a_fairly_long_name_beyond_sso_buffer");
}

// Names are packed into arena blocks: many names of every length (one longer than any
// block so far) must all stay intact, in the table, a copy and a moved-to table.
TEST(SymbolTableTest, ManyNamesAcrossArenaBlocks) {
  SymbolTable t;
  std::vector<std::string> names;
  for (int i = 0; i < 20000; ++i) names.push_back("sym_" + std::to_string(i) + std::string(i % 97, 'x'));
  names.push_back(std::string(3 << 20, 'H'));
  names.push_back("");
  for (size_t i = 0; i < names.size(); ++i) t.Add(0x1000 + i * 0x10, 0x10, names[i]);
  t.Finish();
  SymbolTable copy = t;
  SymbolTable moved = std::move(t);
  for (size_t i = 0; i < names.size(); ++i) {
    ASSERT_EQ(copy.Find(0x1000 + i * 0x10)->name, names[i]) << i;
    ASSERT_EQ(moved.Find(0x1000 + i * 0x10)->name, names[i]) << i;
  }
}

TEST(SymbolTableTest, TruncateAt) {
  SymbolTable t;
  t.Add(0x1000, 0, "_init");
  t.Add(0x1060, 0x10, "_start");
  t.Finish();
  EXPECT_EQ(t.Find(0x1034)->name, "_init");
  t.TruncateAt(0x1020);
  EXPECT_EQ(t.Find(0x1034), nullptr);
  EXPECT_EQ(t.Find(0x101f)->name, "_init");
}

TEST(SymbolTableTest, EmptyAndOverflow) {
  SymbolTable t;
  t.Finish();
  EXPECT_EQ(t.Find(0), nullptr);
  t.Add(UINT64_MAX - 4, 100, "top");
  t.Finish();
  EXPECT_EQ(t.Find(UINT64_MAX - 1)->name, "top");
}

// Names live in chunks; they must survive growth, moves and copies, and a moved-from
// table must not write into the chunks it gave away.
TEST(SymbolTableTest, NamesSurviveChunksMovesAndCopies) {
  SymbolTable t;
  const std::string long_name(70000, 'x');  // bigger than a chunk
  for (uint64_t i = 0; i < 20000; ++i) t.Add(0x1000 + i * 16, 16, "sym_" + std::to_string(i));
  t.Add(0x100, 8, long_name);
  t.Add(0x108, 8, "");
  t.Finish();
  SymbolTable moved = std::move(t);
  t.Add(0x10, 8, "reused");  // the moved-from table is empty and usable
  t.Finish();
  EXPECT_EQ(t.size(), 1u);
  EXPECT_EQ(t.Find(0x10)->name, "reused");
  SymbolTable copy = moved;
  moved = SymbolTable();  // frees the original chunks
  EXPECT_EQ(copy.Find(0x1000 + 12345 * 16 + 3)->name, "sym_12345");
  EXPECT_EQ(copy.Find(0x1000 + 19999 * 16)->name, "sym_19999");
  EXPECT_EQ(copy.Find(0x104)->name, long_name);
  EXPECT_EQ(copy.Find(0x108)->name, "");
}

// AddMangled names are demangled as perf prints them when Find first returns them; the
// table keeps them mangled until then.
TEST(SymbolTableTest, MangledNamesAreDemangledWhenFound) {
  SymbolTable t;
  t.AddMangled(0x100, 0x10, "_ZN2ns3fooEi", kGlobal);
  t.AddMangled(0x200, 0x10, "_Znot_a_mangling", kGlobal);  // fails: stays raw
  t.Add(0x300, 0x10, "plain", kGlobal);
  t.Finish();
  EXPECT_EQ(t.symbols()[0].name, "_ZN2ns3fooEi");
  EXPECT_EQ(t.symbols()[0].demangle_pending, 1);
  EXPECT_EQ(t.Find(0x104)->name, "ns::foo");
  EXPECT_EQ(t.symbols()[0].demangle_pending, 0);
  EXPECT_EQ(t.Find(0x204)->name, "_Znot_a_mangling");
  EXPECT_EQ(t.Find(0x304)->name, "plain");
}

// A synthesized PLT entry of a mangled function prints its demangled name then "@plt",
// demangled when found as other names are (a failure keeps the raw name).
TEST(SymbolTableTest, PltEntriesDemangleTheNameBeforeTheSuffix) {
  SymbolTable t;
  t.AddMangledPlt(0x100, 0x10, "_ZN2ns3fooEi");
  t.AddMangledPlt(0x110, 0x10, "_Znot_a_mangling");
  t.AddMangledPlt(0x120, 0x10, "_Znwm");
  t.Finish();
  EXPECT_EQ(t.symbols()[0].name, "_ZN2ns3fooEi@plt");
  EXPECT_EQ(t.symbols()[0].demangle_pending, Symbol::kPendingPlt);
  EXPECT_EQ(t.Find(0x104)->name, "ns::foo@plt");
  EXPECT_EQ(t.Find(0x114)->name, "_Znot_a_mangling@plt");
  EXPECT_EQ(t.Find(0x124)->name, "operator new@plt");
  EXPECT_EQ(t.symbols()[0].demangle_pending, 0);
}

// Symbols added after a Finish are merged into the sorted ones as one stable sort of
// them all would place them: among equal starts, in the order they were added.
TEST(SymbolTableTest, SecondFinishMergesStably) {
  SymbolTable t;
  t.Add(0x300, 0x10, "c", kGlobal);
  t.Add(0x100, 0x10, "a", kGlobal);
  t.Finish();
  t.Add(0x200, 0x10, "b", kGlobal);
  t.Add(0x100, 0x10, "z", kGlobal);  // a full tie with "a": the one added first stays
  t.Add(0x050, 0x10, "first", kGlobal);
  t.Finish();
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t.symbols()[0].name, "first");
  EXPECT_EQ(t.symbols()[1].name, "a");
  EXPECT_EQ(t.symbols()[2].name, "b");
  EXPECT_EQ(t.symbols()[3].name, "c");
  for (size_t i = 0; i < t.size(); ++i) EXPECT_EQ(t.symbols()[i].index, i);
}

// Duplicates at one address are chosen on the demangled names, as perf does: the
// mangled "_Z1aiiiiii" is longer than "_Z3bcdv", but "a" is shorter than "bcd".
TEST(SymbolTableTest, DuplicatesCompareDemangledNames) {
  SymbolTable t;
  t.AddMangled(0x100, 0x10, "_Z1aiiiiii", kGlobal);
  t.AddMangled(0x100, 0x10, "_Z3bcdv", kGlobal);
  t.AddMangled(0x200, 0x10, "_Z1xv", kGlobal);  // equal names: kept, still pending
  t.AddMangled(0x200, 0x10, "_Z1xv", kGlobal);
  t.Finish();
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t.Find(0x100)->name, "bcd");
  EXPECT_EQ(t.Find(0x200)->name, "x");
}

// Constructor and destructor variants (C1/C2, D0/D1, a template constructor) demangle
// alike, so perf's choice between them is a tie that keeps the first: Finish knows it
// without demangling them (they stay pending until found).
TEST(SymbolTableTest, CtorDtorVariantsKeepTheFirstUndemangled) {
  SymbolTable t;
  t.AddMangled(0x100, 0x10, "_ZN3FooC2Ev", kGlobal);
  t.AddMangled(0x100, 0x10, "_ZN3FooC1Ev", kGlobal);
  t.AddMangled(0x200, 0x10, "_ZN3FooD1Ev", kGlobal);
  t.AddMangled(0x200, 0x10, "_ZN3FooD0Ev", kGlobal);
  t.AddMangled(0x300, 0x10, "_ZN3FooC2IiEET_", kGlobal);
  t.AddMangled(0x300, 0x10, "_ZN3FooC1IiEET_", kGlobal);
  // One digit apart after a 'C' but no ctor-dtor name: decided on the demangled names
  // (the first does not demangle; its raw name's leading underscore loses to "C::f").
  t.AddMangled(0x400, 0x10, "_ZN1C2fEv", kGlobal);
  t.AddMangled(0x400, 0x10, "_ZN1C1fEv", kGlobal);
  t.Finish();
  ASSERT_EQ(t.size(), 4u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(t.symbols()[i].demangle_pending, 1) << i;
  EXPECT_EQ(t.symbols()[0].name, "_ZN3FooC2Ev");
  EXPECT_EQ(t.symbols()[1].name, "_ZN3FooD1Ev");
  EXPECT_EQ(t.symbols()[2].name, "_ZN3FooC2IiEET_");
  EXPECT_EQ(t.Find(0x104)->name, "Foo::Foo");
  EXPECT_EQ(t.Find(0x204)->name, "Foo::~Foo");
  EXPECT_EQ(t.Find(0x304)->name, "Foo::Foo<int>");
  EXPECT_EQ(t.Find(0x404)->name, "C::f");
}

// Several threads finding the same pending symbols see one demangled name each
// (ThreadSanitizer checks the publication in CI).
TEST(SymbolTableTest, ConcurrentFindsDemangleOnce) {
  SymbolTable t;
  for (int i = 0; i < 64; ++i)
    t.AddMangled(0x1000 + 0x10 * static_cast<uint64_t>(i), 0x10, "_ZN1s1fE" + std::string("i"), kGlobal);
  t.Finish();
  std::vector<std::thread> threads;
  std::vector<std::vector<std::string_view>> seen(4);
  for (int k = 0; k < 4; ++k)
    threads.emplace_back([&, k] {
      for (int i = 63; i >= 0; --i) seen[k].push_back(t.Find(0x1000 + 0x10 * static_cast<uint64_t>(i))->name);
    });
  for (auto& th : threads) th.join();
  for (int k = 0; k < 4; ++k) {
    ASSERT_EQ(seen[k].size(), 64u);
    for (size_t j = 0; j < seen[k].size(); ++j) {
      EXPECT_EQ(seen[k][j], "s::f");
      EXPECT_EQ(seen[k][j].data(), seen[0][j].data());  // one stored name, not one per thread
    }
  }
}

}  // namespace
}  // namespace perflens
