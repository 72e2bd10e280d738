// Issue #4: `perflens report -g graph` (perf's default call-graph printing) against
// perf 6.1 on the same recording, with --children and --no-children (default sort
// comm,dso,sym):
//  * for every entry >= 0.5%, the entry line and the first "--X.XX%--" branch level
//    below it equal perf's (compared as sorted sets: perf orders branches with equal
//    percentages by rb-tree insertion artefacts, which perflens does not reproduce
//    exactly);
//  * whole entry blocks, keyed by the entry line (not by position, for the same
//    reason), are identical for >= 95% of perf's entries.
// Entries whose difference is the documented PLT naming (scenario_util.h IsPltName)
// are counted apart.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "callchain_fixture.h"

namespace perflens::scenario {
namespace {

constexpr double kMinIdenticalPercent = 95.0;

class CallchainGraph : public CallchainTest {
 protected:
  void ExpectGraphAgrees(const std::string& mode) {
    std::string args = "report -i x.data --stdio -g graph " + mode;
    CommandResult perf = Perf(args);
    CommandResult lens = Perflens(args);
    {
      RowsAgreement rows = CompareRows(GraphRows(perf.out), GraphRows(lens.out), kGraphKinds);
      live_.GateAgreement(Name() + " graph " + mode + " entries", rows.RowPercent(), rows.Report(20));
    }
    ASSERT_EQ(perf.exit_code, 0) << perf.err;
    ASSERT_EQ(lens.exit_code, 0) << lens.err;
    std::vector<GraphEntry> ref = ParseGraph(perf.out);
    std::vector<GraphEntry> ours = ParseGraph(lens.out);
    GraphAgreement a = CompareGraphs(ref, ours);
    double identical = a.perf_entries ? 100.0 * a.identical / a.perf_entries : 0;
    std::printf("[ graph ] %s %s: entries perf %d perflens %zu, identical %d (%.1f%%); "
                "entries >= 0.5%%: %d, top level equal %d, PLT naming %d\n",
                Name().c_str(), mode.c_str(), a.perf_entries, ours.size(), a.identical,
                identical, a.top_checked, a.top_equal, a.top_plt);
    RecordProperty(mode + "_identical_percent", std::to_string(identical));
    ASSERT_GT(a.perf_entries, 3);
    std::string diff = a.failures.empty() && identical >= kMinIdenticalPercent
                           ? ""
                           : KeepOutputs("graph" + mode, perf.out, lens.out);
    EXPECT_EQ(a.failures, "") << diff;
    EXPECT_EQ(a.top_equal + a.top_plt, a.top_checked);
    // PLT naming (README: deliberate differences) touches only the few entries whose
    // samples hit PLT stubs; how many varies per recording (forkexec: up to ~6 of 400).
    EXPECT_LE(a.top_plt, std::max(4, a.top_checked / 30));
    EXPECT_GE(identical, kMinIdenticalPercent) << diff;
    // The PLT difference can also change the entry count (perf 6.1 prints the unnamed
    // .plt header as raw addresses, which may form more entries than perflens's ".plt").
    // That happens below the 0.5% entries too: bound it by perflens's .plt rows overall.
    long plt_rows = 0;
    for (const GraphEntry& e : ours)
      if (e.line.find(".plt") != std::string::npos || e.line.find("@plt") != std::string::npos) ++plt_rows;
    long extra = static_cast<long>(ref.size()) - static_cast<long>(ours.size());
    EXPECT_LE(std::labs(extra), std::max<long>(a.top_plt, plt_rows)) << diff;
  }
};

TEST_P(CallchainGraph, ChildrenTreeAgreesWithPerf) { ExpectGraphAgrees("--children"); }

TEST_P(CallchainGraph, NoChildrenTreeAgreesWithPerf) { ExpectGraphAgrees("--no-children"); }

// Deep recursion: the threads program's graph nests Recurse in itself; perf's tree and
// perflens's must both show many levels (not truncated or collapsed).
class CallchainDeepGraph : public CallchainTest {};

TEST_P(CallchainDeepGraph, RecursionKept) {
  CommandResult lens = Perflens("report -i x.data --stdio -g graph,0 --no-children");
  ASSERT_EQ(lens.exit_code, 0) << lens.err;
  size_t max_depth = 0;
  for (const GraphEntry& e : ParseGraph(lens.out)) {
    size_t run = 0;
    for (const std::string& l : e.body) {
      bool rec = l.find("(anonymous namespace)::Recurse") != std::string::npos;
      run = rec ? run + 1 : 0;
      max_depth = std::max(max_depth, run);
    }
  }
  EXPECT_GE(max_depth, 30u) << "Recurse frames in a row";
}

INSTANTIATE_TEST_SUITE_P(Programs, CallchainGraph, ::testing::ValuesIn(CallchainPrograms()),
                         CallchainProgramName);
INSTANTIATE_TEST_SUITE_P(Programs, CallchainDeepGraph, ::testing::Values(CallchainPrograms()[0]),
                         CallchainProgramName);

}  // namespace
}  // namespace perflens::scenario
