#include "base/progress_line.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace perflens {
namespace {

TEST(FormatProgress, FileWithRatesAndEta) {
  // 100 MB of 400 MB in 2 s: 50 MB/s, 300 MB left → 6 s.
  EXPECT_EQ(FormatProgress(100'000'000, 400'000'000, 1'500'000, 2.0),
            "perflens: 100.0 MB of 400.0 MB (25%), 1.5M samples, 750.0K samples/s, ETA 6 s");
}

TEST(FormatProgress, PipeHasNoTotalPercentOrEta) {
  EXPECT_EQ(FormatProgress(2'500'000, 0, 1234, 1.0), "perflens: 2.5 MB, 1234 samples, 1234 samples/s");
}

TEST(FormatProgress, DoneHasNoEtaAndNoElapsedNoRates) {
  EXPECT_EQ(FormatProgress(10, 10, 5, 1.0), "perflens: 0.0 MB of 0.0 MB (100%), 5 samples, 5 samples/s");
  EXPECT_EQ(FormatProgress(0, 10, 0, 0.0), "perflens: 0.0 MB of 0.0 MB (0%), 0 samples");
}

struct Recorder {
  std::vector<std::string> writes;
  ProgressLine line{[this](std::string_view s) { writes.emplace_back(s); }, 1.0, 0.25};
};

TEST(ProgressLine, SilentBeforeTheDelayAndRateLimitedAfter) {
  Recorder r;
  r.line.Update(1, 100, 1, 0.5);  // short runs print nothing
  EXPECT_TRUE(r.writes.empty());
  r.line.Finish();  // and erase nothing
  EXPECT_TRUE(r.writes.empty());
  r.line.Update(50, 100, 10, 1.0);
  r.line.Update(60, 100, 12, 1.1);  // within the interval: dropped
  r.line.Update(70, 100, 14, 1.3);
  ASSERT_EQ(r.writes.size(), 2u);
  EXPECT_EQ(r.writes[0].front(), '\r');
  EXPECT_NE(r.writes[0].find("(50%)"), std::string::npos);
  EXPECT_NE(r.writes[1].find("(70%)"), std::string::npos);
  EXPECT_EQ(r.writes[1].substr(r.writes[1].size() - 3), "\x1b[K");
  r.line.Finish();
  r.line.Finish();  // idempotent
  ASSERT_EQ(r.writes.size(), 3u);
  EXPECT_EQ(r.writes[2], "\r\x1b[K");
}

}  // namespace
}  // namespace perflens
