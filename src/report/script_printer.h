// Script: `perf script` for sample events — reads the file in perf's order, rebuilds the
// Machine, resolves each sample (and its callchain) and prints one block per sample with
// perf 6.1's layout (builtin-script.c process_event, evsel_fprintf.c); or, with
// `-F folded`, aggregates the stacks into flamegraph "folded" lines (export/folded.h).
//
// Addresses printed: the sample line shows the raw ip; callchain lines show
// Map::MapIp(ip) for user DSOs (perf: "binary offset for userspace") and the raw ip for
// kernel DSOs and frames in no map. E.g. PIE /tmp/hot mapped at 0x5632c9815000 pgoff
// 0x1000, ip 0x5632c98163a0 → callchain line "\t            13a0 hash_mix+0x30 (/tmp/hot)".
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "export/folded.h"
#include "report/tracepoint_formatter.h"
#include "perfdata/perf_file.h"
#include "session/session.h"

namespace perflens {

class TextBuffer;

// -F fields (perf's PERF_OUTPUT_* subset).
enum ScriptField : uint32_t {
  kFieldComm = 1u << 0,
  kFieldTid = 1u << 1,
  kFieldPid = 1u << 2,
  kFieldTime = 1u << 3,
  kFieldCpu = 1u << 4,
  kFieldEvent = 1u << 5,
  kFieldIp = 1u << 6,
  kFieldSym = 1u << 7,
  kFieldSymOff = 1u << 8,
  kFieldDso = 1u << 9,
  kFieldPeriod = 1u << 10,
  kFieldSrcline = 1u << 11,  // each callchain frame's source line, on a line of its own
  kFieldTrace = 1u << 12,    // a tracepoint's payload (report/tracepoint_formatter.h)
  kFieldAddr = 1u << 13,     // PERF_SAMPLE_ADDR ("%16lx"; a page fault's also as sym/dso)
  kFieldWeight = 1u << 14,   // PERF_SAMPLE_WEIGHT or WEIGHT_STRUCT's low 32 bits ("%16lu")
  kFieldBrstack = 1u << 28,     // the branch stack: from/to addresses and flags
  kFieldBrstackSym = 1u << 29,  // the same with symbols (brstack wins when both are asked)
};

// perf's output types of -F (builtin-script.c output_type()): a `type:` prefix names
// one; an event whose attr.type is none of these is kOutputOther.
enum ScriptOutputType : uint8_t {
  kOutputHardware,    // "hw"
  kOutputSoftware,    // "sw"
  kOutputTracepoint,  // "trace"
  kOutputHwCache,     // (no prefix)
  kOutputRaw,         // "raw"
  kOutputBreakpoint,  // "break"
  kOutputSynth,       // "synth"
  kOutputOther,
  kOutputTypes,
};
ScriptOutputType ScriptOutputTypeOf(uint32_t attr_type);

// The fields of one output type (perf's output[type]).
struct ScriptTypeFields {
  uint32_t fields = 0;
  uint32_t user_set_fields = 0;  // set by a list without `type:`: missing in the recording is an error
  bool user_set = false;         // some -F named this type (drops the tracepoints' callchain defaults)
  bool wildcard_set = false;     // false with user_set: `type:` with no field ("trace:")
};

// All -F arguments applied in order (perf's parse_output_fields): a list without a
// `type:` prefix applies to every type (but where the field is invalid: `trace` for
// hw/sw/hw-cache), one with a prefix to that type only; a list of `+f`/`-f` changes the
// current fields, other lists replace them. `flags` is not per type.
struct ScriptFieldSpec {
  ScriptFieldSpec();  // perf 6.1's defaults
  std::array<ScriptTypeFields, kOutputTypes> types;
  bool print_flags = false;  // -F flags: the sample's branch flags column
  bool folded = false;       // -F folded (perflens): folded stacks
  bool set_by_user = false;  // some -F was given
  std::vector<std::string> warnings;  // perf's warnings ("Overriding previous field request ...")
};
// Applies one -F argument. Errors carry perf's text (its exit code is 129).
Status ApplyScriptFields(std::string_view arg, ScriptFieldSpec* spec);
// Every -F argument in order; none: the defaults.
Result<ScriptFieldSpec> ParseScriptFields(std::span<const std::string> args);
// One -F argument; "": the defaults.
Result<ScriptFieldSpec> ParseScriptFields(std::string_view arg);

// The fields printed for `evsel` (perf's evsel__check_attr on the first evsel of the
// type, then perf_session__check_output_opt's tracepoint rule: with callchains in use
// and no -F for tracepoints, ip, sym, symoff and dso too). A field whose sample_type bit
// is missing is dropped, or an error with perf's message when a list without `type:`
// asked for it (perf exits 255).
Result<uint32_t> ResolveScriptFields(const ScriptFieldSpec& spec, const Evsel& evsel, bool use_callchain = true);
// Every evsel's fields, resolved against the first evsel of its output type; and
// perf's "<type> events do not exist" when `type:` named a type without fields or evsels.
Result<std::vector<uint32_t>> ResolveEvselFields(const ScriptFieldSpec& spec, std::span<const Evsel> evsels,
                                                 bool use_callchain);

struct ScriptOptions {
  // -F, each as given, applied in order; none → perf's defaults; "folded" → folded stacks.
  std::vector<std::string> fields;
  bool folded_weight_period = false;  // --folded-weight period (default: sample count)
  bool hide_call_graph = false;     // -G
  int max_stack = 127;              // --max-stack
  bool inline_frames = true;        // --inline / --no-inline (DWARF-unwound frames)
  bool adjust_return_addresses = true;  // --no-return-address-adjust: false (perf 6.1's lookup)
  std::vector<std::string> comms;   // --comms
  std::vector<uint32_t> pids, tids; // --pid, --tid
  std::vector<std::string> dsos, symbols;  // --dsos, -S/--symbols: only samples there
  std::string time;                 // --time (session/time_cpu_filter.h)
  std::string cpu_list;             // -C/--cpu
  // The time field: --ns prints nanoseconds ("%5lu.%09lu"), --reltime counts from the
  // first printed sample, --deltatime from the one printed before.
  bool ns = false, reltime = false, deltatime = false;
  // Side-band lines: COMM, FORK, EXIT (--show-task-events); MMAP, MMAP2 (--show-mmap-events);
  // SWITCH, SWITCH_CPU_WIDE (--show-switch-events); LOST (--show-lost-events);
  // NAMESPACES, CGROUP, KSYMBOL + BPF_EVENT (--show-namespace/cgroup/bpf-events);
  // FINISHED_ROUND (--show-round-events: read in file order then, as perf does).
  bool show_task_events = false, show_mmap_events = false;
  bool show_switch_events = false, show_lost_events = false, show_round_events = false;
  bool show_namespace_events = false, show_cgroup_events = false, show_bpf_events = false;
  // --json: one JSON object per sample and line (NDJSON) instead of the text; -F is
  // not used (ScriptWriter::set_json has the fields).
  bool json = false;
  SymbolizeOptions symbolize;
  SessionProgressFn progress;  // Session::Run's progress calls (SessionOptions::progress)
};

using ScriptCounters = SessionCounters;

// The per-sample text of perf script as a session consumer. Callchains come on demand
// (SampleNeeds::callchain_on_demand), so it runs on the resolving thread and resolves
// only the frames whose line it has not cached.
class ScriptWriter : public SampleConsumer {
 public:
  static constexpr size_t kFlushBytes = 1 << 16;
  using WriteFn = std::function<void(std::string_view)>;
  // `fields` and `chains` per evsel (chains: callchain lines are printed).
  ScriptWriter(const PerfFile& file, std::vector<uint32_t> fields, std::vector<bool> chains);
  // The time field's form (ScriptOptions::ns, reltime, deltatime).
  void set_time_format(bool ns, bool reltime, bool deltatime) {
    ns_ = ns;
    reltime_ = reltime;
    deltatime_ = deltatime;
  }
  // -F flags: perf_sample__fprintf_flags' column after the event name (samples without
  // AUX-trace flags print it blank).
  void set_print_flags(bool print_flags) { print_flags_ = print_flags; }
  // --json: each sample as one line {"comm", "pid", "tid", "cpu", "time" (ns; both
  // null when not recorded), "event", "period", "ip", "sym", "symoff", "dso",
  // ["dso_addr"], ["callchain": [{"ip", "sym", "symoff", "dso", ["dso_addr"]}] leaf
  // first, when the evsel has callchains]}; "sym"/"symoff" null when unresolved, "ip"
  // the runtime address, "dso_addr" its address in the dso (what the text's callchain
  // lines print for user dsos); DWARF frames are not expanded into their inline
  // frames. Side-band lines are not printed.
  void set_json(bool json) { json_ = json; }
  // Where the text goes (set before the session runs).
  void set_write(WriteFn write) { write_ = std::move(write); }
  // Names kernel addresses in tracepoint payloads (%pS), on the resolving thread.
  void set_kernel_resolver(Resolver* resolver);
  // Where -F srcline looks lines up (the session's; set before it runs).
  void set_symbolizer(Symbolizer* symbolizer) { symbolizer_ = symbolizer; }
  ~ScriptWriter() override;
  void OnSample(const ResolvedSample& s) override;
  // --show-task-events / --show-mmap-events: perf's print_event line for the record.
  void OnSideBand(const SideBandRecord& r) override;
  void Finish() override;  // writes what is buffered

