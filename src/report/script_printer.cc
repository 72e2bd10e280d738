#include "report/script_printer.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "perfdata/perf_event.h"
#include "report/branch_type.h"
#include "report/srcline.h"
#include "report/text_buffer.h"
#include "session/dso_name.h"
#include "session/time_cpu_filter.h"
#include "base/text_escape.h"

namespace perflens {
namespace {

struct FieldName {
  const char* name;
  uint32_t bit;
  uint64_t sample_type;  // bits the recording must have one of; 0 = none
  const char* attr_name; // perf's name of that bit in its error message
};

constexpr uint32_t kPerfTypeSynth = 0x80000000u;  // PERF_TYPE_SYNTH (perf's own events)

// In perf 6.1's evsel__check_attr order (its first failing check names the error).
constexpr FieldName kFieldNames[] = {
    {"ip", kFieldIp, kSampleIp, "IP"},
    {"addr", kFieldAddr, kSampleAddr, "ADDR"},
    {"weight", kFieldWeight, kSampleWeight | kSampleWeightStruct, "WEIGHT"},
    {"tid", kFieldTid, kSampleTid, "TID"},
    {"pid", kFieldPid, kSampleTid, "TID"},
    {"time", kFieldTime, kSampleTime, "TIME"},
    {"cpu", kFieldCpu, kSampleCpu, "CPU"},
    {"comm", kFieldComm, 0, ""},
    {"event", kFieldEvent, 0, ""},
    {"sym", kFieldSym, 0, ""},
    {"symoff", kFieldSymOff, 0, ""},
    {"dso", kFieldDso, 0, ""},
    {"period", kFieldPeriod, 0, ""},  // attr.sample_period when not sampled; perf 6.1 does not check
    {"srcline", kFieldSrcline, 0, ""},
    // perf 6.1 does not check these against sample_type: an event without branch
    // stacks (a dummy beside an LBR event, a cs_etm event) prints none.
    {"brstack", kFieldBrstack, 0, ""},
    {"brstacksym", kFieldBrstackSym, 0, ""},
    {"trace", kFieldTrace, 0, ""},
};

// perf 6.1's defaults for hardware, software, raw, breakpoint and synth events.
constexpr uint32_t kDefaultFields = kFieldComm | kFieldTid | kFieldTime | kFieldCpu | kFieldEvent | kFieldIp |
                                    kFieldSym | kFieldSymOff | kFieldDso | kFieldPeriod;
// And for tracepoints; with callchains perf adds the ip's (perf_session__check_output_opt).
constexpr uint32_t kTracepointDefaultFields = kFieldComm | kFieldTid | kFieldTime | kFieldCpu | kFieldEvent |
                                              kFieldTrace;
constexpr uint32_t kTracepointChainFields = kFieldIp | kFieldSym | kFieldSymOff | kFieldDso;

// -F's `type:` prefixes (perf's names), by ScriptOutputType.
constexpr std::string_view kTypePrefixes[] = {"hw", "sw", "trace", "", "raw", "break", "synth", ""};
// perf's event_type() names in its messages.
constexpr const char* kTypeNames[] = {"hardware", "software", "tracepoint", "hardware-cache",
                                      "unknown",  "unknown",  "unknown",    "unknown"};
// `trace` is invalid for all but tracepoints (and the catch-all type); a list without
// `type:` warns about hardware, software and hardware-cache only (perf 6.1's text).
bool TraceInvalid(int type) { return type != kOutputTracepoint && type != kOutputOther; }
bool WarnsTraceInvalid(int type) { return type == kOutputHardware || type == kOutputSoftware || type == kOutputHwCache; }

// Room PutSymbol needs: the name or "[unknown]", and "+0x" with 16 hex digits.
size_t SymbolBound(const AddrLocation& al) { return (al.sym ? al.sym->name.size() : 9) + 3 + 16; }

// __symbol__fprintf_symname_offs.
char* PutSymbol(char* p, const AddrLocation& al, bool with_offset) {
  if (!al.sym) return PutStr(p, "[unknown]");
  p = PutStr(p, al.sym->name);
  if (with_offset) p = PutHex(PutStr(p, "+0x"), al.dso_addr - al.sym->start);
  return p;
}

// Room PutDso needs for `dso`'s name.
size_t DsoNameBound(const Dso* dso) { return dso ? dso->printable_long_name().size() + 2 : 9; }

// map__fprintf_dsoname.
char* PutDso(char* p, const AddrLocation& al, std::string* scratch) {
  p = PutStr(PutStr(p, " ("), ScriptDsoName(al.dso, scratch));
  *p++ = ')';
  return p;
}

// print_bstack_flags: "/P/-/-/4/COND " (predicted or mispredicted, in_tx, abort,
// cycles, type).
void AppendBranchFlags(std::string* out, const BranchFlags& f) {
  const char pred = !(f.mispred || f.predicted) ? '-' : f.predicted ? 'P' : 'M';
  fmt::format_to(std::back_inserter(*out), "/{}/{}/{}/{}/{} ", pred, f.in_tx ? 'X' : '-', f.abort ? 'A' : '-',
                 f.cycles, BranchTypeName(f));
}

}  // namespace

ScriptOutputType ScriptOutputTypeOf(uint32_t attr_type) {
  if (attr_type == kPerfTypeSynth) return kOutputSynth;
  return attr_type < kOutputSynth ? static_cast<ScriptOutputType>(attr_type) : kOutputOther;
}

ScriptFieldSpec::ScriptFieldSpec() {
  for (int t = 0; t < kOutputTypes; ++t) types[t].fields = t == kOutputTracepoint ? kTracepointDefaultFields : kDefaultFields;
}

Status ApplyScriptFields(std::string_view arg, ScriptFieldSpec* spec) {
  int type = -1;
  std::string_view list = arg;
  if (arg == "folded") {  // perflens: folded stacks
    spec->folded = true;
    return {};
  }
  const size_t colon = arg.find(':');
  if (colon != std::string_view::npos) {
    const std::string_view name = arg.substr(0, colon);
    for (int t = 0; t < kOutputTypes; ++t)
      if (!kTypePrefixes[t].empty() && kTypePrefixes[t] == name) type = t;
    if (type < 0) return Err("Invalid event type in field string.");
    list = arg.substr(colon + 1);
    if (list == "folded") {
      spec->folded = true;
      return {};
    }
  }
  const bool changes = list.find_first_of("+-") != std::string_view::npos;  // keeps the current fields
  ScriptTypeFields* const types = spec->types.data();
  if (type >= 0) {
    if (types[type].user_set)
      spec->warnings.push_back(fmt::format("Overriding previous field request for {} events.", kTypeNames[type]));
    if (!changes) types[type] = {0, types[type].user_set_fields, true, false};
  } else {
    if (list.empty()) return Err("Cannot set fields to 'none' for all event types.");
    if (!changes) {
      if (spec->set_by_user) spec->warnings.push_back("Overriding previous field request for all events.");
      for (int t = 0; t < kOutputTypes; ++t) types[t] = {0, types[t].user_set_fields, true, true};
    }
  }
  spec->set_by_user = true;
  enum { kNone, kSet, kAdd, kRemove } change = kNone;
  for (size_t start = 0; start < list.size();) {
    size_t comma = list.find(',', start);
    if (comma == std::string_view::npos) comma = list.size();
    std::string_view tok = list.substr(start, comma - start);
    start = comma + 1;
    if (tok.empty()) continue;
    if (tok[0] == '+' || tok[0] == '-') {
      if (change == kSet) return Err("Cannot mix +-field with overridden fields");
      change = tok[0] == '+' ? kAdd : kRemove;
      tok.remove_prefix(1);
    } else {
      if (change != kNone && change != kSet) return Err("Cannot mix +-field with overridden fields");
      change = kSet;
    }
    if (tok == "flags") {  // not per type
      spec->print_flags = change != kRemove;
      continue;
    }
    if (tok == "folded") return Err("-F folded cannot be combined with other fields");
    const FieldName* f = nullptr;
    for (const FieldName& n : kFieldNames)
      if (tok == n.name) f = &n;
    if (!f) {
      std::string known;
      for (const FieldName& n : kFieldNames) known.append(n.name).append(", ");
      return Err("Invalid field requested. ('{}'; perflens script supports {}flags or folded)", tok, known);
    }
    auto apply = [&](ScriptTypeFields& t, bool user_field) {
      if (change == kRemove) {
        t.fields &= ~f->bit;
        if (user_field) t.user_set_fields &= ~f->bit;
      } else {
        t.fields |= f->bit;
        if (user_field) t.user_set_fields |= f->bit;
      }
      t.user_set = t.wildcard_set = true;
    };
    if (type < 0) {
      for (int t = 0; t < kOutputTypes; ++t) {
        if (f->bit == kFieldTrace && TraceInvalid(t)) {
          if (WarnsTraceInvalid(t))
            spec->warnings.push_back(fmt::format("'trace' not valid for {} events. Ignoring.", kTypeNames[t]));
          continue;
        }
        apply(types[t], true);
      }
    } else {
      if (f->bit == kFieldTrace && TraceInvalid(type))
        return Err("'trace' not valid for {} events.", kTypeNames[type]);
      apply(types[type], false);
    }
  }
  return {};
}

Result<ScriptFieldSpec> ParseScriptFields(std::span<const std::string> args) {
  ScriptFieldSpec spec;
  for (const std::string& arg : args) PERFLENS_RETURN_IF_ERROR(ApplyScriptFields(arg, &spec));
  if (spec.folded && args.size() > 1) return Err("-F folded cannot be combined with other fields");
  return spec;
}

Result<ScriptFieldSpec> ParseScriptFields(std::string_view arg) {
  if (arg.empty()) return ScriptFieldSpec();  // no -F
  const std::string one(arg);
  return ParseScriptFields(std::span<const std::string>(&one, 1));
}

Result<uint32_t> ResolveScriptFields(const ScriptFieldSpec& spec, const Evsel& evsel, bool use_callchain) {
  const ScriptTypeFields& t = spec.types[ScriptOutputTypeOf(evsel.attr.type)];
  uint32_t fields = t.fields;
  const uint64_t st = evsel.attr.sample_type;
  if (fields == 0) return fields;  // perf checks nothing: the type's events print nothing
  for (const FieldName& n : kFieldNames) {
    if (!(fields & n.bit) || !n.sample_type || (st & n.sample_type)) continue;
    if (t.user_set_fields & n.bit)
      return Err("Samples for '{}' event do not have {} attribute set. Cannot print '{}' field.", evsel.name,
                 n.attr_name, n.name);
    fields &= ~n.bit;  // a default (or a `type:` field) the recording cannot supply
  }
  if ((fields & kFieldSym) && !(st & (kSampleIp | kSampleAddr)))
    return Err("Display of symbols requested but neither sample IP nor sample address\navailable. Hence, no "
               "addresses to convert to symbols.");
  if ((fields & kFieldSymOff) && !(fields & kFieldSym))
    return Err("Display of offsets requested but symbol is notselected.");  // perf's text
  if ((fields & kFieldDso) && !(st & (kSampleIp | kSampleAddr)))
    return Err("Display of DSO requested but no address to convert.");
  if ((fields & kFieldSrcline) && !(fields & kFieldIp))
    return Err("Display of source line number requested but sample IP is not\nselected. Hence, no address to "
               "lookup the source line number.");
  // perf_session__check_output_opt: with callchains in use and no -F for tracepoints,
  // a tracepoint with callchains prints them.
  if (evsel.attr.type == kPerfTypeTracepoint && use_callchain && !t.user_set && (st & kSampleCallchain))
    fields |= kTracepointChainFields;
  return fields;
}

Result<std::vector<uint32_t>> ResolveEvselFields(const ScriptFieldSpec& spec, std::span<const Evsel> evsels,
                                                 bool use_callchain) {
  // perf keeps fields per output type and checks them against the first evsel of that
  // type only (perf_session__check_output_opt), never against a dummy event
  // (find_first_output_type skips it): `-F sw:` with only a dummy is "software events
  // do not exist", and a dummy's fields are not checked.
  std::array<std::optional<uint32_t>, kOutputTypes> by_type;
  std::vector<uint32_t> fields;
  for (const Evsel& ev : evsels) {
    if (ev.attr.type == kPerfTypeSoftware && ev.attr.config == kPerfCountSwDummy) {
      auto resolved = ResolveScriptFields(spec, ev, use_callchain);
      fields.push_back(resolved ? *resolved : 0);
      continue;
    }
    std::optional<uint32_t>& f = by_type[ScriptOutputTypeOf(ev.attr.type)];
    if (!f) {
      auto resolved = ResolveScriptFields(spec, ev, use_callchain);
      if (!resolved) return resolved.error();
      f = *resolved;
    }
    fields.push_back(*f);
  }
  for (int t = 0; t < kOutputTypes; ++t)
    if (!by_type[t] && spec.types[t].user_set && !spec.types[t].wildcard_set && t != kOutputSynth)
      return Err("{} events do not exist. Remove corresponding -F option to proceed.", kTypeNames[t]);
  return fields;
}

Result<std::unique_ptr<Script>> Script::Create(PerfFile* file, const ScriptOptions& options) {
  std::unique_ptr<Script> s(new Script());
  auto spec = ParseScriptFields(options.fields);
  if (!spec) return spec.error();
  const bool folded = spec->folded && !options.json;
  bool use_callchain = false;
  for (const Evsel& ev : file->evsels())
    if (ev.attr.sample_type & kSampleCallchain) use_callchain = !options.hide_call_graph;
  std::vector<uint32_t> fields(file->evsels().size(), 0);
  if (!folded && !options.json) {
    auto resolved = ResolveEvselFields(*spec, file->evsels(), use_callchain);
    if (!resolved) return resolved.error();
    fields = std::move(*resolved);
  }
  std::vector<bool> chains;
  SessionOptions so;
  for (const Evsel& ev : file->evsels()) {
    const uint32_t f = fields[static_cast<size_t>(ev.index)];
    const bool chain = use_callchain && (ev.attr.sample_type & kSampleCallchain);
    chains.push_back(chain);
    // Resolved: folded, the chain or the ip; printed, what the ip field prints.
    if (folded) so.needs.push_back({!chain, chain});
    else if (options.json)
      so.needs.push_back({true, chain, true});
    else
      so.needs.push_back({(f & kFieldIp) && !chain, (f & kFieldIp) && chain, true,
                          (f & (kFieldBrstack | kFieldBrstackSym)) != 0, (f & kFieldTrace) != 0});
    // --dsos/-S decide on the sample ip's location.
    if (!options.dsos.empty() || !options.symbols.empty()) so.needs.back().location = true;
  }
  so.symbolize = options.symbolize;
  so.progress = options.progress;
  so.filter.comms = options.comms;
  so.filter.pids = options.pids;
  so.filter.tids = options.tids;
  so.filter.dsos = options.dsos;
  so.filter.symbols = options.symbols;
  PERFLENS_RETURN_IF_ERROR(ParseTimeCpuFilters(*file, options.time, options.cpu_list, options.reltime, &so.filter.time_ranges,
                                               &so.filter.cpus));
  if (options.show_task_events) so.side_band_types |= (1u << kRecordComm) | (1u << kRecordFork) | (1u << kRecordExit);
  if (options.show_mmap_events) so.side_band_types |= (1u << kRecordMmap) | (1u << kRecordMmap2);
  if (options.show_switch_events) so.side_band_types |= (1u << kRecordSwitch) | (1u << kRecordSwitchCpuWide);
  if (options.show_lost_events) so.side_band_types |= 1u << kRecordLost;
  if (options.show_namespace_events) so.side_band_types |= 1u << kRecordNamespaces;
  if (options.show_cgroup_events) so.side_band_types |= 1u << kRecordCgroup;
  if (options.show_bpf_events) so.side_band_types |= (1u << kRecordKsymbol) | (1u << kRecordBpfEvent);
  so.side_band_finished_round = options.show_round_events;
  so.max_stack = options.max_stack;
  so.inline_frames = options.inline_frames;
  so.adjust_return_addresses = options.adjust_return_addresses;
  s->session_ = Session::Open(file, std::move(so));
  s->folded_ = std::make_unique<FoldedConsumer>(options.folded_weight_period);
  if (folded) {
    s->session_->AddConsumer(s->folded_.get());
  } else {
    s->writer_ = std::make_unique<ScriptWriter>(*file, std::move(fields), std::move(chains));
    s->writer_->set_symbolizer(&s->session_->symbolizer());
    s->writer_->set_time_format(options.ns, options.reltime, options.deltatime);
    s->writer_->set_print_flags(spec->print_flags);
    s->writer_->set_json(options.json);
    s->kernel_resolver_ = std::make_unique<Resolver>(&s->session_->machine(), &s->session_->symbolizer());
    s->writer_->set_kernel_resolver(s->kernel_resolver_.get());
    s->session_->AddConsumer(s->writer_.get());
  }
  return s;
}

Script::~Script() = default;

Status Script::Run(const WriteFn& write) {
  if (writer_) writer_->set_write(write);
  Status st = session_->Run();
  if (!st) return st;
  if (!writer_) {
    std::string text;
    folded_->stacks().Print(&text);
    write(text);
  }
  return st;
}

std::vector<std::string> Script::SummaryLines() const {
  std::vector<std::string> lines;
  const auto& c = counters();
  c.AppendSummary(&lines);
  if (std::string line = session_->UnwindStopsLine(); !line.empty()) lines.push_back(std::move(line));
  for (std::string& line : session_->ModelNotes()) lines.push_back(std::move(line));
  if (c.nr_bad_callchains)
    lines.push_back(fmt::format("{} callchains with guest/unknown context markers printed empty", c.nr_bad_callchains));
  for (auto& p : session_->symbolizer().Problems()) lines.push_back(p);
  for (auto& p : session_->symbolizer().FixHints()) lines.push_back(p);
  if (c.nr_samples == 0) lines.push_back(fmt::format("{} has no usable samples", session_->file().path()));
  return lines;
}

ScriptWriter::ScriptWriter(const PerfFile& file, std::vector<uint32_t> fields, std::vector<bool> chains)
    : file_(file), fields_(std::move(fields)), chains_(std::move(chains)),
      out_(std::make_unique<TextBuffer>(kFlushBytes + (64 << 10))) {
  for (const Evsel& ev : file.evsels()) name_width_ = std::max(name_width_, ev.name.size());
  if (file.env().tracing_data) tracepoints_ = std::make_unique<TracepointFormatter>(*file.env().tracing_data);
  if (std::find(chains_.begin(), chains_.end(), true) != chains_.end()) frame_lines_.resize(kFrameLines);
}

ScriptWriter::~ScriptWriter() = default;

void ScriptWriter::set_kernel_resolver(Resolver* resolver) {
  resolver_ = resolver;
  if (tracepoints_) tracepoints_->set_kernel_symbols(KernelSymbolsOf(resolver));
}

void ScriptWriter::Finish() {
  if (out_->size()) write_(out_->view());
  out_->clear();
}

char* ScriptWriter::PutStart(char* p, uint32_t f, bool chain, const std::string& comm, int pid, int tid,
                             uint32_t cpu, uint64_t time) {
  if (f & kFieldComm) {
    p = chain ? PutStr(p, comm) : PutStrRight(p, comm, 16);
    *p++ = ' ';
  }
  if ((f & kFieldPid) && (f & kFieldTid)) {
    p = PutIntRight(p, pid, 5);
    *p++ = '/';
    p = PutIntLeft(p, tid, 5);
    *p++ = ' ';
  } else if (f & (kFieldPid | kFieldTid)) {
    p = PutIntRight(p, (f & kFieldPid) ? pid : tid, 5);
    *p++ = ' ';
  }
  if (f & kFieldCpu) {
    *p++ = '[';
    p = PutIntZeroPad(p, static_cast<int>(cpu), 3);
    p = PutStr(p, "] ");
  }
  if (f & kFieldTime) {
    const uint64_t t = PrintedTime(time);
    if (ns_) {  // perf: "%5lu.%09llu: "
      p = PutDec(p, t / 1000000000, 5);
      *p++ = '.';
      p = PutIntZeroPad(p, static_cast<int64_t>(t % 1000000000), 9);
      p = PutStr(p, ": ");
    } else {
      p = PutStr(PutTimeUsec(p, t, 12), ": ");  // timestamp__scnprintf_usec
    }
  }
  return p;
}

// C's "%#lx": 0 is "0", not "0x0".
std::string AltHex(uint64_t v) { return v ? fmt::format("{:#x}", v) : std::string("0"); }

void ScriptWriter::OnSideBand(const SideBandRecord& r) {
  if (json_) return;  // --json: samples only
  if (r.record->type == kRecordFinishedRound) {  // perf prints the name alone
    out_->Append("PERF_RECORD_FINISHED_ROUND\n");
    return;
  }
  if (!r.evsel) return;
  const uint32_t f = fields_[static_cast<size_t>(r.evsel->index)];
  const bool chain = chains_[static_cast<size_t>(r.evsel->index)] && (f & kFieldIp);
  const std::string comm = r.thread ? r.thread->comm() : std::string(":-1");
  const Loader& ld = file_.loader();
  // perf_event__fprintf: "PERF_RECORD_<NAME>" and the type's fields.
  std::string line;
  auto out = std::back_inserter(line);
  switch (r.record->type) {
    case kRecordComm: {
      CommEvent e;
      if (!DecodeComm(*r.record, ld, &e)) return;
      fmt::format_to(out, "PERF_RECORD_COMM{}: {}:{}/{}\n", e.exec ? " exec" : "", EscapeControl(e.comm),
                     static_cast<int>(e.pid), static_cast<int>(e.tid));
      break;
    }
    case kRecordFork:
    case kRecordExit: {
      TaskEvent e;
      if (!DecodeTask(*r.record, ld, &e)) return;
      fmt::format_to(out, "PERF_RECORD_{}({}:{}):({}:{})\n", r.record->type == kRecordFork ? "FORK" : "EXIT",
                     static_cast<int>(e.pid), static_cast<int>(e.tid), static_cast<int>(e.ppid),
                     static_cast<int>(e.ptid));
      break;
    }
    case kRecordMmap: {
      MmapEvent e;
      if (!DecodeMmap(*r.record, ld, &e)) return;
      fmt::format_to(out, "PERF_RECORD_MMAP {}/{}: [{}({}) @ {}]: {} {}\n", static_cast<int>(e.pid),
                     static_cast<int>(e.tid), AltHex(e.start), AltHex(e.len), AltHex(e.pgoff),
                     (r.record->misc & kMiscMmapData) ? 'r' : 'x', EscapeControl(e.filename));
      break;
    }
    case kRecordMmap2: {
      MmapEvent e;
      if (!DecodeMmap2(*r.record, ld, &e)) return;
      fmt::format_to(out, "PERF_RECORD_MMAP2 {}/{}: [{}({}) @ {} ", static_cast<int>(e.pid),
                     static_cast<int>(e.tid), AltHex(e.start), AltHex(e.len), AltHex(e.pgoff));
      if (!e.build_id.empty())
        fmt::format_to(out, "<{}>", e.build_id.ToHex());
      else
        fmt::format_to(out, "{:02x}:{:02x} {} {}", e.maj, e.min, e.ino, e.ino_generation);
      // PROT_READ 1, PROT_WRITE 2, PROT_EXEC 4; MAP_SHARED 1.
      fmt::format_to(out, "]: {}{}{}{} {}\n", (e.prot & 1) ? 'r' : '-', (e.prot & 2) ? 'w' : '-',
                     (e.prot & 4) ? 'x' : '-', (e.flags & 1) ? 's' : 'p', EscapeControl(e.filename));
      break;
    }
    case kRecordSwitch:
    case kRecordSwitchCpuWide: {  // perf_event__fprintf_switch
      const bool out_switch = r.record->misc & kMiscSwitchOut;
      const char* in_out = !out_switch                                ? "IN         "
                           : !(r.record->misc & kMiscSwitchOutPreempt) ? "OUT        "
                                                                        : "OUT preempt";
      if (r.record->type == kRecordSwitch) {
        fmt::format_to(out, "PERF_RECORD_SWITCH {}\n", in_out);
      } else {
        if (r.record->size < 16) return;
        fmt::format_to(out, "PERF_RECORD_SWITCH_CPU_WIDE {}  {} pid/tid: {:5}/{:<5}\n", in_out,
                       out_switch ? "next" : "prev", static_cast<int>(ld.U32(r.record->data + 8)),
                       static_cast<int>(ld.U32(r.record->data + 12)));
      }
      break;
    }
    case kRecordLost: {
      LostEvent e;
      if (!DecodeLost(*r.record, ld, &e)) return;
      fmt::format_to(out, "PERF_RECORD_LOST lost {}\n", e.lost);
      break;
    }
    case kRecordNamespaces: {  // perf_event__fprintf_namespaces
      const RecordView& rec = *r.record;
      if (rec.size < 24) return;
      static constexpr const char* kNames[] = {"net", "uts", "ipc", "pid", "user", "mnt", "cgroup"};
      const uint64_t nr = ld.U64(rec.data + 16);
      fmt::format_to(out, "PERF_RECORD_NAMESPACES {}/{} - nr_namespaces: {}\n\t\t[",
                     static_cast<int>(ld.U32(rec.data + 8)), static_cast<int>(ld.U32(rec.data + 12)),
                     static_cast<uint32_t>(nr));
      const uint64_t shown = std::min<uint64_t>(static_cast<uint32_t>(nr), (rec.size - 24) / 16);
      for (uint64_t i = 0; i < shown; ++i) {
        if (i && i % 4 == 0) line += "\n\t\t ";
        const uint8_t* link = rec.data + 24 + i * 16;
        fmt::format_to(out, "{}/{}: {}/{}{}", i, i < std::size(kNames) ? kNames[i] : "UNKNOWN", ld.U64(link),
                       AltHex(ld.U64(link + 8)), i + 1 != static_cast<uint32_t>(nr) ? ", " : "]\n");
      }
      break;
    }
    case kRecordCgroup: {  // " cgroup: id path"
      const RecordView& rec = *r.record;
      if (rec.size < 16) return;
      const auto* path = reinterpret_cast<const char*>(rec.data + 16);
      fmt::format_to(out, "PERF_RECORD_CGROUP cgroup: {} {}\n", ld.U64(rec.data + 8),
                     EscapeControl(std::string_view(path, strnlen(path, rec.size - 16))));
      break;
    }
    case kRecordKsymbol: {
      KsymbolEvent e;
      if (!DecodeKsymbol(*r.record, ld, &e)) return;
      fmt::format_to(out, "PERF_RECORD_KSYMBOL addr {:x} len {} type {} flags 0x{:x} name {}\n", e.addr, e.len,
                     e.ksym_type, e.flags, EscapeControl(e.name));
      break;
    }
    case kRecordBpfEvent: {
      const RecordView& rec = *r.record;
      if (rec.size < 16) return;
      fmt::format_to(out, "PERF_RECORD_BPF_EVENT type {}, flags {}, id {}\n", ld.U16(rec.data + 8),
                     ld.U16(rec.data + 10), ld.U32(rec.data + 12));
      break;
    }
    default:
      return;
  }
  char* p = out_->Reserve(comm.size() + 96 + line.size());
  p = PutStart(p, f, chain, comm, static_cast<int>(r.id.pid), static_cast<int>(r.id.tid), r.id.cpu, r.id.time);
  p = PutStr(p, line);
  out_->Commit(p);
  if (out_->size() >= kFlushBytes) {
    write_(out_->view());
    out_->clear();
  }
}

uint64_t ScriptWriter::PrintedTime(uint64_t time) {
  if (reltime_) {  // perf_sample__fprintf_start: from the first sample printed
    if (!initial_time_) initial_time_ = time;
    return time - initial_time_;
  }
  if (deltatime_) {
    const uint64_t t = previous_time_ ? time - previous_time_ : 0;
    previous_time_ = time;
    return t;
  }
  return time;
}

void ScriptWriter::PrintJson(const ResolvedSample& s) {
  using nlohmann::json;
  const Evsel& ev = file_.evsels()[s.evsel];
  auto put_location = [&](const AddrLocation& al, json* o) {
    (*o)["sym"] = al.sym ? json(std::string(al.sym->name)) : json(nullptr);
    (*o)["symoff"] = al.sym ? json(al.dso_addr - al.sym->start) : json(nullptr);
    (*o)["dso"] = std::string(ScriptDsoName(al.dso, &scratch_));
    if (al.dso) (*o)["dso_addr"] = al.dso_addr;
  };
  json o;
  o["comm"] = *s.comm;
  o["pid"] = static_cast<int32_t>(s.sample_pid);
  o["tid"] = static_cast<int32_t>(s.tid);
  // Fields the evsel does not record are null.
  o["cpu"] = ev.attr.sample_type & kSampleCpu ? json(s.cpu) : json(nullptr);
  o["time"] = ev.attr.sample_type & kSampleTime ? json(s.time) : json(nullptr);
  o["event"] = ev.name;
  o["period"] = s.period;
  o["ip"] = s.ip;
  put_location(s.location, &o);
  if (chains_[s.evsel] && s.frame_source) {
    json chain = json::array();
    if (s.chain_ok)
      WalkCallchain(
          s.raw_callchain, s.frame_source->max_stack(), false,
          [&](uint64_t ip, uint16_t cpumode, bool exact, bool unwound) {
            AddrLocation al =
                s.frame_source->Resolve(s.thread, cpumode, ip, s.frame_source->looks_up_before(exact, unwound));
            json frame;
            frame["ip"] = ip;
            put_location(al, &frame);
            chain.push_back(std::move(frame));
          },
          s.raw_unwound_begin);
    o["callchain"] = std::move(chain);
  }
  // Names need not be UTF-8: invalid bytes become U+FFFD, so every line parses.
  out_->Append(o.dump(-1, ' ', false, json::error_handler_t::replace));
  out_->Append("\n");
  if (out_->size() >= kFlushBytes) {
    write_(out_->view());
    out_->clear();
  }
}

void ScriptWriter::OnSample(const ResolvedSample& s) {
  if (json_) {
    PrintJson(s);
    return;
  }
  const Evsel& ev = file_.evsels()[s.evsel];
  const uint32_t f = fields_[s.evsel];
  if (f == 0) return;  // perf: a type without fields prints nothing (`-F sw:`, `-F flags`)
  const bool chain = chains_[s.evsel] && (f & kFieldIp);
  const AddrLocation& al = s.location;
  TextBuffer* out = out_.get();
  const std::string& comm = *s.comm;
  // perf_sample__fprintf_start. The bound: every field at its widest, with the line
  // of a sample without callchain.
  char* p = out->Reserve(comm.size() + std::max(name_width_, ev.name.size()) + 240 +
                         (chain ? 0 : SymbolBound(al) + DsoNameBound(al.dso)));
  p = PutStart(p, f, chain, comm, static_cast<int>(s.sample_pid), static_cast<int>(s.tid), s.cpu, s.time);
  if (f & kFieldPeriod) {
    p = PutDec(p, s.period, 10);
    *p++ = ' ';
  }
  if (f & kFieldEvent) p = PutStr(PutStrRight(p, ev.name, name_width_), ": ");
  // perf_sample__fprintf_flags: "  %-21s " of the sample's flags, which only AUX-trace
  // decoding sets: blank here.
  if (print_flags_) p = PutStr(p, "                        ");
  // event_format__fprintf: the payload right after the event name (no separator of its
  // own: what follows starts with ' ' or '\n').
  if ((f & kFieldTrace) && tracepoints_ && !s.raw.empty()) {
    out->Commit(p);
    scratch_.clear();
    tracepoints_->Format(ev.attr.config, s.cpu, s.raw, &scratch_);
    out->Append(scratch_);
    p = out->Reserve(160 + (chain ? 0 : SymbolBound(al) + DsoNameBound(al.dso)));
  }

  if (f & kFieldAddr) p = PutAddr(p, s, ev, f);
  if (f & kFieldWeight) p = PutDec(p, s.weight, 16);

  if (f & kFieldIp) {
    if (chain) {
      // sample__fprintf_callchain: one line per frame; a corrupt chain has none
      // (the session checked its markers).
      *p++ = '\n';
      out->Commit(p);
      if (s.chain_ok)
        WalkCallchain(
            s.raw_callchain, s.frame_source->max_stack(), false,
            [&](uint64_t ip, uint16_t cpumode, bool exact, bool unwound) {
              PrintFrame(s.frame_source, s.thread, cpumode, ip, f, unwound && s.frame_source->inline_frames(),
                         s.frame_source->looks_up_before(exact, unwound));
            },
            s.raw_unwound_begin);
      p = out->Reserve(1);
    } else {
      *p++ = ' ';
      p = PutHex(p, s.ip, 16);
      if (f & kFieldSym) {
        *p++ = ' ';
        p = PutSymbol(p, al, f & kFieldSymOff);
      }
      if (f & kFieldDso) p = PutDso(p, al, &scratch_);
      if ((f & kFieldSrcline) && al.dso && symbolizer_) {
        // perf's map__fprintf_srcline: the line without the symbol's help, not "??:0".
        out->Commit(p);
        std::string text = Addr2lineText(symbolizer_, *al.dso, al.dso_addr, false);
        if (text.empty()) text = DsoAddrText(symbolizer_, *al.dso, al.dso_addr);
        if (text != "??:0") out->Append("\n  " + text);
        p = out->Reserve(1);
      }
    }
  }
  if ((f & (kFieldBrstack | kFieldBrstackSym)) && s.branch_sample && s.frame_source) {
    out->Commit(p);
    PrintBranchStack(s, f);
    p = out->Reserve(1);
  }
  *p++ = '\n';
  out->Commit(p);
  if (out->size() >= kFlushBytes) {
    write_(out->view());
    out->clear();
  }
}

char* ScriptWriter::PutAddr(char* p, const ResolvedSample& s, const Evsel& ev, uint32_t f) {
  p = PutHex(p, s.addr, 16);
  // sample_addr_correlates_sym: only a page fault's address names code or data.
  const uint64_t config = ev.attr.config;
  if (ev.attr.type != kPerfTypeSoftware || !(config == 2 || config == 5 || config == 6) || !resolver_) return p;
  // thread__resolve: the sample's cpumode, then (x86) the half the address is in.
  AddrLocation al = resolver_->Resolve(s.thread, s.cpumode, s.addr);
  if (!al.dso && (s.cpumode == kMiscKernel || s.cpumode == kMiscUser)) {
    const uint16_t mode = s.addr >= (uint64_t{1} << 63) ? kMiscKernel : kMiscUser;
    if (mode != s.cpumode) al = resolver_->Resolve(s.thread, mode, s.addr);
  }
  TextBuffer* out = out_.get();
  out->Commit(p);
  p = out->Reserve(SymbolBound(al) + DsoNameBound(al.dso) + SymbolBound(s.location) + DsoNameBound(s.location.dso) + 240);
  if (f & kFieldSym) {
    *p++ = ' ';
    p = PutSymbol(p, al, f & kFieldSymOff);
  }
  if (f & kFieldDso) p = PutDso(p, al, &scratch_);
  return p;
}

void ScriptWriter::PrintFrame(FrameSource* source, const Thread* thread, uint16_t cpumode, uint64_t ip,
                              uint32_t f, bool with_inlines, bool return_address) {
  static_assert(kFieldSymOff == kFieldSym << 1 && kFieldDso == kFieldSym << 2);
  const auto line_fields = static_cast<uint8_t>(((f / kFieldSym) & 7) | (with_inlines ? 8 : 0) |
                                                ((f & kFieldSrcline) ? 16 : 0) | (return_address ? 32 : 0));
  TextBuffer* out = out_.get();
  FrameLine* line = nullptr;
  uint64_t maps_id = 0, generation = 0;
  if (const Maps* maps = source->MapsFor(thread, cpumode)) {
    maps_id = maps->id();
    generation = maps->generation();
    size_t h = (ip * 0x9E3779B97F4A7C15ULL ^ maps_id * 0xC2B2AE3D27D4EB4FULL) >> 50;
    line = &frame_lines_[h & (kFrameLines - 1)];
    if (line->maps_id == maps_id && line->generation == generation && line->ip == ip &&
        line->fields == line_fields) {
      // A fixed-size copy (the room is reserved) is a few vector moves; a
      // variable-size one became `rep movs`, slow for ~80 bytes.
      char* p = out->Reserve(sizeof(line->text));
      memcpy(p, line->text, sizeof(line->text));
      out->Commit(p + line->size);
      return;
    }
  }
  AddrLocation al = source->Resolve(thread, cpumode, ip, return_address);
  // perf's append_inlines: one line per inline frame, all at this address; an inline
  // frame prints " (inlined)" where the others print their dso.
  const bool inlines = with_inlines && source->InlineSymbols(al, &inline_syms_);
  const size_t nr_lines = inlines ? inline_syms_.size() : 1;
  // -F srcline: each line's source line, printed on a line of its own before an inline
  // frame's " (inlined)" (perf's layout).
  srcline_texts_.clear();
  if (f & kFieldSrcline) {
    const SymbolFrames frames =
        inlines && symbolizer_ ? symbolizer_->Module(*al.dso)->FramesAt(al.dso_addr) : SymbolFrames{};
    for (size_t i = 0; i < nr_lines; ++i) {
      if (inlines) al.sym = inline_syms_[i];
      srcline_texts_.push_back(SrclineUnder(al, i < frames.size() ? &frames[i] : nullptr));
    }
  }
  size_t room = 0;
  for (size_t i = 0; i < nr_lines; ++i) {
    if (inlines) al.sym = inline_syms_[i];
    room += 24 + SymbolBound(al) + DsoNameBound(al.dso) + 10 + (srcline_texts_.empty() ? 0 : srcline_texts_[i].size() + 3);
  }
  char* const start = out->Reserve(room);
  char* p = start;
  for (size_t i = 0; i < nr_lines; ++i) {
    if (inlines) al.sym = inline_syms_[i];
    *p++ = '\t';
    p = PutHex(p, al.dso && !al.dso->is_kernel() ? al.dso_addr : ip, 16);
    if (f & kFieldSym) {
      *p++ = ' ';
      p = PutSymbol(p, al, f & kFieldSymOff);
    }
    const bool inlined = al.sym && al.sym->inlined;
    if ((f & kFieldDso) && !inlined) p = PutDso(p, al, &scratch_);
    if (!srcline_texts_.empty() && !srcline_texts_[i].empty()) p = PutStr(PutStr(p, "\n  "), srcline_texts_[i]);
    if (inlined) p = PutStr(p, " (inlined)");
    *p++ = '\n';
  }
  out->Commit(p);
  const size_t size = static_cast<size_t>(p - start);
  if (!line || size > sizeof(line->text)) return;
  line->maps_id = maps_id;
  line->generation = generation;
  line->ip = ip;
  line->fields = line_fields;
  line->size = static_cast<uint8_t>(size);
  memcpy(line->text, start, size);
}

std::string ScriptWriter::SrclineUnder(const AddrLocation& al, const SymbolFrame* frame) {
  if (!al.dso || !symbolizer_) return {};
  if (!al.sym) {
    // Without a symbol perf prints the line where there is one, nothing where addr2line
    // ran on the file and found none, and its "dso[vaddr]" where there is no file.
    const DsoModule* module = symbolizer_->Module(*al.dso);
    const SourceLine line = al.dso->is_kernel() ? SourceLine{} : module->FindSourceLine(al.dso_addr);
    if (line.known()) return FormatSrcline(line, false);
    return module->segments().empty() ? DsoAddrText(symbolizer_, *al.dso, al.dso_addr) : std::string();
  }
  // An inline frame's own line: the innermost one's row, the call sites outward.
  if (frame && frame->line.known()) return FormatSrcline(frame->line, false);
  std::string text = Addr2lineText(symbolizer_, *al.dso, al.dso_addr, false);
  // perf's fallback without the symbol's name: "dso[vaddr]".
  return text.empty() ? DsoAddrText(symbolizer_, *al.dso, al.dso_addr) : text;
}

}  // namespace perflens

