// `perflens export` read back by its real consumers: the pprof profile of committed
// replay fixtures (fixtures/README.md; read from their build-id cache as the replay
// tests do) is opened by pprof itself (built from Debian's Go sources into the build
// directory, tests/scenario/CMakeLists.txt), and what pprof says must be what
// `perflens report` says: per event, every function's flat samples and period equal
// report --no-children -s sym's Samples and Period, the totals equal "# Samples" and
// "# Event count", and with callchains pprof -top -cum's cum% of the top functions
// equals report --children's Children. The folded export must equal script -F folded.
// Without the pprof binary the test fails; PERFLENS_SKIP_PPROF=1 turns that into a skip.
#include <sys/stat.h>

#include <cstdlib>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gtest/gtest.h"
#include "scenario_util.h"

namespace perflens::scenario {
namespace {

std::string FixturesDir() { return ScenarioSourceDir() + "/fixtures"; }
std::string PprofBinary() { return std::string(PERFLENS_BINARY_DIR) + "/pprof"; }

// Names both sides print for resolved functions only (unresolved: report's "0x…" and
// "[unknown]", pprof's "[dso]" and "<unknown>").
bool Resolved(const std::string& name) {
  return !name.empty() && name[0] != '[' && name[0] != '<' && name.rfind("0x", 0) != 0;
}

// `report --stdio --children -s sym -g none -t '|'`: per event, the rows' Children
// percentage by name, in print order.
std::vector<std::vector<std::pair<std::string, std::string>>> ParseChildren(const std::string& text) {
  std::vector<std::vector<std::pair<std::string, std::string>>> events;
  static const std::regex kRow(R"(^\s*([0-9.]+%)\s*\|\s*([0-9.]+%)\s*\|\[.\] (.*?)\s*$)");
  for (const std::string& line : SplitLines(text)) {
    std::smatch m;
    if (line.rfind("# Samples:", 0) == 0) events.emplace_back();
    else if (!events.empty() && std::regex_match(line, m, kRow)) events.back().emplace_back(m[3], m[1]);
  }
  return events;
}

// A `pprof -top` line: flat flat% sum% cum cum% name. Values may carry a unit ("ns").
struct TopRow {
  uint64_t flat = 0, cum = 0;
  std::string flat_percent, cum_percent;
};
struct Top {
  uint64_t total = 0;
  std::map<std::string, TopRow> rows;  // summed by name
  std::vector<std::string> order;      // names as printed
};
Top ParseTop(const std::string& text) {
  Top top;
  static const std::regex kTotal(R"(^Showing nodes accounting for \S+, \S+ of (\d+)\S* total$)");
  static const std::regex kRow(R"(^\s*(\d+)\S*\s+(\S+%)\s+\S+%\s+(\d+)\S*\s+(\S+%)\s+(.*?)\s*$)");
  for (const std::string& line : SplitLines(text)) {
    std::smatch m;
    if (std::regex_match(line, m, kTotal)) {
      top.total = std::stoull(m[1]);
    } else if (std::regex_match(line, m, kRow)) {
      TopRow& r = top.rows[m[5]];
      r.flat += std::stoull(m[1]);
      r.cum += std::stoull(m[3]);
      r.flat_percent = m[2];
      r.cum_percent = m[4];
      top.order.push_back(m[5]);
    }
  }
  return top;
}

class ExportPprof : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/perflens-export-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    for (const char* sub : {"/home", "/symfs"}) ASSERT_EQ(mkdir((dir_ + sub).c_str(), 0700), 0);
  }
  void TearDown() override { RunShell("rm -rf " + ShellQuote(dir_), "/tmp"); }

  std::string File(const std::string& name) const { return FixturesDir() + "/" + GetParam() + "/" + name; }

  // perflens ARGS -i perf.data, reading only the fixture's files.
  CommandResult Perflens(const std::string& args) {
    struct stat st;
    std::string symfs = stat(File("symfs").c_str(), &st) == 0 ? File("symfs") : dir_ + "/symfs";
    return RunShell("env -u PERF_BUILDID_DIR HOME=" + ShellQuote(dir_ + "/home") + " " + ShellQuote(PerflensBinary()) +
                        " " + args + " -i " + ShellQuote(File("perf.data")) + " --buildid-dir " +
                        ShellQuote(FixturesDir() + "/cache") + " --symfs " + ShellQuote(symfs),
                    dir_);
  }
  // pprof ARGS on `profile`, symbolizing nothing itself (the profile has the names).
  CommandResult Pprof(const std::string& args, const std::string& profile) {
    return RunShell("env HOME=" + ShellQuote(dir_ + "/home") + " PPROF_TMPDIR=" + ShellQuote(dir_) + " " +
                        ShellQuote(PprofBinary()) + " -symbolize=none " + args + " " + ShellQuote(profile),
                    dir_);
  }
  bool HavePprof() {
    struct stat st;
    return stat(PprofBinary().c_str(), &st) == 0;
  }

  std::string dir_;
};

