// Helpers for the scenario tests: run shell commands, parse `perf report` /
// `perflens report` self-mode text (-F overhead,sample,period,comm,dso,sym -t '|'), and
// measure how far two reports agree. Everything here is plain text in, values out.
#pragma once

#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "gtest/gtest-spi.h"
#include "gtest/gtest.h"

namespace perflens::scenario {

// The report options of issue #3, shared by perf and perflens.
inline constexpr const char* kReportArgs =
    "--stdio --no-children -F overhead,sample,period,comm,dso,sym -g none "
    "--percent-limit 0 -t '|'";

struct CommandResult {
  int exit_code = -1;  // -1 when the command did not exit normally
  std::string out;
  std::string err;
};

// Runs `command` with /bin/sh -c; stdout and stderr are captured through files in
// `scratch_dir`.
CommandResult RunShell(const std::string& command, const std::string& scratch_dir);

// Single-quotes `s` for /bin/sh.
std::string ShellQuote(std::string_view s);

std::string ReadFileOrEmpty(const std::string& path);
void WriteFile(const std::string& path, std::string_view text);

// Empty when `perf record` works here; otherwise why not (for GTEST_SKIP).
std::string PerfUnavailableReason();

// Paths compiled in from CMake.
std::string PerflensBinary();
std::string ScenarioSourceDir();  // tests/scenario

// A replay fixture's scratch dir: /tmp/perflens-NAME-test-XXXXXX with empty home/ and
// symfs/ (the HOME and --symfs a replayed perf or perflens runs with, so nothing of this
// machine's ~/.debug is read), removed after the test unless it failed.
template <typename Base = ::testing::Test>
class ScratchDirTest : public Base {
 protected:
  explicit ScratchDirTest(const char* name) : name_(name) {}
  void SetUp() override {
    std::string tmpl = "/tmp/perflens-" + name_ + "-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    for (const char* sub : {"/home", "/symfs"}) ASSERT_EQ(mkdir((dir_ + sub).c_str(), 0700), 0);
  }
  void TearDown() override {
    if (this->HasFailure())
      std::printf("[ fixture ] kept %s for inspection\n", dir_.c_str());
    else
      RunShell("rm -rf " + ShellQuote(dir_), "/tmp");
  }
  std::string dir_;

