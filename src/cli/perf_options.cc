#include "cli/perf_options.h"

namespace perflens {
namespace {

// Generated from perf 6.1's help (`perf report -h 2>&1`, likewise script and annotate):
// every line "    -x, --long ..." or "        --long ...". Names only.
// perf report -h: 77 options.
constexpr PerfOption kPerfReportOptions[] = {
    {'b', "branch-stack"}, {'c', "comms"}, {'C', "cpu"}, {'d', "dsos"}, {'D', "dump-raw-trace"},
    {'F', "fields"}, {'f', "force"}, {'g', "call-graph"}, {'G', "inverted"}, {'i', "input"},
    {'I', "show-info"}, {'k', "vmlinux"}, {'M', "disassembler-style"}, {'m', "modules"},
    {'n', "show-nr-samples"}, {'p', "parent"}, {'q', "quiet"}, {'s', "sort"}, {'S', "symbols"},
    {'t', "field-separator"}, {'T', "threads"}, {'U', "hide-unresolved"}, {'v', "verbose"},
    {'w', "column-widths"}, {'x', "exclude-other"}, {0, "asm-raw"}, {0, "branch-history"}, {0, "children"},
    {0, "demangle"}, {0, "demangle-kernel"}, {0, "disable-order"}, {0, "full-source-path"}, {0, "group"},
    {0, "group-sort-idx"}, {0, "header"}, {0, "header-only"}, {0, "hierarchy"}, {0, "ignore-callees"},
    {0, "ignore-vmlinux"}, {0, "inline"}, {0, "itrace"}, {0, "kallsyms"}, {0, "max-stack"}, {0, "mem-mode"},
    {0, "mmaps"}, {0, "ns"}, {0, "objdump"}, {0, "percent-limit"}, {0, "percent-type"}, {0, "percentage"},
    {0, "pid"}, {0, "prefix"}, {0, "prefix-strip"}, {0, "pretty"}, {0, "raw-trace"}, {0, "samples"},
    {0, "show-cpu-utilization"}, {0, "show-on-off-events"}, {0, "show-ref-call-graph"},
    {0, "show-total-period"}, {0, "skip-empty"}, {0, "socket-filter"}, {0, "source"}, {0, "stats"},
    {0, "stdio"}, {0, "stdio-color"}, {0, "stitch-lbr"}, {0, "switch-off"}, {0, "switch-on"},
    {0, "symbol-filter"}, {0, "symfs"}, {0, "tasks"}, {0, "tid"}, {0, "time"}, {0, "time-quantum"},
    {0, "total-cycles"}, {0, "tui"},
};
// perf script -h: 66 options.
constexpr PerfOption kPerfScriptOptions[] = {
    {'a', "all-cpus"}, {'c', "comms"}, {'C', "cpu"}, {'d', "debug-mode"}, {'D', "dump-raw-trace"},
    {'F', "fields"}, {'f', "force"}, {'g', "gen-script"}, {'G', "hide-call-graph"}, {'i', "input"},
    {'I', "show-info"}, {'k', "vmlinux"}, {'L', "Latency"}, {'l', "list"}, {'s', "script"}, {'S', "symbols"},
    {'v', "verbose"}, {0, "addr-range"}, {0, "call-ret-trace"}, {0, "call-trace"}, {0, "deltatime"},
    {0, "demangle"}, {0, "demangle-kernel"}, {0, "dlarg"}, {0, "dlfilter"}, {0, "dsos"},
    {0, "dump-unsorted-raw-trace"}, {0, "full-source-path"}, {0, "graph-function"}, {0, "guest-code"},
    {0, "guestkallsyms"}, {0, "guestmodules"}, {0, "guestmount"}, {0, "guestvmlinux"}, {0, "header"},
    {0, "header-only"}, {0, "inline"}, {0, "insn-trace"}, {0, "itrace"}, {0, "kallsyms"},
    {0, "list-dlfilters"}, {0, "max-blocks"}, {0, "max-stack"}, {0, "ns"}, {0, "per-event-dump"}, {0, "pid"},
    {0, "reltime"}, {0, "show-bpf-events"}, {0, "show-cgroup-events"}, {0, "show-kernel-path"},
    {0, "show-lost-events"}, {0, "show-mmap-events"}, {0, "show-namespace-events"}, {0, "show-on-off-events"},
    {0, "show-round-events"}, {0, "show-switch-events"}, {0, "show-task-events"},
    {0, "show-text-poke-events"}, {0, "stitch-lbr"}, {0, "stop-bt"}, {0, "switch-off"}, {0, "switch-on"},
    {0, "symfs"}, {0, "tid"}, {0, "time"}, {0, "xed"},
};
// perf annotate -h: 33 options.
constexpr PerfOption kPerfAnnotateOptions[] = {
    {'C', "cpu"}, {'d', "dsos"}, {'D', "dump-raw-trace"}, {'f', "force"}, {'i', "input"}, {'k', "vmlinux"},
    {'l', "print-line"}, {'M', "disassembler-style"}, {'m', "modules"}, {'n', "show-nr-samples"},
    {'P', "full-paths"}, {'q', "quiet"}, {'s', "symbol"}, {'v', "verbose"}, {0, "asm-raw"}, {0, "demangle"},
    {0, "demangle-kernel"}, {0, "group"}, {0, "ignore-vmlinux"}, {0, "itrace"}, {0, "objdump"},
    {0, "percent-limit"}, {0, "percent-type"}, {0, "prefix"}, {0, "prefix-strip"}, {0, "show-total-period"},
    {0, "skip-missing"}, {0, "source"}, {0, "stdio"}, {0, "stdio-color"}, {0, "stdio2"}, {0, "symfs"},
    {0, "tui"},
};

// perf diff -h: 24 options.
constexpr PerfOption kPerfDiffOptions[] = {
    {'b', "baseline-only"}, {'C', "comms"}, {'c', "compute"}, {'d', "dsos"}, {'D', "dump-raw-trace"},
    {'f', "force"}, {'F', "formula"}, {'m', "modules"}, {'o', "order"}, {'p', "period"}, {'q', "quiet"},
    {'s', "sort"}, {'S', "symbols"}, {'t', "field-separator"}, {'v', "verbose"}, {0, "cpu"},
    {0, "cycles-hist"}, {0, "kallsyms"}, {0, "percentage"}, {0, "pid"}, {0, "stream"}, {0, "symfs"},
    {0, "tid"}, {0, "time"},
};

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

}  // namespace

std::span<const PerfOption> PerfCommandOptions(std::string_view command) {
  if (command == "report") return kPerfReportOptions;
  if (command == "script") return kPerfScriptOptions;
  if (command == "annotate") return kPerfAnnotateOptions;
  if (command == "diff") return kPerfDiffOptions;
  return {};
}

const PerfOption* FindPerfOption(std::string_view command, std::string_view arg) {
  const std::span<const PerfOption> options = PerfCommandOptions(command);
  if (StartsWith(arg, "--")) {
    std::string_view name = arg.substr(2);
    name = name.substr(0, name.find('='));
    if (name.empty()) return nullptr;
    // Exact names first, then the negation, then a unique prefix (perf's parse_long_opt).
    for (const PerfOption& o : options)
      if (o.long_name == name) return &o;
    if (StartsWith(name, "no-")) {
      for (const PerfOption& o : options)
        if (!o.long_name.empty() && o.long_name == name.substr(3)) return &o;
    }
    const PerfOption* prefix_of = nullptr;
    for (const PerfOption& o : options) {
      if (!StartsWith(o.long_name, name)) continue;
      if (prefix_of) return nullptr;  // ambiguous
      prefix_of = &o;
    }
    return prefix_of;
  }
  if (arg.size() >= 2 && arg[0] == '-') {
    for (const PerfOption& o : options)
      if (o.short_name == arg[1]) return &o;
  }
  return nullptr;
}

std::vector<std::string_view> PerfLongNamesWithPrefix(std::string_view command, std::string_view prefix) {
  std::vector<std::string_view> names;
  for (const PerfOption& o : PerfCommandOptions(command))
    if (!prefix.empty() && StartsWith(o.long_name, prefix)) names.push_back(o.long_name);
  return names;
}

std::string PerfOptionSpelling(const PerfOption& option) {
  if (option.short_name == 0) return "--" + std::string(option.long_name);
  std::string s = std::string("-") + option.short_name;
  if (!option.long_name.empty()) s += " (--" + std::string(option.long_name) + ")";
  return s;
}

}  // namespace perflens
