// DebuginfodFetcher without a server (tests/scenario/debuginfod_test.cc starts a real
// one): what it does before libdebuginfod is ever called.
#include "symbolize/debuginfod_fetcher.h"

#include <gtest/gtest.h>

namespace perflens {
namespace {

TEST(DebuginfodFetcherTest, NothingAskedNoSummary) {
  DebuginfodFetcher f("http://127.0.0.1:1", {});
  EXPECT_FALSE(f.Summary().has_value());
}

TEST(DebuginfodFetcherTest, EmptyBuildIdIsAnErrorWithoutAsking) {
  DebuginfodFetcher f("http://127.0.0.1:1", {});
  auto r = f.Fetch(BuildId{}, DebuginfodFileKind::kExecutable);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("no build-id"), std::string::npos);
  EXPECT_FALSE(f.Summary().has_value());  // no request was made
}

TEST(DebuginfodFetcherTest, KindNames) {
  EXPECT_STREQ(DebuginfodFileKindName(DebuginfodFileKind::kExecutable), "executable");
  EXPECT_STREQ(DebuginfodFileKindName(DebuginfodFileKind::kDebuginfo), "debuginfo");
}

}  // namespace
}  // namespace perflens
