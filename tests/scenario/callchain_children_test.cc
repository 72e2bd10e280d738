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
  RowsAgreement rows = CompareRows(ChildrenRows(perf.out), ChildrenRows(lens.out), kChildrenKinds);
  live_.GateRowAgreement(Name() + " children rows", rows, rows.Report(40));
  ASSERT_EQ(perf.exit_code, 0) << perf.err;
  ASSERT_EQ(lens.exit_code, 0) << lens.err;
  std::vector<ChildrenRow> ours = ParseChildrenTable(lens.out);
  std::printf("[ children ] %s: %s\n", Name().c_str(), rows.Summary().c_str());
  RecordProperty("symbols_checked", static_cast<int>(rows.perf_rows));
  RecordProperty("symbols_agree", static_cast<int>(rows.agreeing_rows));
  ASSERT_GT(rows.perf_rows, 3) << "too few symbols: " << perf.out.substr(0, 2000);
  std::string diff = rows.failures.empty() ? "" : KeepOutputs("children", perf.out, lens.out);
  EXPECT_TRUE(rows.failures.empty()) << rows.Report(40) << diff;
  // The PLT difference is rare (a few dynamic-linker samples of short-lived processes;
  // forkexec's many processes gave 5 of 273 in one CI run), as in the folded tests.
  EXPECT_LE(rows.AllowedWith(Difference::kPltNaming), std::max<long>(4, rows.perf_rows / 30)) << rows.Report(40);

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

// `--children --sort sym` rows {Children, Self, sym} as CompareRows takes them.
std::vector<Row> Rows(const std::vector<ChildrenRow>& table) {
  std::vector<Row> rows;
  for (const ChildrenRow& r : table) rows.push_back({{r.sym}, {r.children, r.self}, ""});
  return rows;
}

RowsAgreement CompareChildrenRows(const std::vector<ChildrenRow>& perf, const std::vector<ChildrenRow>& lens) {
  return CompareRows(Rows(perf), Rows(lens), kChildrenKinds);
}

// The split-rows rule on the rows of the perf 6.1 bug described above: perf's rows of
// one symbol must add up to perflens's one row.
TEST(CallchainChildrenCompare, PerfSplitRowsMustSumToPerflensRow) {
  std::vector<ChildrenRow> perf = {{"43.12%", "43.12%", "[.] hot"}, {"0.19%", "0.19%", "[.] hot"},
                                   {"100.00%", "0.00%", "[.] main"}};
  std::vector<ChildrenRow> lens = {{"43.30%", "43.30%", "[.] hot"}, {"100.00%", "0.00%", "[.] main"}};
  RowsAgreement a = CompareChildrenRows(perf, lens);
  EXPECT_TRUE(a.failures.empty()) << a.Report();
  EXPECT_EQ(a.perf_rows, 3);
  EXPECT_EQ(a.agreeing_rows, 3);
  EXPECT_EQ(a.AllowedWith(Difference::kSplitRows), 1) << a.Report();
  EXPECT_EQ(a.allowed.size(), 1u) << a.Report();
  lens[0] = {"43.12%", "43.12%", "[.] hot"};  // perflens printing only one of perf's rows
  a = CompareChildrenRows(perf, lens);
  EXPECT_EQ(a.AllowedWith(Difference::kSplitRows), 0) << a.Report();
  ASSERT_EQ(a.failures.size(), 1u) << a.Report();
  EXPECT_EQ(a.failures[0], "perf only: [.] hot [0.19% 0.19%]");
  EXPECT_EQ(a.agreeing_rows, 2);  // main and the identical hot row
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
  RowsAgreement a = CompareChildrenRows(perf, lens);
  EXPECT_TRUE(a.failures.empty()) << a.Report();
  EXPECT_EQ(a.agreeing_rows, 3);
  EXPECT_EQ(a.AllowedWith(Difference::kSplitRows), 1) << a.Report();
  EXPECT_EQ(a.AllowedWith(Difference::kUnresolvedLevel), 1) << a.Report();
  lens[0].children = "11.57%";  // only one of perf's rows
  a = CompareChildrenRows(perf, lens);
  EXPECT_FALSE(a.failures.empty());
  // Symbols keep their letter: a named kernel and user symbol are different rows.
  perf = {{"5.00%", "5.00%", "[.] hot"}, {"100.00%", "0.00%", "[.] main"}};
  lens = {{"5.00%", "5.00%", "[k] hot"}, {"100.00%", "0.00%", "[.] main"}};
  a = CompareChildrenRows(perf, lens);
  EXPECT_EQ(a.failures.size(), 2u) << a.Report();  // perf only [.] hot, perflens only [k] hot
  EXPECT_EQ(a.agreeing_rows, 1);
}

