// `perflens annotate`: perf annotate --stdio, per-instruction shares of a
// symbol's self samples over its disassembled code.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "perfdata/perf_file.h"
#include "report/annotate.h"

namespace perflens {
namespace {

struct AnnotateArgs {
  std::string input = "perf.data";
  std::string symbol_arg;  // perf's positional [<symbol>]
  bool stdio = false;
  bool quiet = false;  // -q
  AnnotateOptions options;
  ReaderOptions* reader = nullptr;
};

int RunAnnotate(AnnotateArgs& a) {
  AnnotateOptions& o = a.options;
  if (o.symbol.empty()) o.symbol = a.symbol_arg;
  auto file = OpenInput(a.input, *a.reader);
  if (!file) {
    PrintError(file.error().message);
    return kExitInputError;
  }
  o.progress = StderrProgress(a.quiet);
  auto annotate = Annotate::Create(file->get(), o);
  if (!annotate) {
    PrintError(annotate.error().message);
    return 1;
  }
  Status st = (*annotate)->Process();
  if (!st) {
    PrintError(st.error().message);
    return 1;
  }
  const std::vector<const AnnotatedSymbol*> selected = (*annotate)->Selected();
  if (selected.empty()) {
    // The summary says why samples have no symbol (a DSO whose file was not found).
    PrintReadProblems((*annotate)->read_stats(), (*annotate)->SummaryLines(), a.quiet);
    if (!o.symbol.empty())
      PrintError(
          fmt::format("no samples in a symbol named '{}' (names as "
                      "perflens report prints them)",
                      o.symbol));
    else
      PrintError("no samples in any symbol");
    return 1;
  }
  // As perf: a symbol that cannot be annotated is reported once per DSO and the
  // others of that DSO are skipped (dso->annotate_warned); the rest are
  // printed.
  std::vector<const Dso*> warned;
  std::string out;
  int printed = 0;
  std::string last_error;
  for (const AnnotatedSymbol* s : selected) {
    if (std::find(warned.begin(), warned.end(), s->dso) != warned.end()) continue;
    Status ps = (*annotate)->Print(*s, &out);
    if (!ps) {
      warned.push_back(s->dso);
      last_error = ps.error().message;
      if (!o.symbol.empty() || selected.size() == 1) continue;
      fwrite(out.data(), 1, out.size(), stdout);
      out.clear();
      fflush(stdout);
      PrintWarning(ps.error().message);
      continue;
    }
    ++printed;
    if (out.size() > (1u << 20)) {
      fwrite(out.data(), 1, out.size(), stdout);
      out.clear();
    }
  }
  fwrite(out.data(), 1, out.size(), stdout);
  fflush(stdout);
  if (printed == 0) {
    PrintError(last_error);
    return 1;
  }
  PrintReadProblems((*annotate)->read_stats(), (*annotate)->SummaryLines(), a.quiet);
  return 0;
}

}  // namespace

CommandRunner RegisterAnnotateCommand(CLI::App* app, ReaderOptions* reader) {
  auto args = std::make_shared<AnnotateArgs>();
  args->reader = reader;
  CLI::App* cmd = app->add_subcommand("annotate",
                                      "Per-instruction sample shares of a symbol's disassembled "
                                      "code, as perf annotate --stdio");
  AnnotateOptions& o = args->options;
  cmd->add_option("-i,--input", args->input, "Input file (default ./perf.data; - for stdin)");
  cmd->add_option("-s,--symbol", o.symbol, "Symbol to annotate (default: every symbol with samples, hottest first)");
  cmd->add_option("symbol", args->symbol_arg, "Symbol to annotate (as -s)");
  cmd->add_flag("--stdio", args->stdio, "Plain text output (the only one)");
  AddQuietFlag(cmd, &args->quiet);
  cmd->add_flag("-l,--print-line", o.print_line, "Print the sorted summary of the hottest source lines");
  cmd->add_flag("-P,--full-paths", o.full_path, "Whole DSO and source file paths");
  AddSymbolOptions(cmd, &o.symbolize);
  AddParallelReadOption(cmd, &o.parallel_read);
  AddForceOption(cmd, reader);
  return [args]() { return RunAnnotate(*args); };
}

}  // namespace perflens
