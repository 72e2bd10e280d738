// `perflens script`: perf script's per-sample listing, -F fields, folded stacks.
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "perfdata/perf_file.h"
#include "report/script_printer.h"

namespace perflens {
namespace {

struct ScriptArgs {
  std::string input = "perf.data";
  std::string folded_weight = "samples";
  std::vector<std::string> comms, pids, tids;
  bool quiet = false;  // -q
  ScriptOptions options;
  ReaderOptions* reader = nullptr;
};

void Write(std::string_view s) { fwrite(s.data(), 1, s.size(), stdout); }

int RunScript(ScriptArgs& a) {
  ScriptOptions& o = a.options;
  o.comms = SplitCommas(a.comms);
  if (!ParseIds(a.pids, &o.pids) || !ParseIds(a.tids, &o.tids)) {
    fmt::print(stderr, "perflens: --pid/--tid take comma-separated numbers\n");
    return 1;
  }
  if (a.folded_weight != "samples" && a.folded_weight != "period") {
    fmt::print(stderr, "perflens: --folded-weight is samples or period, not '{}'\n", a.folded_weight);
    return 1;
  }
  o.folded_weight_period = a.folded_weight == "period";
  auto file = OpenInput(a.input, *a.reader);
  if (!file) {
    PrintError(file.error().message);
    return kExitInputError;
  }
  auto script = Script::Create(file->get(), o);
  if (!script) {
    PrintError(script.error().message);
    return 1;
  }
  Status st = (*script)->Run(Write);
  fflush(stdout);
  if (!st) {
    PrintError(st.error().message);
    return 1;
  }
  PrintReadProblems((*script)->read_stats(), (*script)->SummaryLines(), a.quiet);
  return 0;
}

}  // namespace

CommandRunner RegisterScriptCommand(CLI::App* app, ReaderOptions* reader) {
  auto args = std::make_shared<ScriptArgs>();
  args->reader = reader;
  CLI::App* cmd = app->add_subcommand("script", "Per-sample listing, as perf script");
  ScriptOptions& o = args->options;
  cmd->add_option("-i,--input", args->input, "Input file (default ./perf.data; - for stdin)");
  cmd->add_option("-F,--fields", o.fields,
                  "Fields: comm,tid,pid,time,cpu,event,ip,sym,symoff,dso,period,srcline (+f/-f change the "
                  "defaults), or 'folded' for folded stacks");
  cmd->add_option("--folded-weight", args->folded_weight, "Folded stack weight: samples (default) or period");
  cmd->add_flag("-G,--hide-call-graph", o.hide_call_graph, "Do not print callchains");
  cmd->add_option("--max-stack", o.max_stack, "Callchain depth limit (default 127)");
  AddInlineFlags(cmd, &o.inline_frames);
  AddReturnAddressFlags(cmd, &o.adjust_return_addresses);
  AddQuietFlag(cmd, &args->quiet);
  AddListOption(cmd, "-c,--comms", &args->comms, "Only these comms");
  AddListOption(cmd, "--pid", &args->pids, "Only these process ids");
  AddListOption(cmd, "--tid", &args->tids, "Only these thread ids");
  AddSymbolOptions(cmd, &o.symbolize);
  AddForceOption(cmd, reader);
  return [args]() { return RunScript(*args); };
}

}  // namespace perflens
