// The committed recording in fixtures/noreturn_call (see its README.md): a frame-pointer
// chain whose caller ends with a call to a noreturn function, so the recorded return
// address is the first byte of the next function, next_function(), which never ran.
// perf 6.1 names that frame next_function+0x0; perflens looks callers up at the return
// address - 1 and names ends_with_call+0x1b (README "differs on purpose"), and with
// --no-return-address-adjust prints perf's output. HOME is an empty temp dir and
// --symfs an empty dir: only the fixture's cache is read.
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "scenario_util.h"

namespace perflens::scenario {
namespace {

class NoreturnFixture : public ScratchDirTest<> {
 protected:
  NoreturnFixture() : ScratchDirTest<>("noreturn") {}

  static std::string Fixture(const std::string& file) {
    return ScenarioSourceDir() + "/fixtures/noreturn_call/" + file;
  }

  // `perflens <args>` on the fixture's `data` (perf.data or mixed.data), confined to its cache.
  CommandResult Run(const std::string& args, const std::string& data = "perf.data") {
    CommandResult r = RunShell("env -u PERF_BUILDID_DIR HOME=" + ShellQuote(dir_ + "/home") + " " +
                                   ShellQuote(PerflensBinary()) + " " + args + " -i " +
                                   ShellQuote(Fixture(data)) + " --buildid-dir " +
                                   ShellQuote(Fixture("cache")) + " --symfs " + ShellQuote(dir_ + "/symfs"),
                               dir_);
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
    return r;
  }

  // Leaves the output beside the expected file when they differ.
  void ExpectSameAs(const std::string& expected_file, const std::string& out) {
    const std::string expected = ReadFileOrEmpty(Fixture(expected_file));
    ASSERT_FALSE(expected.empty()) << "missing " << Fixture(expected_file);
    if (out != expected) {
      std::string actual = Fixture(expected_file.substr(0, expected_file.size() - 4) + ".actual.txt");
      WriteFile(actual, out);
      std::printf("[ fixture ] diff -u %s %s\n", Fixture(expected_file).c_str(), actual.c_str());
    }
    EXPECT_EQ(out, expected);
  }
};

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The truth: every sample is in spin_and_exit, called from ends_with_call, called from
// main. next_function never ran, so it is in no chain.
TEST_F(NoreturnFixture, CallerIsTheFunctionThatMadeTheCall) {
  const std::string script = Run("script").out;
  const size_t samples = Count(script, "cpu-clock:u:");
  ASSERT_GT(samples, 50u) << script;
  EXPECT_EQ(Count(script, " spin_and_exit+0x"), samples) << script;
  // ends_with_call+0x1b: the return address's own offset (0x1196 - 0x117b), as perf prints offsets.
  EXPECT_EQ(Count(script, "\t            1196 ends_with_call+0x1b (/tmp/perflens-fixture-noreturn/noreturn_call)\n"),
            samples)
      << script;
  EXPECT_EQ(Count(script, "next_function"), 0u) << script;

  const std::string children = Run("report --stdio --children --sort sym -g none -t '|'").out;
  EXPECT_NE(children.find(" 100.00%| 0.00%  |[.] ends_with_call\n"), std::string::npos) << children;
  EXPECT_NE(children.find(" 100.00%| 100.00%|[.] spin_and_exit\n"), std::string::npos) << children;
  EXPECT_EQ(children.find("next_function"), std::string::npos) << children;

  const std::string folded = Run("script -F folded").out;
  EXPECT_NE(folded.find(";main;ends_with_call;spin_and_exit "), std::string::npos) << folded;
  EXPECT_EQ(folded.find("next_function"), std::string::npos) << folded;
}

// The cache holds the program but not libc: the summary names it with the reason and
// what would fix it; -q silences it.
TEST_F(NoreturnFixture, UnresolvedSummaryNamesTheDsoAndTheFix) {
  for (const char* cmd : {"script", "report --stdio"}) {
    SCOPED_TRACE(cmd);
    const CommandResult r = Run(cmd);
    EXPECT_NE(r.err.find("perflens: /usr/lib/x86_64-linux-gnu/libc.so.6: no file (looked in: "), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("perflens: to resolve them: run `perflens archive -i perf.data -o DIR` on the recording "
                         "machine and pass `--buildid-dir DIR` here"),
              std::string::npos)
        << r.err;
    const CommandResult quiet = Run(std::string(cmd) + " -q");
    EXPECT_EQ(quiet.err, "");
    // report -q also leaves out the '#' lines (as perf); the rows stay.
    std::string rows;
    for (const std::string& l : SplitLines(r.out))
      if (std::string(cmd) == "script" || l.empty() || l[0] != '#') rows += l + "\n";
    EXPECT_EQ(quiet.out, rows);
  }
}

// With --no-return-address-adjust the output is perf 6.1's, captured by make_fixture.sh.
TEST_F(NoreturnFixture, NoAdjustPrintsPerfsOutput) {
  ExpectSameAs("expected-perf-script.txt", Run("script --no-return-address-adjust").out);
  const std::string children =
      Run("report --stdio --children --sort sym -g none -t '|' --no-return-address-adjust").out;
  RowsAgreement a = CompareRows(ChildrenRows(ReadFileOrEmpty(Fixture("expected-perf-children.txt"))),
                                ChildrenRows(children), kChildrenKinds);
  EXPECT_TRUE(a.failures.empty()) << a.Report() << children;
  EXPECT_TRUE(a.allowed.empty()) << a.Report() << children;
  EXPECT_GT(a.perf_rows, 3) << children;
  EXPECT_NE(children.find("[.] next_function\n"), std::string::npos) << children;
}

// mixed.data: cpu-clock with frame-pointer callchains and task-clock without any. A
// task-clock sample has no callers, so its Children equal its Self: one row. perf 6.1
// gives each of them the callchain of the sample before it (main, next_function, libc
// at 100% Children under task-clock).
TEST_F(NoreturnFixture, SamplesWithoutCallchainHaveNoCallers) {
  const std::string args = "report --stdio --children --sort sym -g none -t '|'";
  const std::string out = Run(args, "mixed.data").out;
  const size_t task = out.find("of event 'task-clock/call-graph=no/u'");
  ASSERT_NE(task, std::string::npos) << out;
  std::vector<std::string> rows;
  for (const std::string& line : SplitLines(out.substr(out.find('\n', task) + 1)))
    if (!line.empty() && line[0] != '#') rows.push_back(line);
  EXPECT_EQ(rows, std::vector<std::string>{" 100.00%| 100.00%|[.] spin_and_exit"}) << out;

  // The event with callchains: perf's rows (perf's return-address lookup for the comparison).
  const std::string perf = ReadFileOrEmpty(Fixture("expected-perf-mixed-children.txt"));
  const std::string perf_cpu = perf.substr(0, perf.find("of event 'task-clock"));
  ASSERT_NE(perf.find("of event 'task-clock"), std::string::npos) << perf;
  EXPECT_NE(perf.substr(perf_cpu.size()).find(" 100.00%| 0.00%  |[.] main"), std::string::npos)
      << "perf 6.1 charges main's Children to task-clock samples: " << perf;
  const std::string lens = Run(args + " --no-return-address-adjust", "mixed.data").out;
  RowsAgreement a = CompareRows(ChildrenRows(perf_cpu), ChildrenRows(lens.substr(0, lens.find("of event 'task-clock"))),
                                kChildrenKinds);
  EXPECT_TRUE(a.failures.empty()) << a.Report() << lens;
  EXPECT_GT(a.perf_rows, 3) << lens;
}

}  // namespace
}  // namespace perflens::scenario
