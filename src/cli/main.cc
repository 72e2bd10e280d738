// perflens command line: perf's subcommand and option names; the only place that
// decides exit codes.
#include <unistd.h>

#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/pager.h"
#include "cli/perf_usage.h"
#include "perfdata/perf_file.h"
#include "report/callchain_tree.h"
#include "report/dump_printer.h"
#include "report/header_printer.h"
#include "report/report.h"
#include "report/json_printer.h"
#include "report/stdio_printer.h"
#include "symbolize/vdso.h"

namespace perflens {
namespace {

void WriteOut(const std::string& s) { fwrite(s.data(), 1, s.size(), stdout); }
void FlushOut(std::string* s) {
  WriteOut(*s);
  s->clear();
}


int Fail(const Error& e) {
  PrintError(e.message);
  return 1;
}
int FailInput(const Error& e) {
  PrintError(e.message);
  return kExitInputError;
}
// An option value perf's parser refuses: its usage status (129), with perflens's message.
int FailUsage(const Error& e) {
  PrintError(e.message);
  return kExitUsage;
}

struct ReportArgs {
  std::string input = "perf.data";
  bool stdio = false, children = false, no_children = false, json = false;
  bool group = false, no_group = false;
  bool branch_stack = false, no_branch_stack = false;
  std::vector<std::string> comms, dsos, symbols, pids, tids;
  std::string call_graph;
  bool bare_call_graph = false;  // -g without a value
  std::string stdio_color = "auto";  // --stdio-color [always|never|auto]; bare: always
  bool inverted = false;         // -G
  bool quiet = false;            // -q
  int verbose = 0;               // -v (perf counts them; one is enough here)
  std::string percentage;        // --percentage relative|absolute
  std::string time_quantum;      // --time-quantum N[s|ms|us|ns]
  // perf report's other outputs, which perflens also has as subcommands.
  bool header_only = false;      // --header-only: `perflens header`
  bool show_info = false;        // -I/--show-info: the header with every feature in full
  bool stats = false;            // --stats: `perflens stats`
  bool dump_raw_trace = false;   // -D/--dump-raw-trace: `perflens dump`
  std::string html;              // --html FILE: `perflens export --format html -o FILE`
  ReportOptions options;
};

// --html FILE: the export's HTML viewer with report's filters instead of the text
// report. Filtered samples are left out of it (the text report counts them in its
// totals), as in `perflens export`.
int RunReportHtml(ReportArgs& a, const ReaderOptions& reader) {
  ExportOptions o = ExportOptionsFromReport(a.options, ExportFormat::kHtml);
  return RunExportToFile(a.input, reader, o, a.html, a.quiet);
}

int RunReport(ReportArgs& a, const ReaderOptions& reader) {
  ReportOptions& o = a.options;
  if (a.children) o.children = true;
  if (a.no_children) o.children = false;
  if (a.group) o.group = true;
  if (a.no_group) o.group = false;
  if (a.branch_stack) o.branch_stack = true;
  if (a.no_branch_stack) o.branch_stack = false;
  if (a.json) o.format = "json";
  o.quiet = a.quiet;
  o.verbose = a.verbose > 0 && !a.quiet;  // perf's -q sets verbose to -1 whatever -v says
  o.symbolize.demangle_params = o.verbose;  // perf -v: DMGL_PARAMS (no effect with --no-demangle)
  // perf prints the header only when not quiet ((header || header_only) && !quiet), and
  // with -q --header-only the report.
  if (a.quiet) {
    o.show_header = false;
    a.header_only = false;
  }
  // perf's color.ui: auto colours when stdout is a terminal (the pager then takes it);
  // a bad value is ignored with perf's warning.
  if (a.stdio_color != "always" && a.stdio_color != "never" && a.stdio_color != "auto") {
    std::fprintf(stderr, "bad config value for 'color.ui', ignoring...\n");
    a.stdio_color = "auto";
  }
  o.color = a.stdio_color == "always" || (a.stdio_color == "auto" && isatty(STDOUT_FILENO));
  if (!a.time_quantum.empty()) {
    // perf's parse_time_quantum: a number (ns) with an optional s/ms/us/ns unit, not 0.
    char* end = nullptr;
    const unsigned long long q = std::strtoull(a.time_quantum.c_str(), &end, 0);
    std::string_view unit(end);
    while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
    const uint64_t scale = unit.empty() || unit == "ns" ? 1 : unit == "us" ? 1000 : unit == "ms" ? 1000000
                           : unit == "s"                    ? 1000000000
                                                            : 0;
    // Refused by perf's option parser: its usage status.
    if (end == a.time_quantum.c_str() || scale == 0)
      return FailUsage(Error{fmt::format("Cannot parse time quantum `{}'", a.time_quantum)});
    if (q == 0) return FailUsage(Error{"time quantum cannot be 0"});
    o.time_quantum = q * scale;
  }
  if (!a.call_graph.empty()) o.call_graph = a.call_graph;
  else if (a.bare_call_graph) o.call_graph = "graph,0.5,caller,function,percent";  // perf's CALLCHAIN_DEFAULT_OPT
  if (a.inverted) o.call_graph += ",caller";
  {
    // Checked before the input opens, as perf's option parser does (Report::Create
    // parses it again for the file).
    CallGraphParams cg;
    bool order_set = false;
    std::string cg_error;
    if (!ParseCallGraphArg(o.call_graph, &cg, &order_set, &cg_error)) return FailUsage(Error{cg_error});
  }
  if (!a.percentage.empty()) {
    if (a.percentage != "relative" && a.percentage != "absolute")
      return FailUsage(Error{"--percentage is relative or absolute, not '" + a.percentage + "'"});
    o.percentage_relative = a.percentage == "relative";
  }
  o.comms = SplitCommas(a.comms);
  o.dsos = SplitCommas(a.dsos);
  o.symbols = SplitCommas(a.symbols);
  if (!ParseIds(a.pids, &o.pids)) return Fail(Error{"--pid takes comma-separated process ids"});
  if (!ParseIds(a.tids, &o.tids)) return Fail(Error{"--tid takes comma-separated thread ids"});
  if (!a.html.empty()) return RunReportHtml(a, reader);
  auto file = OpenInput(a.input, reader);
  if (!file) return FailInput(file.error());
  if (a.header_only) {
    HeaderFormatOptions ho;
    ho.full = a.show_info;
    WriteOut(FormatHeader(**file, ho));
    return 0;
  }
  if (a.stats || a.dump_raw_trace) {
    std::string out;
    Status st = a.stats ? PrintStats(**file, &out) : DumpRecords(**file, &out, FlushOut);
    WriteOut(out);
    return st ? 0 : Fail(st.error());
  }
  if (std::optional<int> status = CheckTimeArg(**file, o.time, false)) return *status;
  o.progress = StderrProgress(a.quiet);
  auto report = Report::Create(file->get(), o);
  if (!report) return Fail(report.error());
  Status st = (*report)->Process();
  if (!st) return Fail(st.error());
  std::string out;
  if (o.show_header) {
    HeaderFormatOptions ho;
    ho.full = a.show_info;
    out += FormatHeader(**file, ho);
  }
  st = o.format == "json" ? PrintReportJson(**report, &out) : PrintReportStdio(**report, &out);
  if (!st) return Fail(st.error());
  WriteOut(out);
  fflush(stdout);
  // -v: where each DSO's symbols came from (perf -v prints its own lookups instead).
  if (o.verbose && !a.quiet)
    for (const std::string& line : (*report)->SymbolSourceLines()) fmt::print(stderr, "perflens: symbols: {}\n", line);
  PrintReadProblems((*report)->read_stats(), (*report)->SummaryLines(), a.quiet);
  return 0;
}

}  // namespace
}  // namespace perflens

