// The committed recording in fixtures/vdso_clock (see its README.md): vdso_clock.c
// recorded with `perf record -g`, plus a build-id cache laid out as `perf archive`
// does. Its [vdso] build-id was rewritten to fee1dead… in both perf.data and the cached
// image, so no running kernel's vdso can match it: [vdso] samples can only resolve
// through the fixture's cache. These tests need no perf and no ~/.debug (HOME is an
// empty temp dir, --symfs an empty dir so no file of this machine is read).
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "gtest/gtest.h"
#include "scenario_util.h"

namespace perflens::scenario {
namespace {

constexpr const char* kFakeVdsoBuildId = "fee1deadfee1deadfee1deadfee1deadfee1dead";

class VdsoFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/perflens-fixture-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    for (const char* sub : {"/home", "/symfs", "/empty-cache"})
      ASSERT_EQ(mkdir((dir_ + sub).c_str(), 0700), 0);
  }
  void TearDown() override {
    if (HasFailure())
      std::printf("[ fixture ] kept %s for inspection\n", dir_.c_str());
    else
      RunShell("rm -rf " + ShellQuote(dir_), "/tmp");
  }

  static std::string Fixture(const std::string& file) {
    return ScenarioSourceDir() + "/fixtures/vdso_clock/" + file;
  }

  // perflens report on the fixture with the options plus `extra`.
  CommandResult Report(const std::string& extra) {
    return RunShell("env -u PERF_BUILDID_DIR HOME=" + ShellQuote(dir_ + "/home") + " " +
                        ShellQuote(PerflensBinary()) + " report -i " +
                        ShellQuote(Fixture("perf.data")) + " " + kReportArgs + " --symfs " +
                        ShellQuote(dir_ + "/symfs") + " " + extra,
                    dir_);
  }

  std::string dir_;
};

