// Helpers for the scenario tests: run shell commands, parse `perf report` /
// `perflens report` self-mode text (-F overhead,sample,period,comm,dso,sym -t '|'), and
// measure how far two reports agree. Everything here is plain text in, values out.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

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

struct Agreement {
  long perf_samples = 0;
  long perflens_samples = 0;
  long agreeing = 0;      // sum over keys of min(perf, perflens)
  double percent = 0;     // agreeing / perf_samples * 100
  std::string worst;      // the largest differences, one per line
};

Agreement Compare(const ParsedReport& perf, const ParsedReport& perflens);

// The same rows with the dso field emptied (summed), to compare (comm, sym) only.
ParsedReport WithoutDso(const ParsedReport& report);

// ---- Call-graph comparisons (issue #4, callchain_*_test.cc) ----

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

struct ChildrenAgreement {
  int checked = 0;     // perf symbols with Children >= 0.1%
  int equal = 0;       // of which perflens prints the same Children and Self
  int merged = 0;      // of which perf split into several rows and perflens's value is the sum
  int plt = 0;         // of which the PLT naming difference explains the mismatch
  std::string notes;   // merged rows and PLT rows, one per line
  std::string failures;  // real mismatches, one per line
};
ChildrenAgreement CompareChildren(const std::vector<ChildrenRow>& perf,
                                  const std::vector<ChildrenRow>& perflens);

// `report -g graph` text cut into entries: the entry line and the lines below it up to
// the next entry (trailing blank lines dropped).
struct GraphEntry {
  std::string line;    // "   100.00%     0.00%  callchain_vdso  libc.so.6  [.] main"
  double percent = 0;  // the first column (Children, or Overhead with --no-children)
  std::vector<std::string> body;
  // The "--X.XX%--name" branches at the shallowest depth, sorted (perf orders equal
  // percentages by rb-tree insertion, so the order of ties is not compared).
  std::vector<std::string> TopLevel() const;
  bool MentionsPlt() const;
};
std::vector<GraphEntry> ParseGraph(std::string_view text);

struct GraphAgreement {
  int perf_entries = 0, identical = 0;  // whole blocks equal, keyed by the entry line
  int top_checked = 0, top_equal = 0;   // entries >= 0.5%: entry line and top level
  int top_plt = 0;                      // of which explained by PLT naming
  std::string failures;                 // top-level mismatches with both texts
};
GraphAgreement CompareGraphs(const std::vector<GraphEntry>& perf,
                             const std::vector<GraphEntry>& perflens);

// `perf report -g folded` per entry: the entry line and its "VALUE stack" lines.
std::map<std::string, std::vector<std::string>> ParseFoldedReport(std::string_view text);

// Splits text into lines (no trailing '\n').
std::vector<std::string> SplitLines(std::string_view text);

}  // namespace perflens::scenario