 private:
  std::string name_;
};

// One row key: event name, comm, dso, sym (the symbol text as printed, "[.] main").
using RowKey = std::tuple<std::string, std::string, std::string, std::string>;

struct ParsedReport {
  std::map<RowKey, long> samples;             // summed per key
  std::map<std::string, long> header_samples;  // "# Samples: N of event 'E'" per event
  long TotalSamples() const;
  // Samples whose key matches every non-empty field given (sym_prefix is a prefix).
  long Count(std::string_view comm, std::string_view dso, std::string_view sym_prefix) const;
};

// Parses report text; rows before any "# Samples:" line get the event "".
ParsedReport ParseReport(std::string_view text);

// ---- Call-graph text (issue #4, callchain_*_test.cc) ----

// perf 6.1 vs perflens on PLT symbols, a documented difference: perf 6.1's
// dso__synthesize_plt_symbols adds no symbol for the 16-byte .plt header (perf prints
// [unknown] / a raw address there; perflens ".plt") and names lazy-PLT slots in
// .rela.plt order, which for glibc's libc.so.6 (IRELATIVE relocations listed out of GOT
// order) shifts names ("@plt" for an IRELATIVE slot where the code jumps through
// __tunable_get_val's GOT entry); perflens names slots by GOT order as perf >= 6.3.
// True when `sym` (a symbol as printed, optionally "[.] "-prefixed) is one of these.
bool IsPltName(std::string_view sym);
// True for an unresolved user symbol as perf prints it ("0x00007f21af45b006",
// "[.] 0x0000000000026006", "[unknown]").
bool IsUnresolvedName(std::string_view sym);

// `perf report --children --sort sym -g none -t '|'` rows, in print order.
struct ChildrenRow {
  std::string children, self, sym;  // "43.12%", "0.19%", "[.] hot" (as printed, trimmed)
};
std::vector<ChildrenRow> ParseChildrenTable(std::string_view text);

// `report -g graph` text cut into entries: the entry line and the lines below it up to
// the next entry (trailing blank lines dropped).
struct GraphEntry {
  std::string line;    // "   100.00%     0.00%  callchain_vdso  libc.so.6  [.] main"
  double percent = 0;  // the first column (Children, or Overhead with --no-children)
  std::vector<std::string> body;
};
std::vector<GraphEntry> ParseGraph(std::string_view text);

// `perf report -g folded` per entry: the entry line and its "VALUE stack" lines.
std::map<std::string, std::vector<std::string>> ParseFoldedReport(std::string_view text);

// Splits text into lines (no trailing '\n').
std::vector<std::string> SplitLines(std::string_view text);

// One event's section of `report --stdio --no-children -s sym -F sample,period,sym -t '|'`
// (in file order): its "# Samples" and "# Event count", and symbol → (samples, period)
// summed per printed name (the export tests compare totals and functions with it).
struct FlatEventRows {
  std::string event;
  uint64_t total_samples = 0, total_period = 0;
  std::map<std::string, std::pair<uint64_t, uint64_t>> rows;
};
std::vector<FlatEventRows> ParseFlatSymReport(std::string_view text);

// Browser tests (ctest label `browser`): what is missing for the browser check
// ("no /usr/bin/chromium"; "" when /usr/bin/python3, /usr/bin/chromium and
// /usr/bin/chromedriver exist), and whether PERFLENS_SKIP_BROWSER=1 turns a missing
// tool into a skip.
std::string MissingBrowserTool();
bool MaySkipBrowserTests();
// Runs `/usr/bin/python3 testdata/SCRIPT --html HTML --expect EXPECT_PATH --screenshot
// SHOT` in scratch_dir and prints its output (one line per check it made). Exit 0: all
// checks passed, 1: one failed, 2: the browser could not start.
CommandResult RunBrowserCheck(const std::string& script, const std::string& html, const std::string& expect_path,
                              const std::string& screenshot, const std::string& scratch_dir);

// In a browser TEST: fails (or with PERFLENS_SKIP_BROWSER=1 skips) without the tools.
#define PERFLENS_REQUIRE_BROWSER()                                                                   \
  if (const std::string missing = MissingBrowserTool(); !missing.empty()) {                          \
    if (MaySkipBrowserTests()) GTEST_SKIP() << missing << " (PERFLENS_SKIP_BROWSER=1)";              \
    FAIL() << missing << ": install chromium, chromium-driver and python3-selenium, or set "         \
           << "PERFLENS_SKIP_BROWSER=1";                                                             \
  }
// The result of RunBrowserCheck: every check passed (a browser that cannot start skips
// with PERFLENS_SKIP_BROWSER=1). `expect` is printed on failure.
#define PERFLENS_EXPECT_BROWSER_CHECKS_PASS(check, expect)                                                   \
  do {                                                                                                       \
    if ((check).exit_code == 2 && MaySkipBrowserTests())                                                     \
      GTEST_SKIP() << "the browser did not start or selenium is missing (PERFLENS_SKIP_BROWSER=1)\n"         \
                   << (check).out;                                                                           \
    EXPECT_EQ((check).exit_code, 0) << (check).out << (check).err << "\nexpected: " << (expect);             \
    EXPECT_NE((check).out.find("all checks passed"), std::string::npos);                                     \
  } while (0)

// ---- The documented differences: ONE predicate for every perf-vs-perflens comparison ----
//
// README.md "Where perflens differs from perf 6.1 on purpose" lists what perflens prints
// differently from perf 6.1 by design. Every comparison (the replay fixtures' exact
// check and the live tests' printed differences) matches perf's rows to perflens's
// through SameField and CompareRows below, and nothing else:
//  * comm truncation: perf sizes the Command column from each thread's last comm and
//    truncates longer ones: perf's comm agrees with perflens's when it is a non-empty
//    prefix of it (`forkexe` for `forkexec.sh`);
//  * PLT naming: perf's `_init` (stretched over .plt), `@plt` slot names in .rela.plt
//    order and unnamed addresses / `[unknown]` in .plt agree with perflens's
//    `name@plt` / `.plt`;
//  * unresolved level: an address without symbol takes the level letter of the frame
//    before it, so perf's `[.] 0000…` and `[k] 0000…` name the same address;
//  * split rows: perf printing one symbol in several rows whose sum is perflens's one
//    row (its --children --sort sym rb-tree mixes two orders).
// Ties (equal values listed in another order) are not differences: rows are matched by
// key, and bodies of call-graph entries are compared as sorted sets of lines.
enum class Difference { kEqual, kCommTruncation, kPltNaming, kUnresolvedLevel, kSplitRows, kDiffers };
const char* DifferenceName(Difference d);

// What a compared field holds: kComm and kSym fields may differ as above, kExact ones
// (event, dso, entry bodies) must be equal; kStack is a folded stack "comm;f1;f2"
// whose frames are kSym fields (perf script's "[dso]" for an unknown symbol is an
// unresolved name).
enum class FieldKind { kExact, kComm, kSym, kStack };
Difference SameField(FieldKind kind, std::string_view perf, std::string_view lens);

// One printed row: its key fields and its printed values ("43.12%", "61", "61000000").
struct Row {
  std::vector<std::string> key;
  std::vector<std::string> values;
  std::string body;  // compared exactly (kExact) after the key matched; "" when none
};

struct RowsAgreement {
  long perf_rows = 0, lens_rows = 0;
  long agreeing_rows = 0;                   // perf rows that agree with a perflens row
  double perf_weight = 0, agreeing_weight = 0;  // by values[0] of perf's rows
  std::vector<std::string> allowed;   // one line per documented difference used
  std::vector<std::string> failures;  // one line per real difference
  double Percent() const { return perf_weight > 0 ? 100.0 * agreeing_weight / perf_weight : 0; }
  double RowPercent() const { return perf_rows ? 100.0 * agreeing_rows / perf_rows : 0; }
  std::string Report(size_t max_lines = 20) const;  // allowed + failures, for printing
  // Allowed lines (matched perflens rows) that used documented difference `d`.
  long AllowedWith(Difference d) const;
  // One line for printing: "R perf rows, A agree (X%), N documented differences
  // (PLT naming 2, split rows 1), F real differences".
  std::string Summary() const;
};

// Matches perf's rows to perflens's: first rows with identical key, values and body;
// then each remaining perf row to the perflens row whose key agrees field by field
// through SameField (exactly one such row, or one equal under the same documented
// difference). The perf rows matched to one perflens row must add up to its values:
// exactly for integers, and for percentages printed to 0.01 within 0.005 * (k + 1) for
// k > 1 rows (each printed value is rounded), exactly for k = 1. Every perflens row
// must be matched by some perf row, and every perf row must match.
RowsAgreement CompareRows(const std::vector<Row>& perf, const std::vector<Row>& lens,
                          const std::vector<FieldKind>& kinds);

// Rows of the self report (kReportArgs): key event, comm, dso, sym; values samples, period.
std::vector<Row> SelfRows(std::string_view report_text);
inline const std::vector<FieldKind> kSelfKinds = {FieldKind::kExact, FieldKind::kComm,
                                                  FieldKind::kExact, FieldKind::kSym};
// Rows of `--children --sort sym -g none -t '|'`: key sym; values Children, Self.
std::vector<Row> ChildrenRows(std::string_view text);
inline const std::vector<FieldKind> kChildrenKinds = {FieldKind::kSym};
// Rows of `--no-children --sort sym,srcline -g none -t '|'` (or srcfile): key sym and
// the srcline (srcfile) text, compared exactly; value the overhead.
std::vector<Row> SrclineRows(std::string_view text);
inline const std::vector<FieldKind> kSrclineKinds = {FieldKind::kSym, FieldKind::kExact};
// Entries of `-g graph` / `-g folded` (default sort comm,dso,sym, --children or not):
// key comm, dso, sym; values the percentages; body the lines below, sorted.
std::vector<Row> GraphRows(std::string_view text);
inline const std::vector<FieldKind> kGraphKinds = {FieldKind::kComm, FieldKind::kExact,
                                                   FieldKind::kSym};
// `perf script` lines, one row each: key (line number, address and DSO part, symbol);
// a callchain line's symbol may differ by PLT naming, every other line is exact.
std::vector<Row> ScriptRows(std::string_view text);
inline const std::vector<FieldKind> kScriptKinds = {FieldKind::kExact, FieldKind::kExact,
                                                    FieldKind::kSym};

}  // namespace perflens::scenario

