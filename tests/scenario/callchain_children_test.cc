// Issue #4: `perflens report --children --sort sym -g none -t '|'` prints the same
// Children and Self columns as perf 6.1, to the printed precision, for every symbol
// with Children >= 0.1% (the --children mode of shared/tools/perf-agreement.py).
//
// Known perf 6.1 bug: with --children --sort sym perf sometimes prints one symbol in
// two rows (e.g. `hot` 43.12% + 0.19%, where --sort dso,sym gives 43.30% in one row).
// perflens merges them, which is right: when perf has duplicate keys the test checks
// that perflens's value is their sum (within the rounding of the printed values).
// PLT symbols differ by design (see IsPltName in scenario_util.h) and are listed.
#include <algorithm>
#include <cstdio>
#include <string>

#include "callchain_fixture.h"

namespace perflens::scenario {
namespace {

constexpr const char* kChildrenArgs = "report -i x.data --stdio --children --sort sym -g none -t '|'";

class CallchainChildren : public CallchainTest {};

TEST_P(CallchainChildren, ChildrenAndSelfEqualPerf) {
  CommandResult perf = Perf(kChildrenArgs);
  CommandResult lens = Perflens(kChildrenArgs);
  {
    RowsAgreement rows = CompareRows(ChildrenRows(perf.out), ChildrenRows(lens.out), kChildrenKinds);
    live_.GateAgreement(Name() + " children rows", rows.RowPercent(), rows.Report(40));
  }
  ASSERT_EQ(perf.exit_code, 0) << perf.err;
  ASSERT_EQ(lens.exit_code, 0) << lens.err;
  std::vector<ChildrenRow> ref = ParseChildrenTable(perf.out);
  std::vector<ChildrenRow> ours = ParseChildrenTable(lens.out);
  ChildrenAgreement a = CompareChildren(ref, ours);
  std::printf("[ children ] %s: %d symbols >= 0.1%%, %d equal, %d merged perf split rows, "
              "%d PLT naming\n%s",
              Name().c_str(), a.checked, a.equal, a.merged, a.plt, a.notes.c_str());
  RecordProperty("symbols_checked", a.checked);
  RecordProperty("symbols_equal", a.equal);
  ASSERT_GT(a.checked, 3) << "too few symbols: " << perf.out.substr(0, 2000);
  std::string diff = a.failures.empty() ? "" : KeepOutputs("children", perf.out, lens.out);
  EXPECT_EQ(a.failures, "") << diff;
  EXPECT_EQ(a.equal + a.merged + a.plt, a.checked);
  // The PLT difference is rare (a few dynamic-linker samples of short-lived processes;
  // forkexec's many processes gave 5 of 273 in one CI run), as in the folded tests.
  EXPECT_LE(a.plt, std::max(4, a.checked / 30)) << a.notes;

  // The program-specific rows: what each scenario is about must be in the table.
  std::map<std::string, double> children;
  for (const ChildrenRow& r : ours) children[r.sym] += std::atof(r.children.c_str());
  auto at_least = [&](const std::string& sym, double pct) {
    EXPECT_GE(children[sym], pct) << sym << " in\n" << lens.out.substr(0, 3000);
  };
  std::string name = Name();
  if (name == "threads") {
    // Children of the recursion covers all its levels; the workers split the samples.
    at_least("[.] (anonymous namespace)::Recurse", 10);
    at_least("[.] (anonymous namespace)::Mix", 20);
    for (const char* w : {"WorkerRecursive", "WorkerMutual", "WorkerPipeline", "WorkerMixed"})
      at_least(std::string("[.] (anonymous namespace)::") + w, 5);
  } else if (name == "vdso") {
    at_least("[.] main", 95);  // the rest: process start and exit
    at_least("[.] __vdso_gettimeofday", 20);
    at_least("[.] __vdso_clock_gettime", 5);
  } else if (name == "syscalls") {
    at_least("[k] entry_SYSCALL_64_after_hwframe", 50);
    at_least("[k] do_syscall_64", 50);
    at_least("[.] main", 70);
  } else if (name == "forkexec") {
    at_least("[k] entry_SYSCALL_64_after_hwframe", 5);
    EXPECT_GT(children.size(), 50u) << "a fork/exec workload touches many symbols";
  }
}

// The duplicate-key rule on the rows of the perf 6.1 bug described above.
TEST(CallchainChildrenCompare, PerfSplitRowsMustSumToPerflensRow) {
  std::vector<ChildrenRow> perf = {{"43.12%", "43.12%", "[.] hot"}, {"0.19%", "0.19%", "[.] hot"},
                                   {"100.00%", "0.00%", "[.] main"}};
  std::vector<ChildrenRow> lens = {{"43.30%", "43.30%", "[.] hot"}, {"100.00%", "0.00%", "[.] main"}};
  ChildrenAgreement a = CompareChildren(perf, lens);
  EXPECT_EQ(a.checked, 2);
  EXPECT_EQ(a.equal, 1);
  EXPECT_EQ(a.merged, 1);
  EXPECT_EQ(a.failures, "");
  lens[0] = {"43.12%", "43.12%", "[.] hot"};  // perflens printing only one of perf's rows
  a = CompareChildren(perf, lens);
  EXPECT_EQ(a.merged, 0);
  EXPECT_NE(a.failures, "");
}

// An address without symbol or map takes the level letter of the frame before it, and
// perf 6.1 can split it into rows of different letters (a CI run of forkexec; perf's
// --sort dso,sym printed one "[k]" row of 13.22% for the same file, as perflens does).
TEST(CallchainChildrenCompare, SplitUnresolvedAddressRowsMayDifferInLevel) {
  std::vector<ChildrenRow> perf = {{"11.57%", "0.00%", "[.] 0000000000000000"},
                                   {"1.65%", "0.00%", "[k] 0000000000000000"},
                                   {"100.00%", "0.00%", "[.] main"}};
  std::vector<ChildrenRow> lens = {{"13.22%", "0.00%", "[k] 0000000000000000"},
                                   {"100.00%", "0.00%", "[.] main"}};
  ChildrenAgreement a = CompareChildren(perf, lens);
  EXPECT_EQ(a.checked, 2);
  EXPECT_EQ(a.equal, 1);
  EXPECT_EQ(a.merged, 1);
  EXPECT_EQ(a.failures, "");
  lens[0].children = "11.57%";  // only one of perf's rows
  a = CompareChildren(perf, lens);
  EXPECT_NE(a.failures, "");
  // Symbols keep their letter: a named kernel and user symbol are different rows.
  perf = {{"5.00%", "5.00%", "[.] hot"}, {"100.00%", "0.00%", "[.] main"}};
  lens = {{"5.00%", "5.00%", "[k] hot"}, {"100.00%", "0.00%", "[.] main"}};
  a = CompareChildren(perf, lens);
  EXPECT_NE(a.failures, "");
}

// PLT rows of a forkexec CI run: perf prints addresses (raw ip for Children, map address
// for Self) and "@plt"; perflens names each DSO's .plt, so two ".plt" rows.
TEST(CallchainChildrenCompare, PltRowsOfSeveralDsos) {
  std::vector<ChildrenRow> perf = {{"0.81%", "0.00%", "[.] @plt"},
                                   {"0.81%", "0.81%", "[.] 0x0000000000002026"},
                                   {"0.81%", "0.81%", "[.] 0x0000000000026006"},
                                   {"0.81%", "0.00%", "[.] 0x000055d8bfd9a026"},
                                   {"0.81%", "0.00%", "[.] 0x00007f19c4ff0006"},
                                   {"100.00%", "0.00%", "[.] main"}};
  std::vector<ChildrenRow> lens = {{"1.62%", "0.81%", "[.] .plt"},
                                   {"1.62%", "0.81%", "[.] .plt"},
                                   {"100.00%", "0.00%", "[.] main"}};
  ChildrenAgreement a = CompareChildren(perf, lens);
  EXPECT_EQ(a.failures, "");
  EXPECT_EQ(a.checked, 6);
  EXPECT_EQ(a.equal, 1);
  EXPECT_EQ(a.plt, 5);
  // perf's _init stretched over .plt (a vdso run under load): "[.] _init" there, ".plt"
  // here.
  std::vector<ChildrenRow> perf_init = {{"0.23%", "0.23%", "[.] _init"}, {"100.00%", "0.00%", "[.] main"}};
  std::vector<ChildrenRow> lens_plt = {{"0.23%", "0.23%", "[.] .plt"}, {"100.00%", "0.00%", "[.] main"}};
  ChildrenAgreement init = CompareChildren(perf_init, lens_plt);
  EXPECT_EQ(init.failures, "");
  EXPECT_EQ(init.plt, 1);
  // Any other name printed twice by perflens alone is still a failure.
  lens.push_back({"1.00%", "1.00%", "[.] hot"});
  lens.push_back({"1.00%", "1.00%", "[.] hot"});
  perf.push_back({"2.00%", "2.00%", "[.] hot"});
  a = CompareChildren(perf, lens);
  EXPECT_NE(a.failures.find("perflens prints [.] hot in several rows"), std::string::npos) << a.failures;
}

INSTANTIATE_TEST_SUITE_P(Programs, CallchainChildren, ::testing::ValuesIn(CallchainPrograms()),
                         CallchainProgramName);

}  // namespace
}  // namespace perflens::scenario
