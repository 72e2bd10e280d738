#include "symbolize/kallsyms.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace perflens {
namespace {

std::string NameAt(const SymbolTable& t, uint64_t addr) {
  const Symbol* s = t.Find(addr);
  return s ? std::string(s->name) : "<none>";
}

// A kernel with two modules; types r/U/A/N are not kept.
constexpr char kKallsyms[] =
    "ffffffff81000000 T _text\n"
    "ffffffff81000000 T startup_64\n"
    "ffffffff81000100 t secondary_startup\n"
    "ffffffff81000200 W weak_fn\n"
    "ffffffff81000300 r rodata_sym\n"
    "ffffffff81000400 D data_sym\n"
    "ffffffff81000500 b bss_sym\n"
    "0000000000000000 A absolute_sym\n"
    "ffffffff81000600 T last_kernel\n"
    "ffffffffc0001000 t mod_a_init\t[mod_a]\n"
    "ffffffffc0001080 T mod_a_fn\t[mod_a]\n"
    "ffffffffc0005000 t mod_b_fn\t[mod_b]\n"
    "ffffffffc0005040 t mod_b_last\t[mod_b]\n";

TEST(KallsymsTest, KeepsPerfTypesAndSetsEnds) {
  Result<KallsymsTables> r = ParseKallsyms(kKallsyms, "_text");
  ASSERT_TRUE(r.ok()) << r.error().message;
  const SymbolTable& k = r->kernel;
  EXPECT_FALSE(r->all_zero);
  EXPECT_EQ(r->ref_addr, 0xffffffff81000000u);
  // _text and startup_64 share an address: the later one gets the size and wins.
  EXPECT_EQ(NameAt(k, 0xffffffff81000000), "startup_64");
  EXPECT_EQ(NameAt(k, 0xffffffff810000ff), "startup_64");
  EXPECT_EQ(NameAt(k, 0xffffffff81000100), "secondary_startup");
  EXPECT_EQ(NameAt(k, 0xffffffff81000200), "weak_fn");
  // rodata_sym ('r') is dropped, so weak_fn reaches data_sym.
  EXPECT_EQ(NameAt(k, 0xffffffff81000350), "weak_fn");
  EXPECT_EQ(NameAt(k, 0xffffffff81000400), "data_sym");
  EXPECT_EQ(NameAt(k, 0xffffffff81000500), "bss_sym");
  EXPECT_EQ(k.size(), 6u);
  // The last kernel symbol before the modules gets one page, not the gap.
  const Symbol* last = k.Find(0xffffffff81000600);
  ASSERT_NE(last, nullptr);
  EXPECT_EQ(last->name, "last_kernel");
  EXPECT_EQ(last->end, 0xffffffff81002000u);
  EXPECT_EQ(k.Find(0xffffffff81002000), nullptr);

  const Symbol* weak = k.Find(0xffffffff81000200);
  EXPECT_EQ(weak->binding, 2);  // STB_WEAK
  EXPECT_EQ(weak->type, 2);     // STT_FUNC
  EXPECT_EQ(k.Find(0xffffffff81000100)->binding, 0);  // 't' → local
  EXPECT_EQ(k.Find(0xffffffff81000400)->type, 1);     // 'D' → STT_OBJECT
}

TEST(KallsymsTest, SplitsModulesKeyedByBracketName) {
  Result<KallsymsTables> r = ParseKallsyms(kKallsyms, "_text");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->modules.size(), 2u);
  ASSERT_TRUE(r->modules.count("[mod_a]"));
  ASSERT_TRUE(r->modules.count("[mod_b]"));
  const SymbolTable& a = r->modules.at("[mod_a]");
  const SymbolTable& b = r->modules.at("[mod_b]");
  EXPECT_EQ(NameAt(a, 0xffffffffc0001000), "mod_a_init");
  EXPECT_EQ(NameAt(a, 0xffffffffc0001080), "mod_a_fn");
  // perf extends a module's last symbol to the next module's first (then clips to the
  // module map when splitting, which the caller does).
  EXPECT_EQ(a.Find(0xffffffffc0001080)->end, 0xffffffffc0005000u);
  EXPECT_EQ(NameAt(b, 0xffffffffc0005000), "mod_b_fn");
  // The very last symbol: roundup(start, page) + page.
  EXPECT_EQ(b.Find(0xffffffffc0005040)->end, 0xffffffffc0007000u);
  // No module symbol leaks into the kernel table and vice versa.
  EXPECT_EQ(r->kernel.Find(0xffffffffc0001000), nullptr);
  EXPECT_EQ(a.Find(0xffffffff81000100), nullptr);
}

