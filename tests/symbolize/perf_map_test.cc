#include "symbolize/perf_map.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace perflens {
namespace {

std::string NameAt(const SymbolTable& t, uint64_t addr) {
  const Symbol* s = t.Find(addr);
  return s ? std::string(s->name) : "<none>";
}

TEST(PerfMapTest, PlainAndPrefixedHex) {
  size_t bad = 99;
  SymbolTable t = ParsePerfMap(
      "7f0000001000 40 plain\n"
      "0x7f0000002000 0x20 prefixed\n"
      "0X7F0000003000 0X10 UPPER\n",
      &bad);
  EXPECT_EQ(bad, 0u);
  ASSERT_EQ(t.size(), 3u);
  const Symbol* s = t.Find(0x7f0000001000);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->name, "plain");
  EXPECT_EQ(s->end, 0x7f0000001040u);
  EXPECT_EQ(t.Find(0x7f0000001040), nullptr);  // sized: no extension
  EXPECT_EQ(NameAt(t, 0x7f000000201f), "prefixed");
  EXPECT_EQ(NameAt(t, 0x7f0000003000), "UPPER");
  EXPECT_EQ(s->binding, 1);  // STB_GLOBAL
  EXPECT_EQ(s->type, 2);     // STT_FUNC
}

TEST(PerfMapTest, NamesKeepSpacesAndPunctuation) {
  SymbolTable t = ParsePerfMap(
      "1000 10 LazyCompile:~foo bar.js:12:3\n"
      "2000 10 void java.lang.String.<init>(char[], int)\n"
      "3000 10 f\n",
      nullptr);
  EXPECT_EQ(NameAt(t, 0x1000), "LazyCompile:~foo bar.js:12:3");
  EXPECT_EQ(NameAt(t, 0x2000), "void java.lang.String.<init>(char[], int)");
  EXPECT_EQ(NameAt(t, 0x3000), "f");  // perf drops names under 3 chars; we keep them
}

TEST(PerfMapTest, CrlfTabsAndTrailingBlanks) {
  size_t bad = 0;
  SymbolTable t = ParsePerfMap("1000 10 crlf name\r\n2000\t10\ttabbed  \r\n3000 10 last no newline ", &bad);
  EXPECT_EQ(bad, 0u);
  EXPECT_EQ(NameAt(t, 0x1000), "crlf name");
  EXPECT_EQ(NameAt(t, 0x2000), "tabbed");
  EXPECT_EQ(NameAt(t, 0x3000), "last no newline");
}

TEST(PerfMapTest, MalformedLinesAreCounted) {
  size_t bad = 0;
  SymbolTable t = ParsePerfMap(
      "\n"
      "   \n"
      "nothex 10 name\n"
      "1000\n"
      "1000 20\n"
      "1000 20 \n"
      "1000 zz name\n"
      "1000,20,name\n"
      "10000000000000000 1 overflow\n"
      "0x 10 no digits\n"
      "4000 8 good\n",
      &bad);
  EXPECT_EQ(bad, 8u);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(NameAt(t, 0x4000), "good");
}

TEST(PerfMapTest, ZeroSizeExtendsToNextAndDuplicatesCollapse) {
  SymbolTable t = ParsePerfMap(
      "1000 0 zero\n"
      "1100 10 next\n"
      "2000 10 dup_a\n"
      "2000 10 dup_longer\n",
      nullptr);
  EXPECT_EQ(t.Find(0x1000)->end, 0x1100u);
  EXPECT_EQ(NameAt(t, 0x10ff), "zero");
  EXPECT_EQ(NameAt(t, 0x2000), "dup_longer");
  EXPECT_EQ(t.size(), 3u);
}

// A JIT appends a line whenever it compiles code at an address: the newest line wins.
TEST(PerfMapTest, NewestEntryWinsOverOlderOverlappingOnes) {
  SymbolTable t = ParsePerfMap(
      "1000 100 old_whole\n"     // [0x1000, 0x1100): its middle is recompiled below
      "1040 20 new_middle\n"     // [0x1040, 0x1060)
      "2000 10 first\n"
      "2000 10 second\n"         // same range: replaces `first`
      "3000 40 older\n"
      "2ff0 80 newer_cover\n"    // covers `older` entirely: it is gone
      "4000 0 zero_old\n"
      "4000 8 zero_replaced\n",  // a sized newer one at a zero-size one's start
      nullptr);
  EXPECT_EQ(NameAt(t, 0x1000), "old_whole");
  EXPECT_EQ(NameAt(t, 0x103f), "old_whole");
  EXPECT_EQ(NameAt(t, 0x1040), "new_middle");
  EXPECT_EQ(NameAt(t, 0x105f), "new_middle");
  EXPECT_EQ(NameAt(t, 0x1060), "old_whole");  // the older line's remaining tail
  EXPECT_EQ(NameAt(t, 0x10ff), "old_whole");
  EXPECT_EQ(NameAt(t, 0x1100), "<none>");
  EXPECT_EQ(NameAt(t, 0x2008), "second");
  EXPECT_EQ(NameAt(t, 0x3000), "newer_cover");
  EXPECT_EQ(NameAt(t, 0x303f), "newer_cover");
  EXPECT_EQ(NameAt(t, 0x4000), "zero_replaced");
  for (const Symbol& s : t.symbols()) {
    EXPECT_NE(s.name, "first");
    EXPECT_NE(s.name, "older");
    EXPECT_NE(s.name, "zero_old");
  }
  // A newer line over an older one's head: the older keeps its tail.
  SymbolTable u = ParsePerfMap("5000 10 older_after\n4ff8 10 newest_before\n", nullptr);
  EXPECT_EQ(NameAt(u, 0x4ff8), "newest_before");
  EXPECT_EQ(NameAt(u, 0x5007), "newest_before");
  EXPECT_EQ(NameAt(u, 0x5008), "older_after");
  EXPECT_EQ(NameAt(u, 0x500f), "older_after");
  // Ranges reaching past 2^64 end there.
  SymbolTable w = ParsePerfMap("ffffffffffffff00 1000 wraps\n", nullptr);
  EXPECT_EQ(NameAt(w, 0xffffffffffffff00ULL), "wraps");
}

TEST(PerfMapTest, UnsortedInput) {
  SymbolTable t = ParsePerfMap("3000 10 c\n1000 10 a\n2000 10 b\n", nullptr);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t.symbols()[0].name, "a");
  EXPECT_EQ(t.symbols()[2].name, "c");
}

TEST(PerfMapTest, ReadPerfMapFile) {
  char dir[] = "/tmp/perflens-perfmap-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string path = std::string(dir) + "/perf-1234.map";
  {
    std::ofstream f(path);
    f << "1000 10 from file\nbroken\n";
  }
  size_t bad = 0;
  Result<SymbolTable> t = ReadPerfMap(path, &bad);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(bad, 1u);
  EXPECT_EQ(NameAt(*t, 0x1005), "from file");

  Result<SymbolTable> missing = ReadPerfMap(std::string(dir) + "/perf-1.map", nullptr);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("perf-1.map"), std::string::npos);
  EXPECT_FALSE(ReadPerfMap(dir, nullptr).ok());  // a directory
  unlink(path.c_str());
  rmdir(dir);
}

}  // namespace
}  // namespace perflens
