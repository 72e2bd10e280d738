// perf's --time and -C parsing (session/time_cpu_filter.h), against perf 6.1's rules in
// tools/perf/util/time-utils.c (the values below were checked with perf report --time on
// real recordings: tests/scenario/fixtures/*/expected-perf-opt-time-*.txt).
#include "session/time_cpu_filter.h"

#include <gtest/gtest.h>

namespace perflens {
namespace {

constexpr uint64_t kSec = 1000000000;

TEST(TimeRangesTest, OneInterval) {
  auto r = ParseTimeRanges("1234567.123456789,1234567.123456790", {});
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0], (TimeRange{1234567 * kSec + 123456789, 1234567 * kSec + 123456790}));
  // Fewer decimals are tenths, hundredths...: ".5" is 500 ms.
  r = ParseTimeRanges("10.5,11", {});
  ASSERT_TRUE(r);
  EXPECT_EQ((*r)[0], (TimeRange{10 * kSec + 500000000, 11 * kSec}));
}

TEST(TimeRangesTest, OpenEnds) {
  auto r = ParseTimeRanges("20,", {});
  ASSERT_TRUE(r);
  EXPECT_EQ((*r)[0], (TimeRange{20 * kSec, 0}));
  r = ParseTimeRanges(",20", {});
  ASSERT_TRUE(r);
  EXPECT_EQ((*r)[0], (TimeRange{0, 20 * kSec}));
  EXPECT_FALSE(SkipsTime(*r, 20 * kSec)) << "ends are inclusive";
  EXPECT_TRUE(SkipsTime(*r, 20 * kSec + 1));
}

TEST(TimeRangesTest, SeveralIntervalsSeparatedBySpaces) {
  auto r = ParseTimeRanges("1,2 3,4", {});
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[1], (TimeRange{3 * kSec, 4 * kSec}));
  EXPECT_FALSE(SkipsTime(*r, 1 * kSec));
  EXPECT_TRUE(SkipsTime(*r, 2 * kSec + 1));
  EXPECT_FALSE(SkipsTime(*r, 4 * kSec));
  EXPECT_TRUE(SkipsTime(*r, 5 * kSec));
}

TEST(TimeRangesTest, Errors) {
  for (const char* bad : {"", "12", "a,b", "1.1234567891,2", "2,1", "1,3 2,4", "1,2,3", "1,2 3"})
    EXPECT_FALSE(ParseTimeRanges(bad, {})) << "'" << bad << "'";
  auto r = ParseTimeRanges("2,1", {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("invalid time string '2,1'"), std::string::npos) << r.error().message;
}

TEST(TimeRangesTest, PercentSlices) {
  const SampleTimeBounds b{1000, 2000};
  // The second 10% slice: [1100, 1200), its end 1 ns before the next slice.
  auto r = ParseTimeRanges("10%/2", b);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0], (TimeRange{1100, 1199}));
  // The last slice keeps the last sample.
  r = ParseTimeRanges("50%/2", b);
  ASSERT_TRUE(r);
  EXPECT_EQ((*r)[0], (TimeRange{1500, 2000}));
  // "P%" is the first slice.
  r = ParseTimeRanges("25%", b);
  ASSERT_TRUE(r);
  EXPECT_EQ((*r)[0], (TimeRange{1000, 1249}));
  r = ParseTimeRanges("0%-10%,30%-40%", b);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0], (TimeRange{1000, 1099}));
  EXPECT_EQ((*r)[1], (TimeRange{1300, 1399}));
  EXPECT_FALSE(SkipsTime(*r, 1350));
  EXPECT_TRUE(SkipsTime(*r, 1200));
  r = ParseTimeRanges("10%/1,10%/3", b);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->size(), 2u);
  for (const char* bad : {"110%", "0%/1", "10%/x", "10%-", "a%"}) EXPECT_FALSE(ParseTimeRanges(bad, b)) << bad;
}

TEST(TimeRangesTest, PercentNeedsSampleTimes) {
  auto r = ParseTimeRanges("10%/1", {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("first and last sample times"), std::string::npos);
}

TEST(TimeRangesTest, RelativeTimesCountFromTheFirstSample) {
  auto r = ParseTimeRanges("1,2", {5 * kSec, 9 * kSec}, /*reltime=*/true);
  ASSERT_TRUE(r);
  EXPECT_EQ((*r)[0], (TimeRange{6 * kSec, 7 * kSec}));
}

TEST(TimeRangesTest, SamplesWithoutTimeAreKept) {
  std::vector<TimeRange> ranges{{5, 6}};
  EXPECT_FALSE(SkipsTime(ranges, 0));
  EXPECT_TRUE(SkipsTime(ranges, 7));
  EXPECT_FALSE(SkipsTime({}, 7));
}

TEST(CpuListTest, NumbersAndRanges) {
  auto c = ParseCpuList("0-2,5");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(*c, (std::vector<bool>{true, true, true, false, false, true}));
  for (const char* bad : {"", "x", "3-1", "1,", "-1", "5000", "1-x"}) EXPECT_FALSE(ParseCpuList(bad)) << bad;
}

}  // namespace
}  // namespace perflens