// PLT rows of a forkexec CI run: perf prints addresses (raw ip for Children, map address
// for Self) and "@plt"; perflens names each DSO's .plt, so two ".plt" rows. The rows perf
// prints for one PLT location must add up to perflens's row (split rows + PLT naming).
// With --sort sym the two perflens ".plt" rows have the same key, and CompareRows
// matches every PLT-named perf row to the first of them: the six rows of that run do
// not add up to one row and are reported as differences (a live test prints them).
TEST(CallchainChildrenCompare, PltRowsOfSeveralDsos) {
  std::vector<ChildrenRow> perf = {{"0.81%", "0.00%", "[.] @plt"},
                                   {"0.81%", "0.81%", "[.] 0x0000000000002026"},
                                   {"100.00%", "0.00%", "[.] main"}};
  std::vector<ChildrenRow> lens = {{"1.62%", "0.81%", "[.] .plt"}, {"100.00%", "0.00%", "[.] main"}};
  RowsAgreement a = CompareChildrenRows(perf, lens);
  EXPECT_TRUE(a.failures.empty()) << a.Report();
  EXPECT_EQ(a.agreeing_rows, 3);
  EXPECT_EQ(a.AllowedWith(Difference::kPltNaming), 1) << a.Report();
  EXPECT_EQ(a.AllowedWith(Difference::kSplitRows), 1) << a.Report();
  // One of the two rows alone does not add up.
  perf.erase(perf.begin());
  a = CompareChildrenRows(perf, lens);
  EXPECT_FALSE(a.failures.empty()) << a.Report();
  // The CI run: two DSOs' .plt rows in perflens, five address/@plt rows in perf.
  perf = {{"0.81%", "0.00%", "[.] @plt"},
          {"0.81%", "0.81%", "[.] 0x0000000000002026"},
          {"0.81%", "0.81%", "[.] 0x0000000000026006"},
          {"0.81%", "0.00%", "[.] 0x000055d8bfd9a026"},
          {"0.81%", "0.00%", "[.] 0x00007f19c4ff0006"},
          {"100.00%", "0.00%", "[.] main"}};
  lens = {{"1.62%", "0.81%", "[.] .plt"}, {"1.62%", "0.81%", "[.] .plt"}, {"100.00%", "0.00%", "[.] main"}};
  a = CompareChildrenRows(perf, lens);
  EXPECT_EQ(a.perf_rows, 6);
  EXPECT_EQ(a.agreeing_rows, 1) << a.Report();  // main
  ASSERT_EQ(a.failures.size(), 2u) << a.Report();
  EXPECT_NE(a.failures[0].find("= perflens [.] .plt [1.62% 0.81%] (values differ)"), std::string::npos)
      << a.Report();
  EXPECT_EQ(a.failures[1], "perflens only: [.] .plt [1.62% 0.81%]");
  // perf's _init stretched over .plt (a vdso run under load): "[.] _init" there, ".plt"
  // here.
  std::vector<ChildrenRow> perf_init = {{"0.23%", "0.23%", "[.] _init"}, {"100.00%", "0.00%", "[.] main"}};
  std::vector<ChildrenRow> lens_plt = {{"0.23%", "0.23%", "[.] .plt"}, {"100.00%", "0.00%", "[.] main"}};
  RowsAgreement init = CompareChildrenRows(perf_init, lens_plt);
  EXPECT_TRUE(init.failures.empty()) << init.Report();
  EXPECT_EQ(init.AllowedWith(Difference::kPltNaming), 1);
  // Any other name printed twice by perflens alone is still a failure.
  lens.push_back({"1.00%", "1.00%", "[.] hot"});
  lens.push_back({"1.00%", "1.00%", "[.] hot"});
  perf.push_back({"2.00%", "2.00%", "[.] hot"});
  a = CompareChildrenRows(perf, lens);
  EXPECT_FALSE(a.failures.empty()) << a.Report();
  EXPECT_NE(a.Report().find("perflens only: [.] hot"), std::string::npos) << a.Report();
}

INSTANTIATE_TEST_SUITE_P(Programs, CallchainChildren, ::testing::ValuesIn(CallchainPrograms()),
                         CallchainProgramName);

}  // namespace
}  // namespace perflens::scenario