// The whole report equals expected.txt; PERFLENS_REGENERATE=1 rewrites it instead.
TEST_F(VdsoFixture, ReportFromFixtureCacheMatchesExpected) {
  CommandResult r = Report("--buildid-dir " + ShellQuote(Fixture("cache")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const char* regen = std::getenv("PERFLENS_REGENERATE");
  if (regen && std::string(regen) == "1") {
    WriteFile(Fixture("expected.txt"), r.out);
    std::printf("[ fixture ] rewrote %s\n", Fixture("expected.txt").c_str());
  }
  std::string expected = ReadFileOrEmpty(Fixture("expected.txt"));
  ASSERT_FALSE(expected.empty()) << "missing " << Fixture("expected.txt")
                                 << " (run with PERFLENS_REGENERATE=1)";
  if (r.out != expected) {
    std::string actual = dir_ + "/vdso_clock.actual.txt";
    WriteFile(actual, r.out);
    std::printf("[ fixture ] diff -u %s %s\n", Fixture("expected.txt").c_str(), actual.c_str());
  }
  EXPECT_EQ(r.out, expected);
}

// The key vdso check: the [vdso] samples resolve to the vdso's clock_gettime, and the
// only image with build-id fee1dead… is the fixture's cache/[vdso]/fee1dead…/vdso.
TEST_F(VdsoFixture, VdsoSamplesResolveThroughFixtureCache) {
  CommandResult r = Report("--buildid-dir " + ShellQuote(Fixture("cache")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ParsedReport report = ParseReport(r.out);
  long total = report.TotalSamples();
  ASSERT_EQ(total, 159) << "the fixture recording has 159 samples";
  long vdso = report.Count("vdso_clock", "[vdso]", "");
  EXPECT_GE(vdso, total / 2) << "most samples are in the vdso";
  EXPECT_EQ(report.Count("vdso_clock", "[vdso]", "[.] __vdso_clock_gettime"), vdso)
      << "every [vdso] sample is in __vdso_clock_gettime\n" << r.out;
  EXPECT_GT(report.Count("vdso_clock", "vdso_clock", "[.] main"), 0)
      << "the program itself resolves from cache/.build-id";
  EXPECT_EQ(r.err.find(kFakeVdsoBuildId), std::string::npos) << r.err;
}

// `--dsos '[vdso]'` alone keeps the [vdso] rows (CLI11's list options read a bracketed
// value as a list and left "vdso", which matched nothing: an empty report). One DSO named
// is perf's elision: a "# dso: [vdso]" line instead of the column (two keep the column).
TEST_F(VdsoFixture, DsoFilterWithBracketedName) {
  const std::string cache = "--buildid-dir " + ShellQuote(Fixture("cache"));
  CommandResult all = Report(cache);
  CommandResult only = Report(cache + " --dsos '[vdso]'");
  ASSERT_EQ(only.exit_code, 0) << only.err;
  const long vdso = ParseReport(all.out).Count("vdso_clock", "[vdso]", "");
  ASSERT_GT(vdso, 0);
  EXPECT_NE(only.out.find("\n# dso: [vdso]\n"), std::string::npos) << only.out;
  long sampled = 0;
  for (const std::string& line : SplitLines(only.out))
    if (line.find("[.] __vdso_") != std::string::npos) sampled += std::stol(line.substr(line.find('|') + 1));
  EXPECT_EQ(sampled, vdso) << only.out;
  CommandResult two = Report(cache + " -d '[vdso]' -d vdso_clock");
  EXPECT_GT(ParseReport(two.out).Count("vdso_clock", "vdso_clock", ""), 0) << two.out;
}

// Control: without the cache nothing has the recorded vdso build-id, so the same
// samples print as addresses and the summary names the build-id that was needed.
TEST_F(VdsoFixture, WithoutCacheVdsoStaysUnresolved) {
  CommandResult r = Report("--buildid-dir " + ShellQuote(dir_ + "/empty-cache"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ParsedReport report = ParseReport(r.out);
  long vdso = report.Count("vdso_clock", "[vdso]", "");
  EXPECT_GT(vdso, 0);
  EXPECT_EQ(report.Count("vdso_clock", "[vdso]", "[.] 0x"), vdso) << r.out;
  EXPECT_NE(r.err.find(kFakeVdsoBuildId), std::string::npos) << r.err;
}

// --vdso FILE with a different build-id (the fixture's own program ELF) is refused:
// [vdso] rows stay addresses, and stderr has one summary line naming the needed
// build-id and the refused file.
TEST_F(VdsoFixture, VdsoFileWithOtherBuildIdIsRefused) {
  std::string other_elf = dir_ + "/not-the-vdso.so";
  ASSERT_EQ(RunShell("cp " +
                         ShellQuote(Fixture("cache/.build-id/ce/"
                                            "b02ab2128115baedee46b314c5004095e58989/elf")) +
                         " " + ShellQuote(other_elf),
                     dir_)
                .exit_code,
            0);
  CommandResult r = Report("--buildid-dir " + ShellQuote(dir_ + "/empty-cache") + " --vdso " +
                           ShellQuote(other_elf));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ParsedReport report = ParseReport(r.out);
  long vdso = report.Count("vdso_clock", "[vdso]", "");
  EXPECT_GT(vdso, 0);
  EXPECT_EQ(report.Count("vdso_clock", "[vdso]", "[.] 0x"), vdso) << r.out;
  int summary_lines = 0;
  size_t pos = 0;
  for (size_t nl; (nl = r.err.find('\n', pos)) != std::string::npos; pos = nl + 1) {
    std::string line = r.err.substr(pos, nl - pos);
    if (line.find("[vdso]") != std::string::npos &&
        line.find(kFakeVdsoBuildId) != std::string::npos) {
      summary_lines++;
      EXPECT_NE(line.find(other_elf), std::string::npos) << "names the refused file: " << line;
    }
  }
  EXPECT_EQ(summary_lines, 1) << r.err;

  // The refused --vdso does not hide a matching image in the cache.
  CommandResult with_cache = Report("--buildid-dir " + ShellQuote(Fixture("cache")) +
                                    " --vdso " + ShellQuote(other_elf));
  ASSERT_EQ(with_cache.exit_code, 0) << with_cache.err;
  ParsedReport resolved = ParseReport(with_cache.out);
  EXPECT_EQ(resolved.Count("vdso_clock", "[vdso]", "[.] __vdso_clock_gettime"),
            resolved.Count("vdso_clock", "[vdso]", ""));
}

}  // namespace
}  // namespace perflens::scenario