// Modules are numbered as they first appear; a module whose lines come back after
// another's gets its old table, and many distinct modules stay linear to parse.
TEST(KallsymsTest, InterleavedAndManyModules) {
  std::string text = "ffffffff81000000 T _text\n";
  text += "ffffffffc0001000 t a1\t[mod_a]\n";
  text += "ffffffffc0002000 t b1\t[mod_b]\n";
  text += "ffffffffc0003000 t a2\t[mod_a]\n";
  for (int i = 0; i < 20000; ++i) text += fmt::format("{:016x} t f{}\t[m{}]\n", 0xffffffffd0000000ULL + 0x100ULL * i, i, i);
  Result<KallsymsTables> r = ParseKallsyms(text, "_text");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->modules.size(), 2u + 20000u);
  const SymbolTable& a = r->modules.at("[mod_a]");
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(NameAt(a, 0xffffffffc0001000), "a1");
  EXPECT_EQ(NameAt(a, 0xffffffffc0003000), "a2");
  EXPECT_EQ(r->modules.at("[mod_b]").size(), 1u);
  EXPECT_EQ(NameAt(r->modules.at("[m19999]"), 0xffffffffd0000000ULL + 0x100ULL * 19999), "f19999");
}

TEST(KallsymsTest, DeltaMovesKernelSymbolsOnly) {
  // Recorded _text 0xffffffff9a000000, this file's 0xffffffff81000000.
  int64_t delta = static_cast<int64_t>(0xffffffff9a000000 - 0xffffffff81000000);
  Result<KallsymsTables> r = ParseKallsyms(kKallsyms, "_text", delta);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->ref_addr, 0xffffffff81000000u);  // as read
  EXPECT_EQ(NameAt(r->kernel, 0xffffffff9a000100), "secondary_startup");
  EXPECT_EQ(r->kernel.Find(0xffffffff81000100), nullptr);
  EXPECT_EQ(r->kernel.Find(0xffffffff9a000600)->end, 0xffffffff9a002000u);
  EXPECT_EQ(NameAt(r->modules.at("[mod_a]"), 0xffffffffc0001000), "mod_a_init");
}

TEST(KallsymsTest, NegativeDelta) {
  Result<KallsymsTables> r = ParseKallsyms(kKallsyms, "_text", -0x1000);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(NameAt(r->kernel, 0xffffffff80fff100), "secondary_startup");
}

// The Symbolizer shifts the delta-0 tables in place (SymbolTable::Shift) instead of
// parsing again: every kernel symbol must come out as ParseKallsyms with the delta
// makes it, module symbols untouched.
TEST(KallsymsTest, ShiftInPlaceEqualsParsingWithTheDelta) {
  for (int64_t delta : {int64_t{0x19000000}, int64_t{-0x1000}, int64_t{0x123456}}) {
    Result<KallsymsTables> parsed = ParseKallsyms(kKallsyms, "_text", delta);
    Result<KallsymsTables> shifted = ParseKallsyms(kKallsyms, "_text", 0);
    ASSERT_TRUE(parsed.ok() && shifted.ok());
    ASSERT_TRUE(shifted->kernel.Shift(delta)) << delta;
    const auto& a = parsed->kernel.symbols();
    const auto& b = shifted->kernel.symbols();
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].start, b[i].start) << a[i].name;
      EXPECT_EQ(a[i].end, b[i].end) << a[i].name;
      EXPECT_EQ(a[i].name, b[i].name);
      EXPECT_EQ(a[i].index, b[i].index);
    }
    EXPECT_EQ(shifted->modules.at("[mod_a]").symbols().front().start, 0xffffffffc0001000u);
  }
}

