// fixtures/branch_synthetic: synthetic LBR recordings (branch_synthetic_fixture.h) over
// the committed noreturn_call program, with perf 6.1's outputs on the same bytes
// (make_fixture.sh). HOME is an empty temp dir and --symfs an empty dir: only
// ../noreturn_call/cache is read.
#include <sys/stat.h>

#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>
#include <utility>

#include "branch_synthetic_fixture.h"
#include "gtest/gtest.h"
#include "scenario_util.h"

namespace perflens::scenario {
namespace {

std::string Fixture(const std::string& file) { return ScenarioSourceDir() + "/fixtures/branch_synthetic/" + file; }

// The committed recordings are what the writer makes (PERFLENS_WRITE_BRANCH_FIXTURE=1
// rewrites them; make_fixture.sh then captures perf's outputs again).
TEST(BranchSynthetic, CommittedFilesAreTheWritersOutput) {
  for (bool call_stack : {true, false}) {
    const std::vector<uint8_t> bytes = BranchSyntheticData(call_stack);
    const std::string path = Fixture(call_stack ? "lbr_callstack.data" : "branch_any.data");
    const std::string data(bytes.begin(), bytes.end());
    if (std::getenv("PERFLENS_WRITE_BRANCH_FIXTURE")) WriteFile(path, data);
    EXPECT_EQ(ReadFileOrEmpty(path), data) << path << " is not the writer's output: run make_fixture.sh";
  }
}

class BranchFixture : public ScratchDirTest<> {
 protected:
  BranchFixture() : ScratchDirTest<>("branch") {}

  CommandResult Run(const std::string& args, const std::string& data) {
    CommandResult r = RunShell("env -u PERF_BUILDID_DIR HOME=" + ShellQuote(dir_ + "/home") + " " +
                                   ShellQuote(PerflensBinary()) + " " + args + " -i " + ShellQuote(Fixture(data)) +
                                   " --buildid-dir " +
                                   ShellQuote(ScenarioSourceDir() + "/fixtures/noreturn_call/cache") + " --symfs " +
                                   ShellQuote(dir_ + "/symfs"),
                               dir_);
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
    return r;
  }

  // perf's output as perflens prints it: without perf's random tip ("#", "# (Tip: …)",
  // "#"), and ending its last line (perf's branch statistics end without a newline).
  static std::string WithoutTip(const std::string& perf) {
    std::string out;
    std::vector<std::string> lines = SplitLines(perf);
    for (size_t i = 0; i < lines.size(); ++i) {
      if (i + 2 < lines.size() && lines[i] == "#" && lines[i + 1].rfind("# (Tip: ", 0) == 0 && lines[i + 2] == "#") {
        i += 2;
        continue;
      }
      out += lines[i] + "\n";
    }
    return out;
  }

