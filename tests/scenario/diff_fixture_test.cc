// The committed recordings in fixtures/diff (see its README.md): two builds of one
// program at one path (diff_v1.c, diff_v2.c: shares that change, a function only in
// each, every address moved), with and without -g, and perf 6.1's `perf diff` output
// for each case make_fixture.sh lists (its `pd NAME ARGS...` lines, read here, so the
// cases and the goldens cannot drift apart). `perflens diff ARGS` must print exactly
// perf's output; a failure leaves expected-perf-diff-NAME.actual.txt beside it. HOME is
// an empty temp dir and --symfs an empty dir: only the fixture's cache is read.
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <utility>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "scenario_util.h"

namespace perflens::scenario {
namespace {

std::string Fixture(const std::string& file) { return ScenarioSourceDir() + "/fixtures/diff/" + file; }

struct DiffCase {
  std::string name;  // expected-perf-diff-NAME.txt
  std::string args;  // shell words, as make_fixture.sh passes them to perf diff
};

// The `pd NAME ARGS...` lines of a capture script (make_fixture.sh by default).
std::vector<DiffCase> Cases(const std::string& script = Fixture("make_fixture.sh")) {
  std::vector<DiffCase> cases;
  std::istringstream in(ReadFileOrEmpty(script));
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("pd ", 0) != 0) continue;
    const size_t name_end = line.find(' ', 3);
    if (name_end == std::string::npos) continue;
    cases.push_back({line.substr(3, name_end - 3), line.substr(name_end + 1)});
  }
  return cases;
}

class DiffFixture : public ScratchDirTest<> {
 protected:
  DiffFixture() : ScratchDirTest<>("diff") {}

  // `perflens diff <args>` run in the fixture's folder (perf printed the paths as given).
  CommandResult Run(const std::string& args) {
    return RunShell("cd " + ShellQuote(Fixture("")) + " && env -u PERF_BUILDID_DIR HOME=" +
                        ShellQuote(dir_ + "/home") + " " + ShellQuote(PerflensBinary()) + " diff --buildid-dir " +
                        ShellQuote(Fixture("cache")) + " --symfs " + ShellQuote(dir_ + "/symfs") + " " + args,
                    dir_);
  }
};

