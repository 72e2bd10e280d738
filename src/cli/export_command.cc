// `perflens export`: the samples in another tool's format — pprof's gzipped
// profile.proto, folded stacks, a speedscope document, a Firefox Profiler processed
// profile, report's JSON with call chains or a self-contained HTML viewer — with perf
// report's filters.
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/perf_usage.h"
#include "export/export.h"
#include "perfdata/perf_file.h"
#include "report/json_printer.h"
#include "report/report.h"

namespace perflens {

Status WriteOutputFile(const std::string& path, const std::string& bytes) {
  FILE* f = path == "-" ? stdout : std::fopen(path.c_str(), "wb");
  if (!f) return Err("cannot create {}: {}", path, std::strerror(errno));
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  const bool closed = f == stdout ? std::fflush(f) == 0 : std::fclose(f) == 0;
  if (!ok || !closed) return Err("cannot write {}: {}", path, std::strerror(errno));
  return {};
}

Status CheckOutputIsNoInput(const std::string& output, const std::vector<std::string>& inputs) {
  struct stat out;
  if (output == "-" || stat(output.c_str(), &out) != 0) return {};
  for (const std::string& input : inputs) {
    struct stat in;
    if (input != "-" && stat(input.c_str(), &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
      return Err("refusing to write {}: it is the input file {}", output, input);
  }
  return {};
}

ExportOptions ExportOptionsFromReport(const ReportOptions& r, ExportFormat format) {
  ExportOptions o;
  o.format = format;
  o.comms = r.comms;
  o.dsos = r.dsos;
  o.symbols = r.symbols;
  o.pids = r.pids;
  o.tids = r.tids;
  o.time = r.time;
  o.cpu_list = r.cpu_list;
  o.hide_unresolved = r.hide_unresolved;
  o.max_stack = r.max_stack;
  o.inline_frames = r.inline_frames;
  o.adjust_return_addresses = r.adjust_return_addresses;
  o.symbolize = r.symbolize;
  o.use_threads = r.use_threads;
  return o;
}

namespace {

struct ExportArgs {
  std::string input = "perf.data";
  std::string output;
  std::string format = "pprof";
  std::string folded_weight = "samples";
  std::vector<std::string> comms, dsos, symbols, pids, tids;
  bool quiet = false;
  ExportOptions options;
  ReaderOptions* reader = nullptr;
};

// --format json: `perflens report --json` with report's defaults (Children and the call
// graph when the recording has callchains) and export's filters: the report engine
// writes it, so its rows and numbers are the text report's.
int RunJsonExport(ExportArgs& a, PerfFile* file) {
  if (Status st = CheckOutputIsNoInput(a.output, {a.input}); !st) {
    PrintError(st.error().message);
    return kExitUsage;
  }
  const ExportOptions& e = a.options;
  ReportOptions o;
  o.format = "json";
  o.comms = e.comms;
  o.dsos = e.dsos;
  o.symbols = e.symbols;
  o.pids = e.pids;
  o.tids = e.tids;
  o.time = e.time;
  o.cpu_list = e.cpu_list;
  o.hide_unresolved = e.hide_unresolved;
  o.max_stack = e.max_stack;
  o.inline_frames = e.inline_frames;
  o.adjust_return_addresses = e.adjust_return_addresses;
  o.symbolize = e.symbolize;
  o.use_threads = e.use_threads;
  o.progress = e.progress;
  auto report = Report::Create(file, o);
  if (!report) {
    PrintError(report.error().message);
    return 1;
  }
  Status st = (*report)->Process();
  std::string out;
  if (st) st = PrintReportJson(**report, &out);
  if (st) st = WriteOutputFile(a.output, out);
  if (!st) {
    PrintError(st.error().message);
    return 1;
  }
  PrintReadProblems((*report)->read_stats(), (*report)->SummaryLines(), a.quiet);
  return 0;
}

int RunExport(ExportArgs& a) {
  ExportOptions& o = a.options;
  const bool json = a.format == "json";
  if (a.format == "pprof") {
    o.format = ExportFormat::kPprof;
  } else if (a.format == "folded") {
    o.format = ExportFormat::kFolded;
  } else if (a.format == "speedscope") {
    o.format = ExportFormat::kSpeedscope;
  } else if (a.format == "firefox") {
    o.format = ExportFormat::kFirefox;
  } else if (a.format == "html") {
    o.format = ExportFormat::kHtml;
  } else if (!json) {
    PrintError(fmt::format("export: --format is pprof, folded, speedscope, firefox, json or html, not '{}'", a.format));
    return kExitUsage;
  }
  if (a.folded_weight != "samples" && a.folded_weight != "period") {
    PrintError(fmt::format("export: --folded-weight is samples or period, not '{}'", a.folded_weight));
    return kExitUsage;
  }
  o.folded_weight_period = a.folded_weight == "period";
  if (a.output.empty()) {
    if (!json && o.format == ExportFormat::kPprof) {
      PrintError("export: -o FILE is needed for pprof (a gzipped profile.proto)");
      return kExitUsage;
    }
    if (o.format == ExportFormat::kHtml) {
      PrintError("export: -o FILE is needed for html");
      return kExitUsage;
    }
    a.output = "-";
  }
  o.comms = SplitCommas(a.comms);
  o.dsos = SplitCommas(a.dsos);
  o.symbols = SplitCommas(a.symbols);
  if (!ParseIds(a.pids, &o.pids)) {
    PrintError("--pid takes comma-separated process ids");
    return 1;
  }
  if (!ParseIds(a.tids, &o.tids)) {
    PrintError("--tid takes comma-separated thread ids");
    return 1;
  }
  if (!json) return RunExportToFile(a.input, *a.reader, o, a.output, a.quiet);
  auto file = OpenInput(a.input, *a.reader);
  if (!file) {
    PrintError(file.error().message);
    return kExitInputError;
  }
  o.progress = StderrProgress(a.quiet);
  return RunJsonExport(a, file->get());
}

}  // namespace

int RunExportToFile(const std::string& input, const ReaderOptions& reader, ExportOptions& o,
                    const std::string& output, bool quiet) {
  if (Status st = CheckOutputIsNoInput(output, {input}); !st) {
    PrintError(st.error().message);
    return kExitUsage;
  }
  auto file = OpenInput(input, reader);
  if (!file) {
    PrintError(file.error().message);
    return kExitInputError;
  }
  o.progress = StderrProgress(quiet);
  auto exp = Export::Create(file->get(), o);
  if (!exp) {
    PrintError(exp.error().message);
    return 1;
  }
  Status st = (*exp)->Process();
  if (!st) {
    PrintError(st.error().message);
    return 1;
  }
  auto bytes = (*exp)->Output();
  if (!bytes) {
    PrintError(bytes.error().message);
    return 1;
  }
  st = WriteOutputFile(output, *bytes);
  if (!st) {
    PrintError(st.error().message);
    return 1;
  }
  if (const HtmlConsumer* html = (*exp)->html(); html && !quiet)
    fmt::print(stderr, "perflens: wrote {} ({} bytes: {} samples, {} stacks, {} frames); open it in any browser\n",
               output, bytes->size(), html->total_samples(), html->nr_stacks(), html->nr_frames());
  PrintReadProblems((*exp)->read_stats(), (*exp)->SummaryLines(), quiet);
  return 0;
}

CommandRunner RegisterExportCommand(CLI::App* app, ReaderOptions* reader) {
  auto args = std::make_shared<ExportArgs>();
  args->reader = reader;
  CLI::App* cmd = app->add_subcommand(
      "export",
      "Write the samples for another tool: pprof (gzipped profile.proto), folded stacks, speedscope (JSON), "
      "firefox (Firefox Profiler processed profile, JSON), json (report --json with call chains) or html (one "
      "self-contained HTML viewer: flame graph, trees; no network needed)");
  ExportOptions& o = args->options;
  cmd->add_option("-i,--input", args->input, "Input file (default ./perf.data; - for stdin)");
  cmd->add_option("-o,--output", args->output, "Output file (pprof, html: required; others: default stdout, or -)");
  cmd->add_option("--format", args->format, "pprof (default), folded, speedscope, firefox, json or html");
  cmd->add_option("--folded-weight", args->folded_weight, "Folded and speedscope weight: samples (default) or period");
  cmd->add_option("--time", o.time,
                  "Only samples in these times: START,END (seconds; several separated by spaces) or percent "
                  "slices of the recording (10%/2, 0%-10%,30%-40%)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  cmd->add_option("-C,--cpu", o.cpu_list, "Only samples on these cpus (0-3,6)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  cmd->add_flag("-U,--hide-unresolved", o.hide_unresolved,
                "Leave out samples and callchain entries without a symbol");
  cmd->add_option("--max-stack", o.max_stack, "Callchain depth limit (default 127)");
  AddInlineFlags(cmd, &o.inline_frames);
  AddReturnAddressFlags(cmd, &o.adjust_return_addresses);
  AddQuietFlag(cmd, &args->quiet);
  AddListOption(cmd, "-c,--comms", &args->comms, "Only these comms");
  AddListOption(cmd, "-d,--dsos", &args->dsos, "Only samples in these DSOs");
  AddListOption(cmd, "-S,--symbols", &args->symbols, "Only samples in these symbols");
  AddListOption(cmd, "--pid", &args->pids, "Only these process ids");
  AddListOption(cmd, "--tid", &args->tids, "Only these thread ids");
  AddSymbolOptions(cmd, &o.symbolize);
  AddForceOption(cmd, reader);
  return [args]() { return RunExport(*args); };
}

}  // namespace perflens