namespace perflens {

void ScriptWriter::PrintBranchStack(const ResolvedSample& s, uint32_t f) {
  const Sample& sample = *s.branch_sample;
  std::string& text = scratch_branch_;
  text.clear();
  // perf's thread__find_map_fb: the sample's cpumode, which need not be the address's,
  // then (an address space shared by kernel and user, all but sparc) the cpumode the
  // address's half says: kernel from 2^63 (machine__addr_cpumode; x86_64's
  // kernel_start).
  auto locate = [&](uint64_t addr) {
    AddrLocation al = s.frame_source->Resolve(s.thread, s.cpumode, addr);
    if (al.dso) return al;
    const bool kernel_half = addr >= (uint64_t{1} << 63);
    uint16_t mode = s.cpumode;
    if (s.cpumode == kMiscKernel || s.cpumode == kMiscUser) mode = kernel_half ? kMiscKernel : kMiscUser;
    else if (s.cpumode == kMiscGuestKernel || s.cpumode == kMiscGuestUser)
      mode = kernel_half ? kMiscGuestKernel : kMiscGuestUser;
    return mode == s.cpumode ? al : s.frame_source->Resolve(s.thread, mode, addr);
  };
  auto dso = [&](const AddrLocation& al) {
    text += '(';
    text += ScriptDsoName(al.dso, &scratch_);
    text += ')';
  };
  for (uint64_t i = 0; i < sample.branch_nr; ++i) {
    const BranchEntry e = sample.branch(i);
    if (f & kFieldBrstack) {
      fmt::format_to(std::back_inserter(text), " 0x{:x}", e.from);
      if (f & kFieldDso) dso(locate(e.from));
      fmt::format_to(std::back_inserter(text), "/0x{:x}", e.to);
      if (f & kFieldDso) dso(locate(e.to));
    } else {
      // symbol__fprintf_symname_offs: the offset even when 0.
      auto sym = [&](uint64_t addr) {
        const AddrLocation al = locate(addr);
        if (!al.sym) text += "[unknown]";
        else fmt::format_to(std::back_inserter(text), "{}+0x{:x}", al.sym->name, al.dso_addr - al.sym->start);
        if (f & kFieldDso) dso(al);
      };
      sym(e.from);
      text += '/';
      sym(e.to);
    }
    AppendBranchFlags(&text, sample.branch_flags(i));
  }
  out_->Append(text);
}

}  // namespace perflens