TEST_F(DiffFixture, MatchesPerfDiff) {
  const std::vector<DiffCase> cases = Cases();
  ASSERT_GE(cases.size(), 20u) << "make_fixture.sh lists the cases";
  for (const DiffCase& c : cases) {
    SCOPED_TRACE(c.name + ": perflens diff " + c.args);
    const std::string expected_file = Fixture("expected-perf-diff-" + c.name + ".txt");
    const std::string expected = ReadFileOrEmpty(expected_file);
    ASSERT_FALSE(expected.empty()) << "missing " << expected_file;
    CommandResult r = Run(c.args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const std::string actual_file = Fixture("expected-perf-diff-" + c.name + ".actual.txt");
    if (r.out != expected) {
      WriteFile(actual_file, r.out);
      std::printf("[ fixture ] diff -u %s %s\n", expected_file.c_str(), actual_file.c_str());
    } else {
      std::remove(actual_file.c_str());
    }
    EXPECT_EQ(r.out, expected);
  }
}

// Every case prints perf's output with --parallel-read=on (each file cut into ranges,
// however small) and =off too.
TEST_F(DiffFixture, ParallelReadPrintsTheSame) {
  for (const DiffCase& c : Cases()) {
    const std::string expected = ReadFileOrEmpty(Fixture("expected-perf-diff-" + c.name + ".txt"));
    ASSERT_FALSE(expected.empty()) << c.name;
    for (const char* mode : {"on", "off"}) {
      SCOPED_TRACE(c.name + ": perflens diff --parallel-read=" + mode + " " + c.args);
      CommandResult r = Run(std::string("--parallel-read=") + mode + " " + c.args);
      EXPECT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(r.out, expected);
    }
  }
}

// The truth behind the goldens, independent of perf: alpha() and beta() are paired
// although every address moved between the builds, gone() has only a baseline and
// fresh() only a new value.
TEST_F(DiffFixture, PairsByNameAcrossRebuilds) {
  CommandResult r = Run("-q -t '|' -s sym old.data new.data");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto trim = [](std::string s) {
    while (!s.empty() && s.back() == ' ') s.pop_back();
    while (!s.empty() && s.front() == ' ') s.erase(s.begin());
    return s;
  };
  std::map<std::string, std::pair<std::string, std::string>> rows;  // symbol → (baseline, delta)
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    const size_t a = line.find('|'), b = line.find('|', a + 1);
    ASSERT_NE(b, std::string::npos) << line;
    rows[line.substr(b + 1)] = {trim(line.substr(0, a)), trim(line.substr(a + 1, b - a - 1))};
  }
  ASSERT_EQ(rows.size(), 5u) << r.out;  // alpha, beta, gone, fresh, padding: one row each
  for (const char* both : {"[.] alpha", "[.] beta"}) {
    EXPECT_FALSE(rows[both].first.empty()) << both << "\n" << r.out;
    EXPECT_FALSE(rows[both].second.empty()) << both << "\n" << r.out;
  }
  EXPECT_TRUE(rows["[.] gone"].second.empty()) << r.out;    // baseline only
  EXPECT_FALSE(rows["[.] gone"].first.empty()) << r.out;
  EXPECT_TRUE(rows["[.] fresh"].first.empty()) << r.out;    // new only
  EXPECT_EQ(rows["[.] fresh"].second.front(), '+') << r.out;
  EXPECT_EQ(rows["[.] alpha"].second.front(), '-') << r.out;  // v2 does a third of v1's alpha work
  EXPECT_EQ(rows["[.] beta"].second.front(), '+') << r.out;
}

// As perf: no file → perf.data.old against perf.data; one file → perf.data.old against it.
TEST_F(DiffFixture, DefaultFilesAreThoseOfPerf) {
  RunShell("cp " + ShellQuote(Fixture("old.data")) + " " + ShellQuote(dir_ + "/perf.data.old") + " && cp " +
               ShellQuote(Fixture("new.data")) + " " + ShellQuote(dir_ + "/perf.data") + " && cp " +
               ShellQuote(Fixture("new.data")) + " " + ShellQuote(dir_ + "/other.data"),
           dir_);
  const std::string expected = ReadFileOrEmpty(Fixture("expected-perf-diff-default.txt"));
  ASSERT_FALSE(expected.empty());
  for (const char* args : {"", "other.data"}) {
    CommandResult r = RunShell("cd " + ShellQuote(dir_) + " && env -u PERF_BUILDID_DIR HOME=" +
                                   ShellQuote(dir_ + "/home") + " " + ShellQuote(PerflensBinary()) +
                                   " diff --buildid-dir " + ShellQuote(Fixture("cache")) + " --symfs " +
                                   ShellQuote(dir_ + "/symfs") + " " + args,
                               dir_);
    EXPECT_EQ(r.exit_code, 0) << args << ": " << r.err;
    EXPECT_EQ(r.out, expected) << args;
  }
}

TEST_F(DiffFixture, RefusesBadOptions) {
  EXPECT_EQ(Run("-c nosuch old.data new.data").exit_code, 129);
  EXPECT_EQ(Run("-c wdiff:1 old.data new.data").exit_code, 129);
  EXPECT_EQ(Run("-c ratio:2 old.data new.data").exit_code, 129);
  // perf diff options perflens lacks are named as such.
  CommandResult stream = Run("--stream old.data new.data");
  EXPECT_EQ(stream.exit_code, 129);
  EXPECT_NE(stream.err.find("perf diff's --stream is not supported by perflens"), std::string::npos) << stream.err;
  // perf's -1 status for both.
  EXPECT_EQ(Run("-o 2 old.data new.data").exit_code, 255);
  EXPECT_EQ(Run("old.data missing.data").exit_code, 255);
}