#define REQUIRE_PPROF()                                                                                   \
  do {                                                                                                    \
    if (!HavePprof()) {                                                                                   \
      const char* skip = std::getenv("PERFLENS_SKIP_PPROF");                                              \
      if (skip && std::string(skip) == "1") GTEST_SKIP() << "no " << PprofBinary() << " (PERFLENS_SKIP_PPROF=1)"; \
      FAIL() << "no " << PprofBinary()                                                                    \
             << ": install golang-go and golang-github-google-pprof-dev (scripts/install-deps.sh) and "   \
                "reconfigure, or set PERFLENS_SKIP_PPROF=1";                                              \
    }                                                                                                     \
  } while (0)

TEST_P(ExportPprof, FlatEqualsReport) {
  REQUIRE_PPROF();
  const std::string profile = dir_ + "/profile.pb.gz";
  CommandResult e = Perflens("export --format pprof -o " + ShellQuote(profile));
  ASSERT_EQ(e.exit_code, 0) << e.err;
  CommandResult r = Perflens("report --stdio --no-children -s sym -F sample,period,sym -g none --percent-limit 0 -t '|'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<FlatEventRows> events = ParseFlatSymReport(r.out);
  ASSERT_FALSE(events.empty()) << r.out;
  for (size_t i = 0; i < events.size(); ++i) {
    const FlatEventRows& ev = events[i];
    SCOPED_TRACE("event " + ev.event);
    ASSERT_FALSE(ev.rows.empty());
    for (int value = 0; value < 2; ++value) {
      SCOPED_TRACE(value == 0 ? "samples" : "period");
      CommandResult p = Pprof(fmt::format("-top -nodecount=100000 -nodefraction=0 -edgefraction=0 -unit=ns "
                                          "-sample_index={}",
                                          2 * i + value),
                              profile);
      ASSERT_EQ(p.exit_code, 0) << p.err;
      const Top top = ParseTop(p.out);
      EXPECT_EQ(top.total, value == 0 ? ev.total_samples : ev.total_period) << p.out;
      std::map<std::string, uint64_t> expected, actual;
      for (const auto& [name, sp] : ev.rows)
        if (Resolved(name)) expected[name] = value == 0 ? sp.first : sp.second;
      for (const auto& [name, row] : top.rows)
        if (Resolved(name) && row.flat) actual[name] = row.flat;
      EXPECT_EQ(actual, expected) << p.out << "\n" << r.out;
    }
  }
}

TEST_P(ExportPprof, CumEqualsChildren) {
  REQUIRE_PPROF();
  const std::string profile = dir_ + "/profile.pb.gz";
  CommandResult e = Perflens("export -o " + ShellQuote(profile));
  ASSERT_EQ(e.exit_code, 0) << e.err;
  CommandResult r = Perflens("report --stdio --children -s sym -g none -t '|'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto events = ParseChildren(r.out);
  ASSERT_FALSE(events.empty()) << r.out;
  for (size_t i = 0; i < events.size(); ++i) {
    CommandResult p = Pprof(fmt::format("-top -cum -nodecount=100000 -nodefraction=0 -edgefraction=0 -sample_index={}",
                                        2 * i + 1),
                            profile);
    ASSERT_EQ(p.exit_code, 0) << p.err;
    const Top top = ParseTop(p.out);
    int compared = 0;
    for (const auto& [name, children] : events[i]) {
      if (!Resolved(name)) continue;
      auto found = top.rows.find(name);
      ASSERT_NE(found, top.rows.end()) << name << "\n" << p.out;
      EXPECT_EQ(found->second.cum_percent, children) << name << "\n" << p.out << "\n" << r.out;
      if (++compared == 5) break;
    }
    EXPECT_GE(compared, 3) << r.out;  // two_events has three functions
  }
}

// The profile's own structure, through pprof -raw: the sample types and period type as
// documented in export/pprof.h, and pid/tid/comm labels on the samples.
TEST_P(ExportPprof, RawShape) {
  REQUIRE_PPROF();
  const std::string profile = dir_ + "/profile.pb.gz";
  CommandResult e = Perflens("export -o " + ShellQuote(profile));
  ASSERT_EQ(e.exit_code, 0) << e.err;
  CommandResult p = Pprof("-raw", profile);
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_TRUE(std::regex_search(p.out, std::regex("\nPeriodType: cpu-clock(:\\S*)? nanoseconds\n"))) << p.out;
  EXPECT_NE(p.out.find("Period: 1000000"), std::string::npos) << p.out;  // the fixtures record -c 1000000 or -F 1000
  EXPECT_NE(p.out.find("pid:["), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("comm:["), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("/nanoseconds"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("samples/count"), std::string::npos) << p.out;
}

TEST_P(ExportPprof, FoldedEqualsScript) {
  CommandResult e = Perflens("export --format folded");
  ASSERT_EQ(e.exit_code, 0) << e.err;
  CommandResult s = Perflens("script -F folded");
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_FALSE(e.out.empty());
  EXPECT_EQ(e.out, s.out);
}

// Usage errors exit with perf's usage status before reading; an unwritable output is 1.
TEST_P(ExportPprof, Errors) {
  CommandResult r = Perflens("export");
  EXPECT_EQ(r.exit_code, 129);
  EXPECT_NE(r.err.find("-o FILE is needed for pprof"), std::string::npos) << r.err;
  r = Perflens("export --format flame -o x");
  EXPECT_EQ(r.exit_code, 129);
  EXPECT_NE(r.err.find("--format is pprof, folded, speedscope, firefox, json or html, not 'flame'"), std::string::npos)
      << r.err;
  r = Perflens("export -o " + ShellQuote(dir_ + "/no/such/dir/p.pb.gz"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot create"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ExportPprof, ::testing::Values("threads", "cxx", "two_events"));

// Report's filters mean the same in export: the functions' flat samples equal the
// report's rows under the same filter. --tid keeps the other samples in report's
// totals (perf's way) but out of the profile; --time drops them from both.
class ExportPprofFilters : public ExportPprof {};

TEST_P(ExportPprofFilters, FlatEqualsFilteredReport) {
  REQUIRE_PPROF();
  for (const std::string filter : {"--tid 4641,4643", "--time 10%-60%", "-U", "--comms callchain_threa --max-stack 3"}) {
    SCOPED_TRACE(filter);
    const std::string profile = dir_ + "/profile.pb.gz";
    CommandResult e = Perflens("export " + filter + " -o " + ShellQuote(profile));
    ASSERT_EQ(e.exit_code, 0) << e.err;
    CommandResult r = Perflens("report --stdio --no-children -s sym -F sample,period,sym -g none --percent-limit 0 -t '|' " +
                               filter);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::vector<FlatEventRows> events = ParseFlatSymReport(r.out);
    ASSERT_EQ(events.size(), 1u) << r.out;
    CommandResult p = Pprof("-top -nodecount=100000 -nodefraction=0 -edgefraction=0 -sample_index=0", profile);
    ASSERT_EQ(p.exit_code, 0) << p.err;
    const Top top = ParseTop(p.out);
    std::map<std::string, uint64_t> expected, actual;
    uint64_t rows_total = 0;
    for (const auto& [name, sp] : events[0].rows) {
      rows_total += sp.first;
      if (Resolved(name)) expected[name] = sp.first;
    }
    for (const auto& [name, row] : top.rows)
      if (Resolved(name) && row.flat) actual[name] = row.flat;
    ASSERT_FALSE(expected.empty()) << r.out;
    EXPECT_EQ(actual, expected) << p.out << "\n" << r.out;
    EXPECT_EQ(top.total, rows_total) << p.out;
    if (filter.rfind("--time", 0) == 0) {
      EXPECT_EQ(top.total, events[0].total_samples);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, ExportPprofFilters, ::testing::Values("threads"));

}  // namespace
}  // namespace perflens::scenario

namespace perflens::scenario {
namespace {

// A DWARF-unwound chain with inline frames (fixtures/dwarf_inline): the functions
// inlined at one address are one location's lines, innermost first, each with its
// source line, and the mapping says so ([FN][FL][LN][IN] in pprof -raw).
class ExportPprofInline : public ExportPprof {};

TEST_P(ExportPprofInline, InlineFramesAreLinesOfOneLocation) {
  REQUIRE_PPROF();
  const std::string profile = dir_ + "/profile.pb.gz";
  CommandResult e = Perflens("export -o " + ShellQuote(profile));
  ASSERT_EQ(e.exit_code, 0) << e.err;
  CommandResult p = Pprof("-raw", profile);
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_TRUE(std::regex_search(p.out, std::regex(R"(M=\d+ Rotl \S*dwarf_levels\.c:\d+ s=0\n\s+LeafMix \S*dwarf_levels\.c:\d+ s=0\n)")))
      << p.out;
  EXPECT_TRUE(std::regex_search(p.out, std::regex(R"(/bin/dwarf_inline [0-9a-f]{40} \[FN\]\[FL\]\[LN\]\[IN\])"))) << p.out;
  // pprof's flat goes to the innermost line: "Rotl (inline)", which report -s sym
  // counts in LeafMix; LeafMix keeps its own.
  CommandResult top = Pprof("-top -nodecount=100000 -nodefraction=0 -sample_index=0", profile);
  ASSERT_EQ(top.exit_code, 0) << top.err;
  const Top t = ParseTop(top.out);
  ASSERT_TRUE(t.rows.count("Rotl (inline)")) << top.out;
  EXPECT_GT(t.rows.at("Rotl (inline)").flat, 0u) << top.out;
  ASSERT_TRUE(t.rows.count("LeafMix")) << top.out;
  EXPECT_GT(t.rows.at("LeafMix").cum, t.rows.at("LeafMix").flat) << top.out;
}

INSTANTIATE_TEST_SUITE_P(DwarfInline, ExportPprofInline, ::testing::Values("dwarf_inline"));

}  // namespace
}  // namespace perflens::scenario
