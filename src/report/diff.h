// Diff: `perf diff --stdio` over finished reports — one Report per file (the first the
// baseline), each evsel of the baseline paired with the evsel of each other file that
// has its attr type and config (perf's evsel__match2), rows paired by value across the
// files (perf's hists__match + hists__link: every key's collapse, i.e. dso and symbol
// *names*, never addresses, so a rebuilt binary still pairs), then the compute column
// (delta, delta-abs, ratio, wdiff) per file and perf's sort and column layout.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "report/report.h"
#include "report/report_options.h"

namespace perflens {

// perf diff's -c/--compute methods.
enum class DiffCompute { kDelta, kDeltaAbs, kRatio, kWdiff };

struct DiffOptions {
  DiffCompute compute = DiffCompute::kDeltaAbs;  // -c (perf 6.1's default: delta-abs)
  int64_t wdiff_w1 = 0, wdiff_w2 = 0;            // -c wdiff:w1,w2 (both non-zero)
  // -o/--order: rows sorted first by the compute column of this file (0: by the
  // baseline, then each file's column in order). Must be < the number of files.
  unsigned order = 1;
  bool show_period = false;    // -p: "Base period" and a "Period" column per file
  bool show_formula = false;   // -F: how each compute value was made
  bool baseline_only = false;  // -b: only rows the baseline has a partner for
  std::string sort = "dso,sym";  // -s (perf's diff default)
  std::string field_separator;   // -t
  bool quiet = false;            // -q: rows only
  // Percentages (and ratios, wdiffs) in perf's colours; perf diff colours on a terminal.
  bool color = false;
  // The rest is what every file's Report is asked (filters, --percentage, symbols).
  bool percentage_relative = false;
  std::vector<std::string> comms, dsos, symbols;
  std::vector<uint32_t> pids, tids;
  std::string cpu_list;
  // --time: percent slices ("0%-50%") apply to every file; absolute ranges are given per
  // file, separated by ':' ("a.b,c.d:e.f,g.h"), as perf diff's.
  std::string time;
  SymbolizeOptions symbolize;
  // Every file's SessionOptions::parallel_read (--parallel-read; the same output).
  SessionOptions::ParallelRead parallel_read = SessionOptions::ParallelRead::kAuto;
};

// Parses -c's value ("delta", "delta-abs", "ratio", "wdiff:w1,w2") into `o`. Errors say
// what perf says.
Status ParseDiffCompute(std::string_view value, DiffOptions* o);

// The ReportOptions file `index` (0: the baseline) is read with: `o`'s sort keys,
// filters, time slice and symbols, no Children, no call graph.
ReportOptions DiffReportOptions(const DiffOptions& o, size_t index = 0);

// One input of the diff: its finished Report (Process done) and the path as given
// (printed in the "# Data files:" list with three or more files).
struct DiffInput {
  const Report* report = nullptr;
  std::string path;
};

// Appends perf diff's --stdio output for `inputs` (baseline first, at least two) to
// `out`. Errors: fewer than two inputs, -o out of range, reports with different keys.
Status PrintDiffStdio(const std::vector<DiffInput>& inputs, const DiffOptions& o, std::string* out);

}  // namespace perflens
