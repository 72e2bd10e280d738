// `perflens script`: perf script's per-sample listing, -F fields, folded stacks.
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "perfdata/perf_event.h"
#include "perfdata/perf_file.h"
#include "report/header_printer.h"
#include "report/script_printer.h"

namespace perflens {
namespace {

struct ScriptArgs {
  std::string input = "perf.data";
  std::string folded_weight = "samples";
  std::vector<std::string> comms, pids, tids, dsos, symbols;
  bool quiet = false;  // -q
  bool header = false, header_only = false;  // --header, --header-only: perf report --header-only's text
  ScriptOptions options;
  ReaderOptions* reader = nullptr;
};

void Write(std::string_view s) { fwrite(s.data(), 1, s.size(), stdout); }

int RunScript(ScriptArgs& a) {
  ScriptOptions& o = a.options;
  o.comms = SplitCommas(a.comms);
  o.dsos = SplitCommas(a.dsos);
  o.symbols = SplitCommas(a.symbols);
  if (o.reltime && o.deltatime) {  // perf's message
    fmt::print(stderr, "perflens: reltime and deltatime - the two don't get along well. Please limit to --reltime or --deltatime.\n");
    return 1;
  }
  if (!ParseIds(a.pids, &o.pids) || !ParseIds(a.tids, &o.tids)) {
    fmt::print(stderr, "perflens: --pid/--tid take comma-separated numbers\n");
    return 1;
  }
  if (a.folded_weight != "samples" && a.folded_weight != "period") {
    fmt::print(stderr, "perflens: --folded-weight is samples or period, not '{}'\n", a.folded_weight);
    return 1;
  }
  o.folded_weight_period = a.folded_weight == "period";
  // -F: perf's usage errors exit 129, its checks against the recording 255.
  auto spec = ParseScriptFields(o.fields);
  if (!spec) {
    fmt::print(stderr, "{}\n", spec.error().message);
    return 129;
  }
  if (o.json && spec->folded) {  // two output formats: refuse rather than pick one
    fmt::print(stderr, "perflens: --json and -F folded are two output formats; pick one\n");
    return 129;
  }
  for (const std::string& w : spec->warnings) fmt::print(stderr, "{}\n", w);
  // --show-round-events: perf reads the records as they are in the file.
  if (o.show_round_events) a.reader->ordered = false;
  auto file = OpenInput(a.input, *a.reader);
  if (!file) {
    PrintError(file.error().message);
    return kExitInputError;
  }
  if (std::optional<int> status = CheckTimeArg(**file, o.time, o.reltime)) return *status;
  if (a.header || a.header_only) Write(FormatHeader(**file));
  if (a.header_only) return 0;
  if (!spec->folded) {
    bool use_callchain = false;
    for (const Evsel& ev : (*file)->evsels())
      if (ev.attr.sample_type & kSampleCallchain) use_callchain = !o.hide_call_graph;
    if (auto fields = ResolveEvselFields(*spec, (*file)->evsels(), use_callchain); !fields) {
      fmt::print(stderr, "{}\n", fields.error().message);
      return 255;
    }
  }
  o.progress = StderrProgress(a.quiet);
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
                  "Fields: [hw:|sw:|trace:|raw:|break:|synth:]comm,tid,pid,time,cpu,event,ip,sym,symoff,dso,"
                  "addr,weight,flags,period,srcline,trace,brstack,brstacksym (+f/-f change the current fields; "
                  "repeat -F per event type), or 'folded' for folded stacks")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_flag("--json", o.json, "One JSON object per sample and line (NDJSON), with its callchain");
  cmd->add_option("--folded-weight", args->folded_weight, "Folded stack weight: samples (default) or period");
  cmd->add_flag("-G,--hide-call-graph", o.hide_call_graph, "Do not print callchains");
  cmd->add_option("--max-stack", o.max_stack, "Callchain depth limit (default 127)");
  AddInlineFlags(cmd, &o.inline_frames);
  AddReturnAddressFlags(cmd, &o.adjust_return_addresses);
  AddQuietFlag(cmd, &args->quiet);
  AddListOption(cmd, "-c,--comms", &args->comms, "Only these comms");
  AddListOption(cmd, "--pid", &args->pids, "Only these process ids");
  AddListOption(cmd, "--tid", &args->tids, "Only these thread ids");
  AddListOption(cmd, "--dsos", &args->dsos, "Only samples in these DSOs");
  AddListOption(cmd, "-S,--symbols", &args->symbols, "Only samples in these symbols");
  cmd->add_option("--time", o.time,
                  "Only samples in these times: START,END (seconds; several separated by spaces) or percent "
                  "slices of the recording (10%/2, 0%-10%,30%-40%)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // perf: the last one given
  cmd->add_option("-C,--cpu", o.cpu_list, "Only samples on these cpus (0-3,6)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  cmd->add_flag("--ns", o.ns, "Times in nanoseconds");
  cmd->add_flag("--header", args->header, "Print the perf.data header first");
  cmd->add_flag("--show-task-events", o.show_task_events, "Print COMM, FORK and EXIT records too");
  cmd->add_flag("--show-mmap-events", o.show_mmap_events, "Print MMAP and MMAP2 records too");
  cmd->add_flag("--show-switch-events", o.show_switch_events, "Print SWITCH and SWITCH_CPU_WIDE records too");
  cmd->add_flag("--show-lost-events", o.show_lost_events, "Print LOST records too");
  cmd->add_flag("--show-round-events", o.show_round_events,
                "Print FINISHED_ROUND records too (records then come in file order)");
  cmd->add_flag("--show-namespace-events", o.show_namespace_events, "Print NAMESPACES records too");
  cmd->add_flag("--show-cgroup-events", o.show_cgroup_events, "Print CGROUP records too");
  cmd->add_flag("--show-bpf-events", o.show_bpf_events, "Print KSYMBOL and BPF_EVENT records too");
  cmd->add_flag("--header-only", args->header_only, "Print only the perf.data header");
  cmd->add_flag("--reltime", o.reltime, "Times relative to the first sample");
  cmd->add_flag("--deltatime", o.deltatime, "Times relative to the previous sample");
  AddSymbolOptions(cmd, &o.symbolize);
  AddForceOption(cmd, reader);
  return [args]() { return RunScript(*args); };
}

}  // namespace perflens