TEST(KallsymsTest, ShiftThatWrapsChangesNothing) {
  Result<KallsymsTables> r = ParseKallsyms(kKallsyms, "_text", 0);
  ASSERT_TRUE(r.ok());
  // last_kernel ends at 0xffffffff82000000: + 0x7f000000 passes 2^64.
  EXPECT_FALSE(r->kernel.Shift(0x7f000000));
  EXPECT_EQ(NameAt(r->kernel, 0xffffffff81000100), "secondary_startup");
  Result<KallsymsTables> low = ParseKallsyms("0000000000001000 T low\n0000000000002000 T high\n", "");
  ASSERT_TRUE(low.ok());
  EXPECT_FALSE(low->kernel.Shift(-0x2000));
  EXPECT_EQ(NameAt(low->kernel, 0x1000), "low");
}

// Names point into the text (not copied), so the tables keep it alive, and a name with
// control bytes is stored escaped as every other symbol name is.
TEST(KallsymsTest, NamesOutliveTheCallersTextAndAreEscaped) {
  KallsymsTables tables;
  {
    std::string text = "ffffffff81000000 T _text\nffffffff81000100 t bad\x1bname\nffffffff81000200 t f\t[m]\n";
    Result<KallsymsTables> r = ParseKallsyms(text, "_text");
    ASSERT_TRUE(r.ok());
    tables = std::move(*r);
    text.assign(text.size(), 'X');
  }
  EXPECT_EQ(NameAt(tables.kernel, 0xffffffff81000000), "_text");
  EXPECT_EQ(NameAt(tables.kernel, 0xffffffff81000100), "bad\\x1bname");
  EXPECT_EQ(NameAt(tables.modules.at("[m]"), 0xffffffff81000200), "f");
  SymbolTable copy = tables.kernel;  // copies the names into its own arena
  tables = KallsymsTables();
  EXPECT_EQ(NameAt(copy, 0xffffffff81000100), "bad\\x1bname");
}

TEST(KallsymsTest, AllZeroAddresses) {
  Result<KallsymsTables> r = ParseKallsyms(
      "0000000000000000 T _text\n0000000000000000 T foo\n0000000000000000 t bar\t[m]\n", "_text");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->all_zero);
  EXPECT_EQ(r->ref_addr, 0u);
}

TEST(KallsymsTest, SkipsJunkLinesAndToleratesCrlf) {
  Result<KallsymsTables> r = ParseKallsyms(
      "garbage line\n"
      "\n"
      "ffffffff81000000\n"
      "zzzz T foo\n"
      "ffffffff81000000 T\n"
      "ffffffff81000000  T two_spaces\n"
      "11111111111111111 T too_long\n"
      "ffffffff81001000 T good_one\r\n"
      "ffffffff81002000 T $x\n"
      "ffffffff81003000 T __entry_SYSCALL_64_trampoline\n"
      "ffffffff81004000 t good_two  \n"
      "ffffffff81005000 t tab_no_module\t\n",
      "_text");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->ref_addr, 0u);  // no _text
  EXPECT_EQ(NameAt(r->kernel, 0xffffffff81001000), "good_one");
  EXPECT_EQ(NameAt(r->kernel, 0xffffffff81004000), "good_two");
  EXPECT_EQ(NameAt(r->kernel, 0xffffffff81005000), "tab_no_module");
  EXPECT_EQ(r->kernel.size(), 3u);
  EXPECT_TRUE(r->modules.empty());
  // good_one reaches good_two: the '$x' and trampoline symbols are gone.
  EXPECT_EQ(r->kernel.Find(0xffffffff81001000)->end, 0xffffffff81004000u);
}

TEST(KallsymsTest, NoParsableLineIsAnError) {
  EXPECT_FALSE(ParseKallsyms("", "_text").ok());
  Result<KallsymsTables> r = ParseKallsyms("hello\nworld\n", "_text");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("no parsable line"), std::string::npos);
}

