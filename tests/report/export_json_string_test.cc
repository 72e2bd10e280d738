// AppendJsonString (export/sample_frames.h), the string writer of the speedscope and
// Firefox Profiler exports: names from a recording (any bytes) give JSON a strict
// parser takes back, with invalid UTF-8 as U+FFFD.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "export/sample_frames.h"

namespace perflens {
namespace {

std::string Json(std::string_view s) {
  std::string out;
  AppendJsonString(s, &out);
  return out;
}

TEST(ExportJsonString, EscapesQuotesBackslashesAndControls) {
  EXPECT_EQ(Json("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(Json(std::string("x\n\t\x1b\0y", 6)), R"("x\u000a\u0009\u001b\u0000y")");
  EXPECT_EQ(Json("operator<< (ünïcode)"), "\"operator<< (ünïcode)\"");
}

TEST(ExportJsonString, InvalidUtf8BecomesReplacementCharacter) {
  for (const std::string& bad : {std::string("\xff"), std::string("a\xc3"), std::string("\xed\xa0\x80"),
                                std::string("\xc0\xaf"), std::string("\xf4\x90\x80\x80z")}) {
    const std::string text = Json(bad);
    nlohmann::json parsed;
    ASSERT_NO_THROW(parsed = nlohmann::json::parse(text)) << text;  // throws on invalid UTF-8
    EXPECT_NE(parsed.get<std::string>().find("\xef\xbf\xbd"), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace perflens