std::string CorpusDir() {
  const char* env = std::getenv("PERFLENS_CORPUS_DIR");
  return env && *env ? env : PERFLENS_CORPUS_DIR;
}

// Pairs of public recordings from the shared corpus (corpus_diff/capture.sh): old
// kernels, many DSOs and events, unresolved addresses (no binaries), an event without
// samples in the baseline (NaN deltas), three files. Skipped when the corpus is absent.
TEST_F(DiffFixture, CorpusPairsMatchPerfDiff) {
  const std::string corpus = CorpusDir();
  struct stat st;
  if (stat((corpus + "/perf_data_converter/perf.data.busy.0-3.8").c_str(), &st) != 0)
    GTEST_SKIP() << corpus << " is absent (the shared corpus)";
  const std::string dir = ScenarioSourceDir() + "/corpus_diff/";
  const std::vector<DiffCase> cases = Cases(dir + "capture.sh");
  ASSERT_GE(cases.size(), 8u);
  for (const DiffCase& c : cases) {
    SCOPED_TRACE(c.name + ": perflens diff " + c.args);
    const std::string expected_file = dir + "expected-perf-diff-" + c.name + ".txt";
    const std::string expected = ReadFileOrEmpty(expected_file);
    ASSERT_FALSE(expected.empty()) << "missing " << expected_file;
    CommandResult r = RunShell("cd " + ShellQuote(corpus) + " && env -u PERF_BUILDID_DIR HOME=" +
                                   ShellQuote(dir_ + "/home") + " " + ShellQuote(PerflensBinary()) +
                                   " diff --symfs " + ShellQuote(dir_ + "/symfs") + " " + c.args,
                               dir_);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const std::string actual_file = dir + "expected-perf-diff-" + c.name + ".actual.txt";
    if (r.out != expected) {
      WriteFile(actual_file, r.out);
      std::printf("[ fixture ] diff -u %s %s\n", expected_file.c_str(), actual_file.c_str());
    } else {
      std::remove(actual_file.c_str());
    }
    EXPECT_EQ(r.out, expected);
  }
}

// perf 6.1's diff keeps or hides a whole (dso, sym) row by the comm of its first sample
// when -C names comms and comm is not a sort key, and sums every comm's samples into the
// rows it shows (README "differs on purpose"). perflens counts the comm's samples only:
// `perf script -F comm,event,period,ip,dso` on perf.data.busy.0-3.4 sums ls's cycles
// samples to 11991612 in libc-2.15.so (perf diff prints 15648906, every comm's) and to
// 18781898 in [kernel.kallsyms] (a row perf diff hides).
TEST_F(DiffFixture, CommFilterCountsOnlyThatComm) {
  const std::string corpus = CorpusDir() + "/perf_data_converter/";
  struct stat st;
  if (stat((corpus + "perf.data.busy.0-3.4").c_str(), &st) != 0) GTEST_SKIP() << corpus << " is absent";
  CommandResult r = RunShell("cd " + ShellQuote(corpus) + " && env -u PERF_BUILDID_DIR HOME=" +
                                 ShellQuote(dir_ + "/home") + " " + ShellQuote(PerflensBinary()) + " diff --symfs " +
                                 ShellQuote(dir_ + "/symfs") +
                                 " -q -p -t '|' -C ls perf.data.busy.0-3.4 perf.data.busy.1-3.4",
                             dir_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Rows (-q: every event's, no headers): baseline|base period|delta|period|dso|sym.
  EXPECT_NE(r.out.find("|11991612      |-3.80%   |32329611      |libc-2.15.so      |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("|18781898      |+12.94%  |168306379     |[kernel.kallsyms] |"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace perflens::scenario