int main(int argc, char** argv) {
  using namespace perflens;
  InstallSigbusHandler();
  // glibc serves blocks of 128 KiB and more with mmap and trims the heap top on free:
  // the read batches, stack copies and chain buffers of a large recording then cost a
  // fresh zero-filled mapping and a munmap each time (a tenth of the resolving thread's
  // time on a 250 MB --call-graph dwarf file). Keep them in the heap; peak RSS is the
  // same within a few MB.
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  ReaderOptions reader;  // -f/--force of whichever subcommand runs
  CLI::App app{"perflens: fast, correct perf.data reports"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "perflens 0.1 (reads perf.data as perf 6.1 reports it)");

  ReportArgs ra;
  CLI::App* report = app.add_subcommand("report", "Profile report, as perf report --stdio");
  report->add_option("-i,--input", ra.input, "Input file (default ./perf.data; - for stdin)");
  report->add_flag("--stdio", ra.stdio, "Plain text output (the default)");
  report->add_option("-s,--sort", ra.options.sort, "Sort keys: comm,pid,tid,dso,sym,cpu,srcline,srcfile,trace");
  report->add_option("-F,--fields", ra.options.fields, "Output fields: overhead,overhead_sys,overhead_us,sample,period + sort keys");
  report->add_option("-t,--field-separator", ra.options.field_separator, "Separator between columns");
  CLI::Option* percent_limit_opt =
      report->add_option("--percent-limit", ra.options.percent_limit, "Hide entries below this percentage");
  report->add_flag("--children", ra.children, "Accumulate callchain costs (Children column)");
  report->add_flag("--no-children", ra.no_children, "Self costs only");
  report->add_flag("--group", ra.group,
                   "Event groups side by side (the default for files with groups); without groups, all events as one");
  report->add_flag("--no-group", ra.no_group, "Each event of a group in its own section");
  report->add_flag("-T,--threads", ra.options.show_threads,
                   "After the report, per-thread counts from the READ records (perf record -s)");
  report->add_flag("-b,--branch-stack", ra.branch_stack,
                   "One row per branch-stack entry (from/to; the default for perf record -b recordings)");
  report->add_flag("--no-branch-stack", ra.no_branch_stack, "Rows of samples even when the recording has branch stacks");
  report->add_flag("--branch-history", ra.options.branch_history,
                   "Add each sample's branch stack to its call graph, with branch counts (sort srcline,symbol,dso)");
  CLI::Option* call_graph_opt =
      report->add_option("-g,--call-graph", ra.call_graph,
                         "Call graph: graph|fractal|flat|folded|none[,threshold][,caller|callee][,function|address][,branch]"
                         "[,percent|period|count] (default graph,0.5; a bare -g is perf's "
                         "graph,0.5,caller,function,percent)")
          ->expected(0, 1);
  report->add_flag("-G,--inverted", ra.inverted, "Caller-first call graphs (-g caller)");
  report->add_flag("-n,--show-nr-samples", ra.options.show_nr_samples, "Show sample counts");
  report->add_flag("--show-total-period", ra.options.show_total_period, "Show a Period column");
  report->add_option("-p,--parent", ra.options.parent,
                     "Regex of parent symbols: adds the 'parent' sort key (first matching callchain symbol)");
  report->add_flag("-x,--exclude-other", ra.options.exclude_other, "Only rows with a parent match");
  report->add_option("--time", ra.options.time,
                     "Only samples in these times: START,END (seconds; several separated by spaces) or "
                     "percent slices of the recording (10%/2, 0%-10%,30%-40%)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // perf: the last one given
  report->add_option("-C,--cpu", ra.options.cpu_list, "Only samples on these cpus (0-3,6)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  report->add_flag("-U,--hide-unresolved", ra.options.hide_unresolved,
                   "Leave out samples and callchain entries without a symbol");
  report->add_option("--percentage", ra.percentage,
                     "relative: percentages of what the filters keep; absolute (default): of all samples");
  report->add_option("--max-stack", ra.options.max_stack, "Callchain depth limit");
  AddParallelReadOption(report, &ra.options.parallel_read);
  report->add_flag("--hierarchy", ra.options.hierarchy, "One level per sort key, each with its overhead");
  report->add_option("--ignore-callees", ra.options.ignore_callees,
                     "Regex of functions whose callees are merged into them (callchains cut there)");
  report->add_flag("--ns", ra.options.ns, "The time key in nanoseconds (default microseconds)");
  report->add_option("--time-quantum", ra.time_quantum, "The time key's bucket: N[s|ms|us|ns] (default 100ms)");
  AddInlineFlags(report, &ra.options.inline_frames);
  AddReturnAddressFlags(report, &ra.options.adjust_return_addresses);
  AddQuietFlag(report, &ra.quiet);
  report->add_flag("-v,--verbose", ra.verbose,
                   "Shared objects by their full path, symbols with their address and symtab origin (perf's "
                   "letters: B build-id cache, k kallsyms, ...), C++ names with parameters; on stderr, where each "
                   "DSO's symbols came from");
  report->add_option("--stdio-color", ra.stdio_color,
                     "Percentages in perf's colours: always (a bare --stdio-color), never, or auto (on a terminal)")
      ->expected(0, 1)
      ->default_str("always");
  report->add_flag("--full-source-path", ra.options.full_source_path,
                   "Show the whole source file path in srcline (default: its base name)");
  report->add_flag("--header", ra.options.show_header, "Print the perf.data header first");
  report->add_flag("--header-only", ra.header_only, "Print only the perf.data header (perflens header)");
  report->add_flag("-I,--show-info", ra.show_info, "With the header, every feature in full (topology...)");
  report->add_flag("--stats", ra.stats, "Record counts only (perflens stats)");
  report->add_flag("-D,--dump-raw-trace", ra.dump_raw_trace, "One line per record (perflens dump)");
  report->add_flag("--json", ra.json, "JSON output with raw numbers");
  report->add_option("--html", ra.html,
                     "Write FILE, one self-contained HTML viewer (flame graph, trees, search; no network needed) "
                     "of the samples the filters keep, instead of the text report");
  report->add_option("--format", ra.options.format, "stdio or json");
  AddListOption(report, "-c,--comms", &ra.comms, "Only these comms");
  AddListOption(report, "-d,--dsos", &ra.dsos, "Only these DSOs");
  AddListOption(report, "-S,--symbols", &ra.symbols, "Only these symbols");
  AddListOption(report, "--pid", &ra.pids, "Only these process ids");  // perf's -p is --parent
  AddListOption(report, "--tid", &ra.tids, "Only these thread ids");
  AddSymbolOptions(report, &ra.options.symbolize);
  AddForceOption(report, &reader);

  std::string header_input = "perf.data";
  bool header_full = false;
  CLI::App* header = app.add_subcommand("header", "Header information, as perf report --header-only");
  AddForceOption(header, &reader);
  header->add_option("-i,--input", header_input, "Input file");
  header->add_flag("-I,--header-full", header_full, "Show topology details");

  std::string dump_input = "perf.data";
  CLI::App* dump = app.add_subcommand("dump", "One line per record, as perf report -D");
  AddForceOption(dump, &reader);
  dump->add_option("-i,--input", dump_input, "Input file");

  std::string stats_input = "perf.data";
  CLI::App* stats = app.add_subcommand("stats", "Record counts, as perf report --stats");
  AddForceOption(stats, &reader);
  stats->add_option("-i,--input", stats_input, "Input file");

  std::string bid_input = "perf.data";
  CLI::App* bidlist = app.add_subcommand("buildid-list", "Build-ids recorded in the file, as perf buildid-list");
  AddForceOption(bidlist, &reader);
  bidlist->add_option("-i,--input", bid_input, "Input file");

  CommandRunner run_script = RegisterScriptCommand(&app, &reader);
  CommandRunner run_annotate = RegisterAnnotateCommand(&app, &reader);
  CommandRunner run_archive = RegisterArchiveCommand(&app, &reader);
  CommandRunner run_export = RegisterExportCommand(&app, &reader);
  CommandRunner run_diff = RegisterDiffCommand(&app, &reader);

  // Every subcommand takes --no-pager; perf's -P/--no-pager and -p/--paginate go before it.
  PagerChoice pager;
  AddPagerFlags(&app, &pager);
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) AddNoPagerFlag(sub, &pager);
  if (std::optional<int> status = ParseCommandLine(&app, argc, argv)) return *status;
  // perf pages report (and its --header-only, -D, --stats) unless it reads a pipe,
  // script, annotate and buildid-list; perf archive is a shell script. Nothing that
  // writes a file instead of stdout pages (export, report --html, diff --html).
  const bool diff_html = app.got_subcommand("diff") && app.get_subcommand("diff")->count("--html") > 0;
  WantPager(*report ? ra.input != "-" && ra.html.empty()
            : *header ? header_input != "-"
            : *dump ? dump_input != "-"
            : *stats ? stats_input != "-"
            : !app.got_subcommand("archive") && !app.got_subcommand("export") && !diff_html,
            pager);
  ra.options.sort_given = report->count("--sort") > 0;
  if (app.got_subcommand("script")) return run_script();
  if (app.got_subcommand("annotate")) return run_annotate();
  if (app.got_subcommand("archive")) return run_archive();
  if (app.got_subcommand("export")) return run_export();
  if (app.got_subcommand("diff")) return run_diff();
  if (*report) {
    ra.bare_call_graph = call_graph_opt->count() > 0 && ra.call_graph.empty();
    // perf applies options in command-line order: --percent-limit sets the call-graph
    // threshold unless a later -g names one (bare -g's default string does).
    int limit_pos = -1, g_pos = -1, pos = 0;
    for (const CLI::Option* opt : report->parse_order()) {
      if (opt == percent_limit_opt) limit_pos = pos;
      else if (opt == call_graph_opt) g_pos = pos;
      ++pos;
    }
    bool g_threshold = ra.bare_call_graph;
    for (const std::string& tok : SplitCommas({ra.call_graph})) {
      char* end = nullptr;
      std::strtod(tok.c_str(), &end);
      g_threshold |= !tok.empty() && end != tok.c_str();
    }
    ra.options.percent_limit_sets_call_graph = limit_pos >= 0 && (g_pos < limit_pos || !g_threshold);
    return RunReport(ra, reader);
  }
  if (*header) {
    auto file = OpenInput(header_input, reader);
    if (!file) return FailInput(file.error());
    HeaderFormatOptions ho;
    ho.full = header_full;
    WriteOut(FormatHeader(**file, ho));
    return 0;
  }
  if (*dump) {
    auto file = OpenInput(dump_input, reader);
    if (!file) return FailInput(file.error());
    std::string out;
    Status st = DumpRecords(**file, &out, FlushOut);
    WriteOut(out);
    return st ? 0 : Fail(st.error());
  }
  if (*stats) {
    auto file = OpenInput(stats_input, reader);
    if (!file) return FailInput(file.error());
    std::string out;
    Status st = PrintStats(**file, &out);
    WriteOut(out);
    return st ? 0 : Fail(st.error());
  }
  if (*bidlist) {
    auto file = OpenInput(bid_input, reader);
    if (!file) return FailInput(file.error());
    if ((*file)->streaming()) {
      // A stream's HEADER_BUILD_ID records come at its end.
      ReadStats rs;
      Status st = (*file)->ReadRecords([](const RecordView&) {}, &rs);
      if (!st) return Fail(st.error());
      PrintReadProblems(rs, {});
    }
    for (const auto& b : (*file)->env().build_ids) fmt::print("{} {}\n", b.build_id.ToHex(), EscapeControl(b.filename));
    return 0;
  }
  return 0;
}
