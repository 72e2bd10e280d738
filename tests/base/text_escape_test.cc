// ValidUtf8: what pprof's string table (a proto3 string field) may hold.
#include "base/text_escape.h"

#include <gtest/gtest.h>

namespace perflens {
namespace {

TEST(ValidUtf8Test, KeepsWellFormedText) {
  EXPECT_EQ(ValidUtf8(""), "");
  EXPECT_EQ(ValidUtf8("main"), "main");
  EXPECT_EQ(ValidUtf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5"), "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5");
}

TEST(ValidUtf8Test, ReplacesEachBadByte) {
  const std::string r = "\xef\xbf\xbd";
  EXPECT_EQ(ValidUtf8("a\xff" "b"), "a" + r + "b");                  // never a lead byte
  EXPECT_EQ(ValidUtf8("\xc3"), r);                                     // cut short
  EXPECT_EQ(ValidUtf8("\xe2\x82"), r + r);                             // cut short, then a stray continuation
  EXPECT_EQ(ValidUtf8("\xc0\xaf"), r + r);                             // overlong '/'
  EXPECT_EQ(ValidUtf8("\xed\xa0\x80"), r + r + r);                     // a surrogate
  EXPECT_EQ(ValidUtf8("\xf4\x90\x80\x80"), r + r + r + r);             // above U+10FFFF
  EXPECT_EQ(ValidUtf8("\x80x"), r + "x");                              // a lone continuation
}

}  // namespace
}  // namespace perflens
