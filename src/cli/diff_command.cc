// `perflens diff [BASE [NEW...]]`: perf diff --stdio — each file read as a report
// (sorted by dso,sym), rows paired by name across the files, the compute column per
// file.
#include <fmt/format.h>

#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/perf_usage.h"
#include "perfdata/perf_file.h"
#include "report/diff.h"
#include "report/report.h"

namespace perflens {
namespace {

struct DiffArgs {
  std::vector<std::string> files;  // positional: [old [new...]]
  std::string compute;             // -c
  std::string percentage;          // --percentage
  bool stdio = false;              // --stdio (the text output, the default)
  std::string html;                // --html FILE: the differential flame graph instead
  std::vector<std::string> comms, dsos, symbols, pids, tids;
  DiffOptions options;
  ReaderOptions* reader = nullptr;
};

// --html FILE: the new file's samples as the HTML viewer's flame graph, each frame
// coloured by how its share of the samples changed from the baseline's
// (export/export.h ExportHtmlDiff).
int RunDiffHtml(const DiffArgs& a, const std::vector<std::string>& paths) {
  if (paths.size() != 2) {
    PrintError(fmt::format("diff --html compares two files, not {}", paths.size()));
    return kExitUsage;
  }
  std::unique_ptr<PerfFile> files[2];
  ExportOptions options[2];
  for (size_t i = 0; i < 2; ++i) {
    auto file = OpenInput(paths[i], *a.reader);
    if (!file) {
      PrintError(fmt::format("Failed to open {}: {}", paths[i], file.error().message));
      return kExitInputError;
    }
    files[i] = std::move(*file);
    options[i] = ExportOptionsFromReport(DiffReportOptions(a.options, i), ExportFormat::kHtml);
    options[i].progress = StderrProgress(a.options.quiet);
  }
  if (Status st = CheckOutputIsNoInput(a.html, paths); !st) {
    PrintError(st.error().message);
    return kExitUsage;
  }
  std::vector<ExportFileProblems> problems;
  Result<std::string> page = ExportHtmlDiff(files[0].get(), options[0], files[1].get(), options[1], &problems);
  if (!page) {
    PrintError(page.error().message);
    return 1;
  }
  if (Status st = WriteOutputFile(a.html, *page); !st) {
    PrintError(st.error().message);
    return 1;
  }
  if (!a.options.quiet)
    fmt::print(stderr, "perflens: wrote {} ({} bytes); open it in any browser\n", a.html, page->size());
  for (const ExportFileProblems& p : problems) PrintReadProblems(p.read_stats, p.summary_lines, a.options.quiet);
  return 0;
}

int RunDiff(DiffArgs& a) {
  DiffOptions& o = a.options;
  // Option values perf's parser refuses exit with its usage status.
  if (!a.compute.empty()) {
    if (Status st = ParseDiffCompute(a.compute, &o); !st) {
      PrintError(st.error().message);
      return kExitUsage;
    }
  }
  if (!a.percentage.empty()) {
    if (a.percentage != "relative" && a.percentage != "absolute") {
      PrintError("--percentage is relative or absolute, not '" + a.percentage + "'");
      return kExitUsage;
    }
    o.percentage_relative = a.percentage == "relative";
  }
  o.comms = SplitCommas(a.comms);
  o.dsos = SplitCommas(a.dsos);
  o.symbols = SplitCommas(a.symbols);
  if (!ParseIds(a.pids, &o.pids) || !ParseIds(a.tids, &o.tids)) {
    PrintError("--pid/--tid take comma-separated ids");
    return 1;
  }
  // perf diff colours when its output is a terminal (color.ui auto); the pager keeps it.
  o.color = isatty(STDOUT_FILENO);
  // perf's data_init: no file → perf.data.old and perf.data; one → perf.data.old and it.
  std::vector<std::string> paths = a.files;
  if (paths.empty()) paths = {"perf.data.old", "perf.data"};
  else if (paths.size() == 1) paths.insert(paths.begin(), "perf.data.old");
  if (o.order >= paths.size()) {
    PrintError("Order option out of limit.");
    return kExitInputError;  // perf's -1
  }
  if (!a.html.empty()) return RunDiffHtml(a, paths);
  std::vector<std::unique_ptr<PerfFile>> files;
  std::vector<std::unique_ptr<Report>> reports;
  std::vector<DiffInput> inputs;
  for (const std::string& path : paths) {
    auto file = OpenInput(path, *a.reader);
    if (!file) {
      PrintError(fmt::format("Failed to open {}: {}", path, file.error().message));
      return kExitInputError;
    }
    ReportOptions ro = DiffReportOptions(o, reports.size());
    ro.progress = StderrProgress(o.quiet);
    auto report = Report::Create(file->get(), ro);
    if (!report) {
      PrintError(report.error().message);
      return 1;
    }
    if (Status st = (*report)->Process(); !st) {
      PrintError(fmt::format("Failed to process {}: {}", path, st.error().message));
      return 1;
    }
    files.push_back(std::move(*file));
    reports.push_back(std::move(*report));
    inputs.push_back({reports.back().get(), path});
  }
  std::string out;
  if (Status st = PrintDiffStdio(inputs, o, &out); !st) {
    PrintError(st.error().message);
    return 1;
  }
  fwrite(out.data(), 1, out.size(), stdout);
  fflush(stdout);
  for (const auto& r : reports) PrintReadProblems(r->read_stats(), r->SummaryLines(), o.quiet);
  return 0;
}

}  // namespace

CommandRunner RegisterDiffCommand(CLI::App* app, ReaderOptions* reader) {
  auto args = std::make_shared<DiffArgs>();
  args->reader = reader;
  CLI::App* cmd = app->add_subcommand("diff", "Differences between two or more recordings, as perf diff --stdio");
  DiffOptions& o = args->options;
  cmd->add_option("files", args->files, "[old_file] [new_file...] (default perf.data.old perf.data)");
  cmd->add_option("-c,--compute", args->compute, "delta, delta-abs (default), ratio or wdiff:w1,w2");
  cmd->add_option("-o,--order", o.order, "Sort by this file's compute column first (default 1; 0: by baseline)");
  cmd->add_flag("-p,--period", o.show_period, "Show period values");
  cmd->add_flag("-F,--formula", o.show_formula, "Show formula");
  cmd->add_flag("-b,--baseline-only", o.baseline_only, "Show only items with match in baseline");
  cmd->add_option("-s,--sort", o.sort, "Sort keys (default dso,sym)");
  cmd->add_option("-t,--field-separator", o.field_separator, "Separator between columns (values still padded to the column widths, as perf diff)");
  cmd->add_option("--percentage", args->percentage,
                  "relative: percentages of what the filters keep; absolute (default): of all samples");
  cmd->add_option("--cpu", o.cpu_list, "Only samples of these CPUs");
  cmd->add_option("--time", o.time,
                  "Time span: percent slices of each file (0%-50%) or absolute ranges per file (a,b:c,d)");
  AddListOption(cmd, "-C,--comms", &args->comms, "Only these comms");
  AddListOption(cmd, "-d,--dsos", &args->dsos, "Only these DSOs");
  AddListOption(cmd, "-S,--symbols", &args->symbols, "Only these symbols");
  AddListOption(cmd, "--pid", &args->pids, "Only these process ids");
  AddListOption(cmd, "--tid", &args->tids, "Only these thread ids");
  cmd->add_flag("--stdio", args->stdio, "Plain text output (the default)");
  cmd->add_option("--html", args->html,
                  "Write a differential flame graph of two files to this HTML file instead (red: a larger "
                  "share than in the baseline, blue: smaller)");
  AddQuietFlag(cmd, &o.quiet);
  AddSymbolOptions(cmd, &o.symbolize);
  AddParallelReadOption(cmd, &o.parallel_read);
  AddForceOption(cmd, reader);
  return [args]() { return RunDiff(*args); };
}

}  // namespace perflens
