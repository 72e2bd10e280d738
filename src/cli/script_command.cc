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
  ScriptOptions options;
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
  auto file = PerfFile::Open(a.input);
  if (!file) {
    PrintError(file.error().message);
    return 1;
  }
  for (const auto& w : (*file)->env().warnings) PrintWarning(w);
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
  const ReadStats& rs = (*script)->read_stats();
  if (rs.stopped) PrintWarning(rs.stopped->message);
  if (rs.nr_bad_records) fmt::print(stderr, "perflens: warning: {} malformed records skipped\n", rs.nr_bad_records);
  for (const auto& w : rs.warnings) PrintWarning(w);
  for (const auto& line : (*script)->SummaryLines()) PrintError(line);
  return 0;
}

}  // namespace

CommandRunner RegisterScriptCommand(CLI::App* app) {
  auto args = std::make_shared<ScriptArgs>();
  CLI::App* cmd = app->add_subcommand("script", "Per-sample listing, as perf script");
  ScriptOptions& o = args->options;
  cmd->add_option("-i,--input", args->input, "Input file (default ./perf.data; - for stdin)");
  cmd->add_option("-F,--fields", o.fields,
                  "Fields: comm,tid,pid,time,cpu,event,ip,sym,symoff,dso,period (+f/-f change the "
                  "defaults), or 'folded' for folded stacks");
  cmd->add_option("--folded-weight", args->folded_weight, "Folded stack weight: samples (default) or period");
  cmd->add_flag("-G,--hide-call-graph", o.hide_call_graph, "Do not print callchains");
  cmd->add_option("--max-stack", o.max_stack, "Callchain depth limit (default 127)");
  AddListOption(cmd, "-c,--comms", &args->comms, "Only these comms");
  AddListOption(cmd, "--pid", &args->pids, "Only these process ids");
  AddListOption(cmd, "--tid", &args->tids, "Only these thread ids");
  SymbolizeOptions& so = o.symbolize;
  cmd->add_option("--symfs", so.symfs, "Look for files relative to this directory");
  cmd->add_option("--buildid-dir", so.buildid_dir, "Build-id cache directory (default ~/.debug or $PERF_BUILDID_DIR)");
  cmd->add_option("--kallsyms", so.kallsyms, "kallsyms file for kernel symbols");
  cmd->add_option("-k,--vmlinux", so.vmlinux, "vmlinux file for kernel symbols");
  cmd->add_option("--vdso", so.vdso_image, "vdso image to use when its build-id matches the recorded one");
  cmd->add_flag("!--no-demangle", so.demangle, "Do not demangle C++ symbols");
  return [args]() { return RunScript(*args); };
}

}  // namespace perflens
