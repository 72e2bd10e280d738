// Issue #4: folded stacks on the call-graph recordings.
//  * `perflens script -F folded`: every line is "comm;frame;...;leaf COUNT", the counts
//    sum to the sample count (and, with --folded-weight period, to the total period of
//    "# Event count"), and the lines equal the stacks folded from `perf script`'s own
//    output the way FlameGraph's stackcollapse-perf.pl folds them (FoldPerfScript).
//  * `perflens report -g folded` (perf's "VALUE a;b;c" lines under each entry) equals
//    `perf report -g folded` entry by entry, with --no-children and --children, and the
//    per-entry percentages of --no-children add up to the entry's overhead.
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "callchain_fixture.h"

namespace perflens::scenario {
namespace {

bool IsKernelDso(const std::string& dso) {
  static const std::set<std::string> kUserBrackets = {"[vdso]", "[vdso32]", "[vdsox32]", "[unknown]",
                                                      "[vsyscall]", "[heap]", "[stack]"};
  if (dso == "[kernel.kallsyms]") return true;
  return dso.size() > 2 && dso[0] == '[' && !kUserBrackets.count(dso) && dso.rfind("[JIT", 0) != 0;
}

// stackcollapse-perf.pl over `perf script` text: "comm;outer;...;leaf" → samples. An
// unknown symbol is "[basename of the DSO]" ("[unknown]" without one), kernel frames get
// "_[k]", spaces in the comm become '_', ';' in names ':'.
std::map<std::string, long> FoldPerfScript(const std::string& text, std::string* error) {
  std::map<std::string, long> stacks;
  std::string comm;
  std::vector<std::string> frames;  // leaf first
  auto flush = [&] {
    if (comm.empty()) return;
    std::string key = comm;
    for (auto it = frames.rbegin(); it != frames.rend(); ++it) key += ";" + *it;
    stacks[key]++;
    comm.clear();
    frames.clear();
  };
  for (const std::string& line : SplitLines(text)) {
    if (line.empty()) continue;
    if (line[0] != '\t') {  // "            expr  1234  2653.709659:     500000 cpu-clock:ppp: "
      flush();
      size_t colon = line.find(": ");
      size_t time = colon == std::string::npos ? colon : line.rfind(' ', colon);
      size_t pid_end = time == std::string::npos ? time : line.find_last_not_of(' ', time);
      size_t pid = pid_end == std::string::npos ? pid_end : line.rfind(' ', pid_end);
      if (pid == std::string::npos) {
        *error += "unparsed sample line: " + line + "\n";
        continue;
      }
      comm = line.substr(0, line.find_last_not_of(' ', pid) + 1);
      comm = comm.substr(comm.find_first_not_of(' '));
      for (char& c : comm) c = c == ' ' ? '_' : c == ';' ? ':' : c;
      continue;
    }
    size_t addr = line.find_first_not_of(" \t");
    size_t space = line.find(' ', addr);
    size_t paren = line.rfind(" (");
    if (space == std::string::npos || paren == std::string::npos || paren < space) {
      *error += "unparsed frame line: " + line + "\n";
      continue;
    }
    std::string sym = line.substr(space + 1, paren - space - 1);
    std::string dso = line.substr(paren + 2, line.size() - paren - 3);
    size_t plus = sym.rfind("+0x");
    if (plus != std::string::npos) sym.resize(plus);
    if (sym == "[unknown]" && dso != "unknown" && dso != "[unknown]")
      sym = "[" + dso.substr(dso.rfind('/') + 1) + "]";
    for (char& c : sym) c = c == ';' ? ':' : c;
    if (IsKernelDso(dso)) sym += "_[k]";
    frames.push_back(sym);
  }
  flush();
  return stacks;
}

// "stack COUNT" lines → map; false on a line that does not parse.
bool ParseFolded(const std::string& text, std::map<std::string, long>* out, std::string* bad) {
  for (const std::string& line : SplitLines(text)) {
    size_t space = line.rfind(' ');
    bool ok = space != std::string::npos && space > 0 && space + 1 < line.size() &&
              line.find_first_not_of("0123456789", space + 1) == std::string::npos &&
              line.find(";;") == std::string::npos && line[space - 1] != ';';
    if (!ok) {
      *bad += line + "\n";
      continue;
    }
    (*out)[line.substr(0, space)] += std::stol(line.substr(space + 1));
  }
  return bad->empty();
}

long HeaderNumber(const std::string& report, const std::string& prefix) {
  size_t at = report.find(prefix);
  return at == std::string::npos ? -1 : std::atol(report.c_str() + at + prefix.size());
}

// The exact sample count: "# Samples: 1K of event" is rounded (perf's convert_unit), so
// take it from `--stats` ("SAMPLE events: 1465").
long ExactSamples(const std::string& stats) {
  size_t at = stats.find("SAMPLE events:");
  return at == std::string::npos ? -1 : std::atol(stats.c_str() + at + 14);
}

class CallchainFolded : public CallchainTest {};

TEST_P(CallchainFolded, ScriptFoldedMatchesPerfScript) {
  CommandResult perf = Perf("script -i x.data");
  CommandResult lens = Perflens("script -i x.data -F folded");
  CommandResult header = Perf("report -i x.data --stdio --no-children -g none --sort comm");
  CommandResult stats = Perf("report -i x.data --stats");
  ASSERT_EQ(perf.exit_code, 0) << perf.err;
  ASSERT_EQ(lens.exit_code, 0) << lens.err;
  long samples = ExactSamples(stats.out);
  ASSERT_GT(samples, 50);
  std::map<std::string, long> ours;
  std::string bad, error;
  EXPECT_TRUE(ParseFolded(lens.out, &ours, &bad)) << "lines that are not 'stack COUNT':\n" << bad;
  long sum = 0;
  for (const auto& [stack, n] : ours) sum += n;
  EXPECT_EQ(sum, samples) << "folded counts must sum to the sample count";
  std::map<std::string, long> ref = FoldPerfScript(perf.out, &error);
  std::vector<Row> perf_rows, lens_rows;
  for (const auto& [stack, n] : ref) perf_rows.push_back({{stack}, {std::to_string(n)}, ""});
  for (const auto& [stack, n] : ours) lens_rows.push_back({{stack}, {std::to_string(n)}, ""});
  RowsAgreement rows = CompareRows(perf_rows, lens_rows, {FieldKind::kStack});
  live_.GateAgreement(Name() + " folded stacks (samples)", rows.Percent(), rows.Report(20));
  EXPECT_EQ(error, "");
  std::printf("[ folded ] %s: %ld samples, stacks: %s\n", Name().c_str(), samples, rows.Summary().c_str());
  // The only documented difference is PLT naming (see callchain_script_test.cc).
  EXPECT_TRUE(rows.failures.empty()) << rows.Report(20) << KeepOutputs("folded", perf.out, lens.out);
  EXPECT_LE(rows.AllowedWith(Difference::kPltNaming), 8) << rows.Report(20);

  // --folded-weight period: the same stacks weighted by period; they add up to the
  // total period perf prints as "# Event count".
  CommandResult by_period = Perflens("script -i x.data -F folded --folded-weight period");
  ASSERT_EQ(by_period.exit_code, 0) << by_period.err;
  long period = HeaderNumber(header.out, "# Event count (approx.): ");
  ASSERT_GT(period, 0);
  std::map<std::string, long> weighted;
  bad.clear();
  EXPECT_TRUE(ParseFolded(by_period.out, &weighted, &bad)) << bad;
  long period_sum = 0;
  for (const auto& [stack, n] : weighted) period_sum += n;
  EXPECT_EQ(period_sum, period);
  EXPECT_EQ(weighted.size(), ours.size()) << "the same stacks";
}

class CallchainFoldedReport : public CallchainTest {
 protected:
  void ExpectSameAsPerf(const std::string& mode, const std::string& graph = "folded") {
    std::string args = "report -i x.data --stdio -g " + graph + " " + mode;
    CommandResult perf = Perf(args);
    CommandResult lens = Perflens(args);
    RowsAgreement rows = CompareRows(GraphRows(perf.out), GraphRows(lens.out), kGraphKinds);
    live_.GateRowAgreement(Name() + " report -g " + graph + " " + mode + " entries", rows,
                        rows.Report(20));
    ASSERT_EQ(perf.exit_code, 0) << perf.err;
    ASSERT_EQ(lens.exit_code, 0) << lens.err;
    std::printf("[ folded ] %s report -g %s %s: %s\n", Name().c_str(), graph.c_str(), mode.c_str(),
                rows.Summary().c_str());
    EXPECT_TRUE(rows.failures.empty()) << rows.Report(20) << KeepOutputs("report-folded" + mode, perf.out, lens.out);
    // As in the graph test: PLT naming touches a few entries, more in forkexec's many
    // short-lived processes (up to ~8 of 400).
    EXPECT_LE(rows.AllowedWith(Difference::kPltNaming), std::max<long>(4, rows.perf_rows / 30)) << rows.Report(20);
  }
};

TEST_P(CallchainFoldedReport, ChildrenEqualsPerf) { ExpectSameAsPerf("--children"); }

TEST_P(CallchainFoldedReport, NoChildrenEqualsPerf) {
  ASSERT_NO_FATAL_FAILURE(ExpectSameAsPerf("--no-children"));
  // With threshold 0 (-g folded,0), the percentages under each --no-children entry are
  // the entry's samples split by stack: they add up to its overhead.
  CommandResult lens = Perflens("report -i x.data --stdio -g folded,0 --no-children");
  ASSERT_EQ(lens.exit_code, 0) << lens.err;
  auto ours = ParseFoldedReport(lens.out);
  ASSERT_FALSE(ours.empty());
  for (const auto& [entry, lines] : ours) {
    double sum = 0;
    for (const auto& l : lines) sum += std::atof(l.c_str());
    // Each printed value may be off by half a unit in the last place, and printf rounds
    // exact ties (0.375 -> 0.38, 0.125 -> 0.12) to even: the bound is inclusive.
    double bound = 0.005 * static_cast<double>(lines.size() + 1) + 1e-9;
    EXPECT_NEAR(sum, std::atof(entry.c_str()), bound) << entry;
  }
}

// -g folded,0,caller,count: sample counts instead of percentages (perf's
// callchain_param.value); each --no-children entry's counts add up to its samples.
TEST_P(CallchainFoldedReport, CountValuesEqualPerf) {
  const std::string graph = "folded,0,caller,count";
  ASSERT_NO_FATAL_FAILURE(ExpectSameAsPerf("--no-children", graph));
  CommandResult lens = Perflens("report -i x.data --stdio --no-children -n -g " + graph);
  ASSERT_EQ(lens.exit_code, 0) << lens.err;
  auto ours = ParseFoldedReport(lens.out);
  ASSERT_FALSE(ours.empty());
  long total = 0;
  for (const auto& [entry, lines] : ours) {
    long sum = 0;
    for (const auto& l : lines) {
      EXPECT_EQ(l.find('%'), std::string::npos) << "a count, not a percentage: " << l;
      sum += std::atol(l.c_str());
    }
    size_t pct = entry.find('%');  // "    61.75%           113  callchain_vdso ..."
    const long entry_samples = std::atol(entry.c_str() + pct + 1);
    // A sample whose chain is empty adds no line (perf's callchain_append): an entry of
    // only such samples has none, in perf's output too (ExpectSameAsPerf compared the
    // lines). Seen on a short-lived `sed` in forkexec.
    if (lines.empty()) sum = entry_samples;
    EXPECT_EQ(sum, entry_samples) << entry;
    total += sum;
  }
  EXPECT_EQ(total, ExactSamples(Perf("report -i x.data --stats").out));
}

INSTANTIATE_TEST_SUITE_P(Programs, CallchainFolded, ::testing::ValuesIn(CallchainPrograms()),
                         CallchainProgramName);
INSTANTIATE_TEST_SUITE_P(Programs, CallchainFoldedReport, ::testing::ValuesIn(CallchainPrograms()),
                         CallchainProgramName);

}  // namespace
}  // namespace perflens::scenario