TEST(KallsymsTest, OnlyFilteredLinesGiveEmptyTables) {
  Result<KallsymsTables> r = ParseKallsyms("ffffffff81000000 r ro\nffffffff81000010 U undef\n", "_text");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->kernel.empty());
  EXPECT_FALSE(r->all_zero);
}

TEST(KallsymsTest, AnchorMayBeAbsoluteButMustBeFunctionLike) {
  Result<KallsymsTables> r =
      ParseKallsyms("ffffffff81000000 d _text\nffffffff81000010 A _text\nffffffff81000020 T f\n", "_text");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->ref_addr, 0xffffffff81000010u);
}

TEST(KallsymsTest, DuplicateLaterAliasGetsTheSizeAndWins) {
  // Both zero-size at the same address until the next symbol: the later gets a size,
  // so it wins (perf fixes ends before duplicates).
  Result<KallsymsTables> r =
      ParseKallsyms("ffffffff81000000 T global_one\nffffffff81000000 t local_one\nffffffff81000100 T next\n", "");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(NameAt(r->kernel, 0xffffffff81000000), "local_one");
}

std::string Note(uint32_t type, std::string_view name, std::string_view desc) {
  std::string out;
  auto put32 = [&](uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); };
  put32(static_cast<uint32_t>(name.size()));
  put32(static_cast<uint32_t>(desc.size()));
  put32(type);
  out.append(name);
  out.append((4 - name.size() % 4) % 4, '\0');
  out.append(desc);
  out.append((4 - desc.size() % 4) % 4, '\0');
  return out;
}

TEST(KallsymsTest, BuildIdFromNotes) {
  std::string id("\x85\xc7\xe4\xe2\xed\x76\xf4\x41\x7e\x8a\xaa\xd7\xc6\xb0\x40\xd2\xbb\x89\x7a\x26", 20);
  std::string notes = Note(6, std::string("Linux\0", 6), "\x01\x01\x00\x00") + Note(3, std::string("GNU\0", 4), id);
  EXPECT_EQ(GnuBuildIdHexFromNotes(notes), "85c7e4e2ed76f4417e8aaad7c6b040d2bb897a26");
  // Truncated desc → nothing.
  EXPECT_EQ(GnuBuildIdHexFromNotes(notes.substr(0, notes.size() - 4)), "");
  // Wrong owner name.
  EXPECT_EQ(GnuBuildIdHexFromNotes(Note(3, std::string("Xen\0", 4), id)), "");
  EXPECT_EQ(GnuBuildIdHexFromNotes(""), "");
  EXPECT_EQ(GnuBuildIdHexFromNotes("\xff\xff\xff\xff\x00\x00\x00\x00\x03\x00\x00\x00"), "");
}

TEST(KallsymsTest, RunningKernelBuildId) {
  std::string hex = RunningKernelBuildIdHex();
  if (hex.empty()) GTEST_SKIP() << "/sys/kernel/notes has no GNU build-id here";
  EXPECT_EQ(hex.size() % 2, 0u);
  EXPECT_EQ(hex.find_first_not_of("0123456789abcdef"), std::string::npos);
}

TEST(KallsymsTest, ParsesThisMachinesKallsyms) {
  std::ifstream f("/proc/kallsyms");
  std::stringstream ss;
  ss << f.rdbuf();
  if (ss.str().empty()) GTEST_SKIP() << "/proc/kallsyms not readable";
  Result<KallsymsTables> r = ParseKallsyms(ss.str(), "_text");
  ASSERT_TRUE(r.ok()) << r.error().message;
  if (r->all_zero) GTEST_SKIP() << "kptr_restrict hides addresses";
  EXPECT_NE(r->ref_addr, 0u);
  EXPECT_GT(r->kernel.size(), 1000u);
  const Symbol* text = r->kernel.Find(r->ref_addr);
  ASSERT_NE(text, nullptr);
  for (const auto& [name, table] : r->modules) {
    EXPECT_EQ(name.front(), '[') << name;
    EXPECT_EQ(name.back(), ']') << name;
  }
}

}  // namespace
}  // namespace perflens