 private:
  // One callchain line ("\t%16lx sym+0x%lx (dso)\n", per `fields`), from frame_lines_
  // when it was printed before in the same state of the same address space.
  // `with_inlines`: a DWARF-unwound entry, printed as its inline frames (perf's
  // append_inlines), one line each. `return_address`: looked up at ip - 1
  // (FrameSource::looks_up_before).
  // perf_sample__fprintf_brstack / _brstacksym: each entry as "from/to/flags".
  void PrintBranchStack(const ResolvedSample& s, uint32_t fields);
  void PrintJson(const ResolvedSample& s);
  void PrintFrame(FrameSource* source, const Thread* thread, uint16_t cpumode, uint64_t ip, uint32_t fields,
                  bool with_inlines, bool return_address);

  // The time printed for a sample at `time` (ns), per --reltime/--deltatime.
  uint64_t PrintedTime(uint64_t time);
  // perf_sample__fprintf_start: comm, pid/tid, cpu and time as fields `f` say.
  char* PutStart(char* p, uint32_t f, bool chain, const std::string& comm, int pid, int tid, uint32_t cpu,
                 uint64_t time);

  const PerfFile& file_;
  bool ns_ = false, reltime_ = false, deltatime_ = false;
  bool print_flags_ = false;
  bool json_ = false;
  Resolver* resolver_ = nullptr;  // -F addr's sym/dso (the kernel resolver's)
  // perf_sample__fprintf_addr: "%16lx", and for page faults the address's sym and dso.
  char* PutAddr(char* p, const ResolvedSample& s, const Evsel& ev, uint32_t f);
  uint64_t initial_time_ = 0, previous_time_ = 0;
  std::unique_ptr<TracepointFormatter> tracepoints_;  // with the file's tracing data
  std::vector<uint32_t> fields_;   // per evsel
  std::vector<bool> chains_;       // per evsel
  size_t name_width_ = 0;
  WriteFn write_;
  std::unique_ptr<TextBuffer> out_;
  std::string scratch_;
  std::string scratch_branch_;  // PrintBranchStack's text
  // Callchain lines repeat (fp.data: 2.9M lines, 10K distinct), so the text of recent
  // ones is kept, direct-mapped by (Maps::id, Maps::generation, ip, fields): the same
  // state of the same address space resolves an ip the same way, so a hit needs no
  // resolution. Lines longer than `text` are printed uncached.
  struct FrameLine {
    uint64_t maps_id = 0;  // 0: empty
    uint64_t generation = 0;
    uint64_t ip = 0;
    uint8_t fields = 0;  // the sym/symoff/dso bits shifted down, inline/srcline/ip-1 bits
    uint8_t size = 0;
    char text[102] = {};  // copied whole on a hit: keep the tail initialized
  };
  static constexpr size_t kFrameLines = 8192;
  std::vector<FrameLine> frame_lines_;  // kFrameLines when callchains are printed
  std::vector<const Symbol*> inline_syms_;  // PrintFrame's inline frames, reused
  Symbolizer* symbolizer_ = nullptr;
  // -F srcline: the text under a frame (perf's callchain srcline), "" for none;
  // `frame`: its inline frame at the address, when the entry was expanded.
  std::string SrclineUnder(const AddrLocation& al, const SymbolFrame* frame);
  std::vector<std::string> srcline_texts_;  // PrintFrame's, per line, reused
};

// `perf script`'s front-end: the fields per evsel resolved against the file, a Session
// that resolves what they print, and a ScriptWriter (or, with -F folded, the folded
// stacks of export/folded.h) consuming it.
class Script {
 public:
  static constexpr size_t kFlushBytes = ScriptWriter::kFlushBytes;
  // Receives the text in order, in chunks of about kFlushBytes.
  using WriteFn = ScriptWriter::WriteFn;

  ~Script();
  // Errors: bad -F, or a requested field the recording lacks.
  static Result<std::unique_ptr<Script>> Create(PerfFile* file, const ScriptOptions& options);

  // Reads every record and hands the text to `write`. Folded lines come at the end.
  Status Run(const WriteFn& write);

  const ScriptCounters& counters() const { return session_->counters(); }
  const ReadStats& read_stats() const { return session_->read_stats(); }
  const FoldedStacks& folded() const { return folded_->stacks(); }
  std::vector<std::string> SummaryLines() const;

 private:
  Script() = default;

  std::unique_ptr<Session> session_;
  std::unique_ptr<ScriptWriter> writer_;
  std::unique_ptr<Resolver> kernel_resolver_;  // the writer's tracepoint %pS arguments
  std::unique_ptr<FoldedConsumer> folded_;  // -F folded (always set, empty otherwise)
};

}  // namespace perflens