// ---- Live tests (ctest label `live`) ----
namespace perflens::scenario {

// The live tests record with `perf record` now, so what they compare depends on what
// perf sampled in this run. They print their differences and gate only on crashes
// (perflens exiting non-zero or on a signal) and on clearly broken agreement (< 95%).
inline constexpr double kLiveMinAgreementPercent = 95.0;

// Between Start() and Finish(), every gtest failure of this thread (EXPECT_*/ASSERT_*)
// is intercepted and printed as a difference instead of failing the test; Gate() and
// GateAgreement() record the failures that do gate, reported by Finish().
class LiveDifferences {
 public:
  void Start() {
    results_.emplace();
    reporter_.emplace(::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD,
                      &*results_);
  }
  void Gate(bool ok, const std::string& what) {
    if (!ok) gates_.push_back(what);
  }
  // A setup step (building the test program, `perf record`) is not a difference from
  // perf: the failures `step` reports (its ASSERT_*s) gate like Gate(false, ...), so
  // the test fails. The reporters are left alone, so an ASSERT_* still returns from
  // the step and ASSERT_NO_FATAL_FAILURE around the caller still stops the test.
  template <typename Step>
  void Setup(Step&& step) {
    const int before = results_ ? results_->size() : 0;
    step();
    if (!results_) return;  // not intercepting: the failures were reported as usual
    for (int i = before; i < results_->size(); ++i) {
      const ::testing::TestPartResult& r = results_->GetTestPartResult(i);
      if (!r.failed()) continue;
      setup_failures_.push_back(i);
      Gate(false, std::string("setup failed (") + (r.file_name() ? r.file_name() : "?") + ":" +
                      std::to_string(r.line_number()) + "): " + r.message());
    }
  }
  void GateAgreement(const std::string& what, double percent, const std::string& details) {
    std::printf("[ live ] %s: %.2f%% agree with perf\n", what.c_str(), percent);
    GateBelowMin(what, percent, percent >= kLiveMinAgreementPercent, details);
  }
  // By rows: a comparison of a few dozen rows is not clearly broken by one row that
  // differs (one of 19 is 94.7%; a row is its whole call graph, so one sample taken
  // differently can move it): the gate needs < 95% and two differing rows, or no rows.
  void GateRowAgreement(const std::string& what, const RowsAgreement& rows, const std::string& details) {
    const double percent = rows.RowPercent();
    std::printf("[ live ] %s: %.2f%% agree with perf (%ld of %ld rows)\n", what.c_str(), percent,
                rows.agreeing_rows, rows.perf_rows);
    const bool ok = rows.perf_rows > 0 &&
                    (percent >= kLiveMinAgreementPercent || rows.perf_rows - rows.agreeing_rows < 2);
    GateBelowMin(what, percent, ok, details);
  }
  void Finish() {
    if (!reporter_) return;
    reporter_.reset();
    for (int i = 0; i < results_->size(); ++i) {
      const ::testing::TestPartResult& r = results_->GetTestPartResult(i);
      if (std::find(setup_failures_.begin(), setup_failures_.end(), i) != setup_failures_.end()) continue;
      if (r.failed())
        std::printf("[ live difference ] %s:%d\n%s\n", r.file_name() ? r.file_name() : "?",
                    r.line_number(), r.message());
    }
    results_.reset();
    setup_failures_.clear();
    for (const std::string& g : gates_) ADD_FAILURE() << g;
    gates_.clear();
  }

 private:
  void GateBelowMin(const std::string& what, double percent, bool ok, const std::string& details) {
    Gate(ok, what + ": only " + std::to_string(percent) + "% agree with perf (< 95%)\n" + details);
  }

  std::optional<::testing::TestPartResultArray> results_;
  std::optional<::testing::ScopedFakeTestPartResultReporter> reporter_;
  std::vector<std::string> gates_;
  std::vector<int> setup_failures_;  // indices in results_ reported through gates_
};

}  // namespace perflens::scenario
