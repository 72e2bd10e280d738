// ReportOptions: what `perflens report` was asked for, with perf report's option names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "session/session.h"
#include "symbolize/symbolizer.h"

namespace perflens {

struct ReportOptions {
  std::string sort = "comm,dso,sym";  // -s/--sort
  bool sort_given = false;            // -s was on the command line (else -F decides)
  std::string fields;                 // -F/--fields; empty → overhead + sort keys
  std::string field_separator;        // -t; empty → aligned columns
  double percent_limit = 0;           // --percent-limit (percent)
  // perf's parse_percent_limit also sets the call-graph threshold (callchain_param.min_percent),
  // 0 included; a -g that names a threshold (bare -g does: "graph,0.5,...") after it wins.
  // The CLI sets this from the command line's order; false leaves -g's threshold.
  bool percent_limit_sets_call_graph = false;
  std::optional<bool> children;       // --children/--no-children; unset → on with callchains
  std::string call_graph = "graph,0.5";  // -g: graph/fractal/flat/folded/none[,threshold][,caller/callee]
  bool show_nr_samples = false;       // -n
  bool show_total_period = false;     // --show-total-period: a Period column after Samples
  // perf's --time: intervals or percent slices of the recording (session/time_cpu_filter.h);
  // samples outside are in no total, and "# Samples:" says "(time slices: ...)".
  std::string time;
  std::string cpu_list;               // -C/--cpu "0-3,6": only these cpus' samples
  bool hide_unresolved = false;       // -U: samples and callchain entries without a symbol left out
  // --percentage relative: percentages of what the -c/-d/-S/--pid/--tid filters keep
  // (perf's filter_relative); absolute (default): of every sample.
  bool percentage_relative = false;
  // -p/--parent REGEX: adds the "parent" sort key, each row's first callchain symbol
  // matching REGEX (POSIX extended; perf's default "^sys_|^do_page_fault" with
  // --sort parent alone). -x/--exclude-other: only rows that have one are printed.
  // Given empty (-p ''), perf's empty regex matches every symbol.
  std::optional<std::string> parent;
  bool exclude_other = false;
  // --hierarchy: one level per sort key, each with its own overhead (perf's
  // report_hierarchy); turns Children off and refuses -F, as perf.
  bool hierarchy = false;
  // --ignore-callees REGEX (POSIX extended): a callchain is cut at a function matching
  // it, the sample charged to that function (perf's add_callchain_ip). Applies only
  // when callchains are used (-g, Children or the parent key). Given empty, it matches
  // every function, as perf's empty regex does.
  std::optional<std::string> ignore_callees;
  // --ns: the "time" key in nanoseconds (default microseconds); --time-quantum: the
  // time key's bucket in ns (perf's default 100 ms).
  bool ns = false;
  uint64_t time_quantum = 100000000;
  // --group/--no-group: the group view (a group's members side by side under its
  // leader). Unset → on (perf 6.1's default; it matters only for files with groups).
  // Given either way on a file without groups, perf makes all evsels one group
  // (evlist__force_leader): "of events" and, with --group, one section.
  std::optional<bool> group;
  // -T/--threads: after the report, the per-thread counts of the READ records (perf
  // record -s), as perf's perf_read_values_display.
  bool show_threads = false;
  int max_stack = 127;                // --max-stack
  bool inline_frames = true;          // --inline / --no-inline (DWARF-unwound frames)
  // Callers looked up at return address - 1 (the default; --no-return-address-adjust:
  // as they are, perf 6.1's way).
  bool adjust_return_addresses = true;
  bool full_source_path = false;      // --full-source-path: srcline with the whole file path
  bool show_header = false;           // --header
  // -v/--verbose (perf's verbose > 0): the Shared Object column shows each DSO's long
  // name, the Symbol column "0x<ip> <origin> " before "[.] name" (perf's
  // _hist_entry__sym_snprintf), C++ names keep their parameters. Set
  // symbolize.demangle_params with it.
  bool verbose = false;
  // -q/--quiet: only the rows (and call graphs) with perf's blank lines after each
  // event; no '#' lines but the '# dso: X' elision lines, as perf 6.1.
  bool quiet = false;
  // Percentages in perf's colours (report/percent_color.h): --stdio-color always, or
  // auto on a terminal or through the pager (the CLI decides).
  bool color = false;
  // -b/--branch-stack, --no-branch-stack; unset → branch mode when the recording has
  // the BRANCH_STACK feature (perf record -b) and no user stacks, as perf.
  std::optional<bool> branch_stack;
  // --branch-history: each sample's branch stack in front of its callchain (perf's
  // branch_call_mode): call graphs keyed by address with branch counts, default sort
  // srcline,symbol,dso, never branch mode.
  bool branch_history = false;
  std::string format = "stdio";       // --stdio or "json"
  // Filters (comma separated lists, as perf).
  std::vector<std::string> comms, dsos, symbols;
  std::vector<uint32_t> pids, tids;
  SymbolizeOptions symbolize;
  // Use a second thread (hists beside reading, call graphs beside printing). The
  // output is the same either way; false keeps everything on the calling thread.
  bool use_threads = true;
  // --parallel-read: frame and decode a flat report's file on every core
  // (SessionOptions::parallel_read; same output).
  SessionOptions::ParallelRead parallel_read = SessionOptions::ParallelRead::kAuto;
  SessionProgressFn progress;  // Session::Run's progress calls (SessionOptions::progress)
  // While kallsyms is still loading on its helper thread, key kernel samples by
  // placeholders and put the real symbols in after the read instead of waiting (only
  // without callchains, Children and --symbols). Same output either way.
  bool defer_kernel_symbols = true;
  // Sum samples per (evsel, pid, tid, cpu, cpumode, ip) — with Children or a call
  // graph, and the recorded callchain — between model changes and resolve once per key
  // (see session/sample_sums.h; SessionOptions::coalesce, coalesce_chains). Same output
  // either way; false resolves each sample.
  bool sum_samples = true;
};

}  // namespace perflens