  // Leaves the output beside the expected file when they differ. `perf_wrong`/`truth`:
  // one text of perf's output replaced by what perflens prints on purpose.
  void ExpectSameAs(const std::string& expected_file, const std::string& out, const std::string& perf_wrong = "",
                    const std::string& truth = "") {
    if (perf_wrong.empty()) ExpectSameAsFixed(expected_file, out, {});
    else ExpectSameAsFixed(expected_file, out, {{perf_wrong, truth}});
  }
  // Likewise with several texts of perf's output replaced, each once, in order.
  void ExpectSameAsFixed(const std::string& expected_file, const std::string& out,
                         const std::vector<std::pair<std::string, std::string>>& fixes) {
    std::string expected = WithoutTip(ReadFileOrEmpty(Fixture(expected_file)));
    for (const auto& [perf_wrong, truth] : fixes) {
      const size_t at = expected.find(perf_wrong);
      ASSERT_NE(at, std::string::npos) << perf_wrong << " not in " << expected_file;
      expected.replace(at, perf_wrong.size(), truth);
    }
    ASSERT_FALSE(expected.empty()) << "missing " << Fixture(expected_file);
    if (out != expected) {
      std::string actual = Fixture(expected_file.substr(0, expected_file.size() - 4) + ".actual.txt");
      WriteFile(actual, out);
      std::printf("[ fixture ] diff -u %s %s\n", Fixture(expected_file).c_str(), actual.c_str());
    }
    EXPECT_EQ(out, expected);
  }
};

// --call-graph lbr: the user callchain is the leaf function's entry, then the call
// sites of the LBR call stack (perf's resolve_lbr_callchain_sample), not the recorded
// chain, which holds the leaf alone.
TEST_F(BranchFixture, LbrCallStackScriptIsPerfs) {
  const std::string out = Run("script", "lbr_callstack.data").out;
  EXPECT_NE(out.find("\t            1191 ends_with_call+0x16 (/tmp/perflens-fixture-noreturn/noreturn_call)\n"
                     "\t            11be main+0x15 (/tmp/perflens-fixture-noreturn/noreturn_call)\n"),
            std::string::npos)
      << out;
  // The last sample's branch stack is empty: perf 6.1 reads entries[0].to past the
  // record (a 0 here); perflens uses the recorded chain (README "differs on purpose").
  ExpectSameAs("expected-perf-lbr-script.txt", out, "\t               0 [unknown] ([unknown])\n",
               "\t            1183 ends_with_call+0x8 (/tmp/perflens-fixture-noreturn/noreturn_call)\n");
}

TEST_F(BranchFixture, LbrCallStackChildrenArePerfs) {
  const std::string out = Run("report --stdio --children --sort sym -g none -t '|'", "lbr_callstack.data").out;
  RowsAgreement a = CompareRows(ChildrenRows(ReadFileOrEmpty(Fixture("expected-perf-lbr-children.txt"))),
                                ChildrenRows(out), kChildrenKinds);
  EXPECT_TRUE(a.failures.empty()) << a.Report() << out;
  EXPECT_TRUE(a.allowed.empty()) << a.Report() << out;
  EXPECT_GE(a.perf_rows, 4) << out;
}

TEST_F(BranchFixture, LbrCallStackGraphIsPerfs) {
  ExpectSameAs("expected-perf-lbr-graph.txt",
               Run("report --stdio --no-children -g callee,0.5,address", "lbr_callstack.data").out,
               "            ---0\n", "            ---ends_with_call noreturn_call.c:16\n");
}

// -b on a call-stack recording: the entries are its calls, one row each.
TEST_F(BranchFixture, ForcedBranchModeIsPerfs) {
  ExpectSameAs("expected-perf-lbr-branch-stack.txt",
               Run("report --stdio --branch-stack --no-children", "lbr_callstack.data").out);
}

// perf record -b: branch mode by default (the BRANCH_STACK feature), with perf's
// branch statistics; --no-branch-stack reports the samples.
TEST_F(BranchFixture, BranchReportIsPerfs) {
  const std::string out = Run("report --stdio", "branch_any.data").out;
  EXPECT_NE(out.find("# Samples: 12  of event 'cycles:u'\n"), std::string::npos) << out;
  EXPECT_NE(out.find("COND_BWD:  50.0%\n"), std::string::npos) << out;
  ExpectSameAs("expected-perf-branch-report.txt", out);
  ExpectSameAs("expected-perf-branch-keys.txt", Run("report --stdio -n --sort dso_from,dso_to,cycles", "branch_any.data").out);
  ExpectSameAs("expected-perf-no-branch-stack.txt", Run("report --stdio --no-branch-stack", "branch_any.data").out);
}

// The keys perf 6.1 cannot show (it crashes on -s symbol_from/symbol_to, and its
// mispredict key splits equal rows and prints the previous row's answer for a row with
// neither flag): each row once, with the truth.
TEST_F(BranchFixture, SymbolAndMispredictKeys) {
  const std::string out =
      Run("report --stdio -n --sort symbol_from,symbol_to,mispredict,cycles -t '|'", "branch_any.data").out;
  std::vector<std::string> rows;
  for (const std::string& line : SplitLines(out))
    if (!line.empty() && line[0] != '#' && line.find('|') != std::string::npos) rows.push_back(line);
  const std::vector<std::string> expected = {
      "16.67%|2|[.] spin_and_exit|[.] spin_and_exit|N|3",
      "16.67%|2|[.] spin_and_exit|[.] spin_and_exit|Y|7",
      "16.67%|2|[.] ends_with_call|[.] spin_and_exit|N|12",
      "16.67%|2|[.] main|[.] ends_with_call|N/A|-",
      "16.67%|2|[.] 0x0000000000001234|[.] main|N|1",
      "8.33%|1|[.] _start|[.] 0x0000000000001000|N|-",
      "8.33%|1|[.] main|[.] next_function|N|2",
  };
  std::vector<std::string> trimmed;
  for (std::string r : rows) {
    std::string t;
    for (char c : r)
      if (c != ' ') t += c;
    trimmed.push_back(t);
  }
  std::vector<std::string> want;
  for (const std::string& e : expected) {
    std::string t;
    for (char c : e)
      if (c != ' ') t += c;
    want.push_back(t);
  }
  std::sort(trimmed.begin(), trimmed.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(trimmed, want) << out;
}

// srcline_from / srcline_to: each end's source line in the committed binary (its DWARF),
// "libdemo.so[1234]" for the library that exists nowhere, "??:0" for _start (addr2line
// names the function but has no line); in_tx / abort: "." for entries without the flags.
// perf 6.1 computes a srcline_to only when its compare runs, and prints "(null)" for the
// two rows whose srcline_from no other row shares (README "differs on purpose").
TEST_F(BranchFixture, SrclineAndTransactionKeysArePerfs) {
  ExpectSameAsFixed("expected-perf-srcline-keys.txt",
                    Run("report --stdio -s srcline_from,srcline_to,in_tx,abort", "branch_any.data").out,
                    {{"??:0                (null)            ", "??:0                libdemo.so[1000]  "},
                     {"noreturn_call.c:24  (null)            ", "noreturn_call.c:24  noreturn_call.c:20"}});
}

// --branch-history: each sample's branch stack (loops removed) as callchain entries in
// front of its chain, keyed by address, with perf's counts: a target's branch types and
// predicted share, a source's average cycles and loop iterations; sort srcline,symbol,dso
// with perf's IPC column. Caller order by default (Children is on when perf picks it).
TEST_F(BranchFixture, BranchHistoryIsPerfs) {
  ExpectSameAs("expected-perf-branch-history.txt", Run("report --stdio --branch-history", "branch_any.data").out);
  ExpectSameAs("expected-perf-branch-history-caller.txt",
               Run("report --stdio --branch-history -n -g caller,0.5,address,count", "branch_any.data").out);
  // Callee order: the mispredicted repeat of the first entry is a loop, counted as one
  // iteration of the call before it (perf's from_count leaves out the chain that made
  // the entry: two samples print "iter:2").
  const std::string callee = Run("report --stdio --branch-history -g callee", "branch_any.data").out;
  EXPECT_NE(callee.find("---spin_and_exit noreturn_call.c:11 (COND_BWD)\n"
                        "               spin_and_exit noreturn_call.c:11 (cycles:3)\n"
                        "               spin_and_exit noreturn_call.c:10 (CALL)\n"
                        "               ends_with_call noreturn_call.c:17 (cycles:12 iter:2 avg_cycles:7)\n"),
            std::string::npos)
      << callee;
  // An LBR call-stack recording keeps its call stack (perf's resolve_lbr_callchain_sample
  // takes over) and has no BRANCH_STACK feature, so no counts.
  ExpectSameAs("expected-perf-lbr-branch-history.txt",
               Run("report --stdio --branch-history --no-children", "lbr_callstack.data").out, "            ---0\n",
               "            ---ends_with_call noreturn_call.c:16\n");
}

// -g ...,branch without callchains in the recording: perf's error.
TEST_F(BranchFixture, GraphBranchNeedsCallchains) {
  const CommandResult r = RunShell(ShellQuote(PerflensBinary()) + " report -q --stdio --no-branch-stack -g callee,0.5,branch -i " +
                                       ShellQuote(Fixture("branch_any.data")),
                                   dir_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Selected -g or --branch-history. But no callchain or branch data."), std::string::npos) << r.err;
}

TEST_F(BranchFixture, ScriptBranchStackIsPerfs) {
  ExpectSameAs("expected-perf-brstack.txt", Run("script -F ip,sym,brstack", "branch_any.data").out);
  ExpectSameAs("expected-perf-brstacksym.txt", Run("script -F ip,sym,brstacksym", "branch_any.data").out);
  ExpectSameAs("expected-perf-brstack-dso.txt", Run("script -F brstack,brstacksym,dso", "branch_any.data").out);
}

// -b on a recording without branch stacks: perf's message (perf 6.1 then exits 0;
// perflens exits 1, as for other errors).
TEST_F(BranchFixture, ForcedBranchModeNeedsBranchStacks) {
  const CommandResult r = RunShell(ShellQuote(PerflensBinary()) + " report --stdio -b -i " +
                                       ShellQuote(ScenarioSourceDir() + "/fixtures/noreturn_call/perf.data"),
                                   dir_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Selected -b but no branch data. Did you call perf record without -b?"), std::string::npos)
      << r.err;
}

// perf 6.1 does not check brstack against the sample_type (a dummy event beside an LBR
// one has none): samples without branch stacks print none, and no error.
TEST_F(BranchFixture, BrstackWithoutBranchStacksPrintsNone) {
  const CommandResult r = RunShell(ShellQuote(PerflensBinary()) + " script -q -F ip,brstack -i " +
                                       ShellQuote(ScenarioSourceDir() + "/fixtures/noreturn_call/perf.data"),
                                   dir_);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\t            115e\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("/"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace perflens::scenario
