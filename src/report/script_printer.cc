#include "report/script_printer.h"

#include <algorithm>
#include <cstring>
#include <iterator>

#include <fmt/format.h>

#include "perfdata/perf_event.h"
#include "report/text_buffer.h"

namespace perflens {
namespace {

struct FieldName {
  const char* name;
  uint32_t bit;
  uint64_t sample_type;  // bit the recording must have; 0 = none
  const char* attr_name; // perf's name of that bit in its error message
};

constexpr FieldName kFieldNames[] = {
    {"comm", kFieldComm, 0, ""},
    {"tid", kFieldTid, kSampleTid, "TID"},
    {"pid", kFieldPid, kSampleTid, "TID"},
    {"time", kFieldTime, kSampleTime, "TIME"},
    {"cpu", kFieldCpu, kSampleCpu, "CPU"},
    {"event", kFieldEvent, 0, ""},
    {"ip", kFieldIp, kSampleIp, "IP"},
    {"sym", kFieldSym, 0, ""},
    {"symoff", kFieldSymOff, 0, ""},
    {"dso", kFieldDso, 0, ""},
    {"period", kFieldPeriod, 0, ""},  // attr.sample_period when not sampled
};

// perf 6.1's defaults for hardware and software events.
constexpr uint32_t kDefaultFields = kFieldComm | kFieldTid | kFieldTime | kFieldCpu | kFieldEvent | kFieldIp |
                                    kFieldSym | kFieldSymOff | kFieldDso | kFieldPeriod;

// perf's event-type prefixes of -F ("sw:comm,tid"); perflens applies fields to all types.
constexpr std::string_view kTypePrefixes[] = {"hw", "sw", "trace", "raw", "synth", "breakpoint"};

bool Contains(const std::vector<std::string>& list, std::string_view s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

// Room PutSymbol needs: the name or "[unknown]", and "+0x" with 16 hex digits.
size_t SymbolBound(const AddrLocation& al) { return (al.sym ? al.sym->name.size() : 9) + 3 + 16; }

// __symbol__fprintf_symname_offs.
char* PutSymbol(char* p, const AddrLocation& al, bool with_offset) {
  if (!al.sym) return PutStr(p, "[unknown]");
  p = PutStr(p, al.sym->name);
  if (with_offset) p = PutHex(PutStr(p, "+0x"), al.addr - al.sym->start);
  return p;
}

// Room PutDsoName needs.
size_t DsoNameBound(const Dso* dso) { return dso ? dso->printable_long_name().size() + 2 : 9; }

// perf's dso->name: the recorded path for files, but "[name]" for a kernel module
// first seen in an MMAP (kmod_path__parse_name: basename without ".ko[.gz|.xz|.zst]",
// '-' → '_'), e.g. /lib/modules/3.8.11/kernel/drivers/net/usb/usbnet.ko → [usbnet].
// A module listed in the recorded build-id table keeps its path (perf creates its dso
// from the table, by path, before the MMAP).
char* PutDsoName(char* p, const Dso* dso) {
  if (!dso) return PutStr(p, "[unknown]");
  std::string_view name = dso->printable_long_name();
  if (dso->kind() != DsoKind::kKernelModule || !dso->build_id().empty() || name.empty() || name[0] == '[')
    return PutStr(p, name);
  size_t slash = name.rfind('/');
  if (slash != std::string_view::npos) name.remove_prefix(slash + 1);
  size_t ko = name.find(".ko");
  if (ko != std::string_view::npos) name = name.substr(0, ko);
  *p++ = '[';
  for (char c : name) *p++ = c == '-' ? '_' : c;
  *p++ = ']';
  return p;
}

// map__fprintf_dsoname.
char* PutDso(char* p, const AddrLocation& al) {
  p = PutDsoName(PutStr(p, " ("), al.dso);
  *p++ = ')';
  return p;
}

void AppendSanitized(std::string_view s, char from, char to, std::string* out) {
  for (char c : s) out->push_back(c == from ? to : c);
}

}  // namespace

Result<ScriptFieldSpec> ParseScriptFields(std::string_view arg) {
  ScriptFieldSpec spec;
  if (arg.empty()) return spec;
  size_t colon = arg.find(':');
  if (colon != std::string_view::npos) {
    std::string_view type = arg.substr(0, colon);
    if (std::find(std::begin(kTypePrefixes), std::end(kTypePrefixes), type) == std::end(kTypePrefixes))
      return Err("'{}' is not a valid event type in -F", type);
    arg.remove_prefix(colon + 1);
  }
  if (arg == "folded") {
    spec.folded = true;
    return spec;
  }
  size_t start = 0;
  while (start <= arg.size()) {
    size_t comma = arg.find(',', start);
    if (comma == std::string_view::npos) comma = arg.size();
    std::string_view tok = arg.substr(start, comma - start);
    start = comma + 1;
    if (tok.empty()) continue;
    // perf: a list either sets the fields or changes the defaults (+f, -f), not both.
    char change = 0;
    if (tok[0] == '+' || tok[0] == '-') {
      change = tok[0];
      tok.remove_prefix(1);
    }
    ScriptFieldSpec::Mode mode = change ? ScriptFieldSpec::Mode::kChange : ScriptFieldSpec::Mode::kSet;
    if (spec.mode != ScriptFieldSpec::Mode::kDefault && spec.mode != mode)
      return Err("Cannot set fields and add/remove fields at the same time in -F");
    spec.mode = mode;
    if (tok == "folded") return Err("-F folded cannot be combined with other fields");
    const FieldName* f = nullptr;
    for (const FieldName& n : kFieldNames)
      if (tok == n.name) f = &n;
    if (!f) return Err("Invalid field requested: '{}' (perflens script supports comm, tid, pid, time, cpu, "
                       "event, ip, sym, symoff, dso, period, or folded)", tok);
    if (change == '-') {
      spec.removed |= f->bit;
      spec.fields &= ~f->bit;
    } else {
      spec.fields |= f->bit;
      spec.removed &= ~f->bit;
    }
  }
  return spec;
}

Result<uint32_t> ResolveScriptFields(const ScriptFieldSpec& spec, const Evsel& evsel) {
  uint32_t fields = kDefaultFields, user_set = 0;
  switch (spec.mode) {
    case ScriptFieldSpec::Mode::kDefault: break;
    case ScriptFieldSpec::Mode::kSet: fields = user_set = spec.fields; break;
    case ScriptFieldSpec::Mode::kChange:
      fields = (fields & ~spec.removed) | spec.fields;
      user_set = spec.fields;
      break;
  }
  const uint64_t st = evsel.attr.sample_type;
  for (const FieldName& n : kFieldNames) {
    if (!(fields & n.bit) || !n.sample_type || (st & n.sample_type)) continue;
    if (user_set & n.bit)
      return Err("Samples for '{}' event do not have {} attribute set. Cannot print '{}' field.", evsel.name,
                 n.attr_name, n.name);
    fields &= ~n.bit;  // a default the recording cannot supply
  }
  if ((fields & kFieldSymOff) && !(fields & kFieldSym)) {
    if (user_set & kFieldSymOff) return Err("Display of offsets requested but symbol is not selected.");
    fields &= ~kFieldSymOff;
  }
  if ((user_set & (kFieldSym | kFieldDso)) && !(st & kSampleIp))
    return Err("Display of symbols requested but neither sample IP nor sample address available.");
  return fields;
}

void FoldedStacks::Add(std::string_view comm, std::span<const AddrLocation> callee_first, uint64_t weight) {
  key_.clear();
  for (char c : comm) key_.push_back(c == ' ' ? '_' : c == ';' ? ':' : c);
  for (auto it = callee_first.rbegin(); it != callee_first.rend(); ++it) {
    const AddrLocation& al = *it;
    key_.push_back(';');
    if (al.sym) {
      AppendSanitized(al.sym->name, ';', ':', &key_);
    } else if (al.dso) {
      // stackcollapse-perf: an unknown symbol is named after the basename of the DSO
      // name perf script prints.
      scratch_.resize(DsoNameBound(al.dso));
      std::string_view name(scratch_.data(), PutDsoName(scratch_.data(), al.dso) - scratch_.data());
      size_t slash = name.rfind('/');
      if (slash != std::string_view::npos) name.remove_prefix(slash + 1);
      key_.push_back('[');
      AppendSanitized(name, ';', ':', &key_);
      key_.push_back(']');
    } else {
      key_.append("[unknown]");
    }
    if (al.dso && al.dso->is_kernel()) key_.append("_[k]");
  }
  auto found = stacks_.find(std::string_view(key_));
  if (found == stacks_.end()) found = stacks_.emplace(key_, 0).first;
  found->second += weight;
  total_ += weight;
}

void FoldedStacks::Print(std::string* out) const {
  std::vector<const std::pair<const std::string, uint64_t>*> sorted;
  sorted.reserve(stacks_.size());
  for (const auto& entry : stacks_) sorted.push_back(&entry);
  std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
  for (const auto* entry : sorted) fmt::format_to(std::back_inserter(*out), "{} {}\n", entry->first, entry->second);
}

Result<std::unique_ptr<Script>> Script::Create(PerfFile* file, const ScriptOptions& options) {
  std::unique_ptr<Script> s(new Script());
  s->file_ = file;
  s->options_ = options;
  auto spec = ParseScriptFields(options.fields);
  if (!spec) return spec.error();
  s->folded_mode_ = spec->folded;
  bool use_callchain = false;
  for (const Evsel& ev : file->evsels())
    if (ev.attr.sample_type & kSampleCallchain) use_callchain = !options.hide_call_graph;
  // perf keeps fields per event type and checks them against the first evsel of that
  // type only (perf_session__check_output_opt), e.g. not against a trailing dummy event.
  std::vector<std::pair<uint32_t, uint32_t>> by_type;  // attr.type → fields
  for (const Evsel& ev : file->evsels()) {
    uint32_t fields = 0;
    auto seen = std::find_if(by_type.begin(), by_type.end(), [&](const auto& p) { return p.first == ev.attr.type; });
    if (seen != by_type.end()) {
      fields = seen->second;
    } else if (!s->folded_mode_) {
      auto f = ResolveScriptFields(*spec, ev);
      if (!f) return f.error();
      fields = *f;
      by_type.emplace_back(ev.attr.type, fields);
    }
    s->fields_.push_back(fields);
    s->evsel_chain_.push_back(use_callchain && (ev.attr.sample_type & kSampleCallchain));
    if (s->evsel_chain_.back() && !s->folded_mode_) s->frame_lines_.resize(kFrameLines);
    s->name_width_ = std::max(s->name_width_, ev.name.size());
  }

  const HeaderEnv& env = file->env();
  SymbolizeOptions so = options.symbolize;
  if (so.recorded_osrelease.empty() && env.osrelease) so.recorded_osrelease = *env.osrelease;
  if (so.recorded_arch.empty() && env.arch) so.recorded_arch = *env.arch;
  s->machine_ = std::make_unique<Machine>(env.arch.value_or(""));
  s->machine_->AddBuildIds(env.build_ids);
  s->symbolizer_ = std::make_unique<Symbolizer>(so, s->machine_.get());
  s->resolver_ = std::make_unique<Resolver>(s->machine_.get(), s->symbolizer_.get());
  if (file->SamplesKernel()) s->symbolizer_->PrefetchKernelSymbols();  // read beside the records
  return s;
}

Status Script::Run(const WriteFn& write) {
  TextBuffer out(kFlushBytes + (64 << 10));
  Status st = file_->ReadRecords(
      [&](const RecordView& r) {
        if (r.type == kRecordSample) {
          ProcessSample(r, &out);
          if (out.size() >= kFlushBytes) {
            write(out.view());
            out.clear();
          }
        } else {
          machine_->ProcessRecord(r, file_->loader(), file_->RecordTime(r));
        }
      },
      &read_stats_);
  if (out.size()) write(out.view());
  if (!st) return st;
  if (folded_mode_) {
    std::string text;
    folded_.Print(&text);
    write(text);
  }
  return st;
}

bool Script::Filtered(const Thread* thread) const {
  const ScriptOptions& o = options_;
  if (!o.comms.empty() && !Contains(o.comms, thread->comm())) return true;
  if (!o.pids.empty() && std::find(o.pids.begin(), o.pids.end(), thread->pid()) == o.pids.end()) return true;
  if (!o.tids.empty() && std::find(o.tids.begin(), o.tids.end(), thread->tid()) == o.tids.end()) return true;
  return false;
}

void Script::ProcessSample(const RecordView& r, TextBuffer* out) {
  Sample& s = sample_;  // reused: DecodeSample resets it
  const Evsel* ev = nullptr;
  if (!counters_.Parse(*file_, r, &s, &ev)) return;
  Thread* thread = machine_->FindOrCreateThread(s.pid, s.tid);
  if (Filtered(thread)) {
    ++counters_.nr_filtered;
    return;
  }
  const bool has_chain = evsel_chain_[ev->index];
  if (folded_mode_) {
    fold_frames_.clear();
    if (has_chain) {
      if (!ResolveCallchain(*resolver_, thread, s.callchain, options_.max_stack, &frames_))
        ++counters_.nr_bad_callchains;
      for (const CallchainFrame& f : frames_) fold_frames_.push_back(f.al);
    } else {
      fold_frames_.push_back(resolver_->Resolve(thread, s.cpumode(), s.ip));
    }
    folded_.Add(thread->comm(), fold_frames_, options_.folded_weight_period ? s.period : 1);
    return;
  }
  AddrLocation al;
  if ((fields_[ev->index] & kFieldIp) && !has_chain) al = resolver_->Resolve(thread, s.cpumode(), s.ip);
  PrintSample(s, *ev, thread, al, has_chain, out);
}

void Script::PrintSample(const Sample& s, const Evsel& ev, Thread* thread, const AddrLocation& al,
                         bool has_chain, TextBuffer* out) {
  const uint32_t f = fields_[ev.index];
  const bool chain = has_chain && (f & kFieldIp);
  const std::string& comm = thread->comm();
  // perf_sample__fprintf_start. The bound: every field at its widest, with the line
  // of a sample without callchain.
  char* p = out->Reserve(comm.size() + std::max(name_width_, ev.name.size()) + 160 +
                         (chain ? 0 : SymbolBound(al) + DsoNameBound(al.dso)));
  if (f & kFieldComm) {
    p = chain ? PutStr(p, comm) : PutStrRight(p, comm, 16);
    *p++ = ' ';
  }
  const int pid = static_cast<int>(s.pid), tid = static_cast<int>(s.tid);
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
    p = PutIntZeroPad(p, static_cast<int>(s.cpu), 3);
    p = PutStr(p, "] ");
  }
  if (f & kFieldTime) p = PutStr(PutTimeUsec(p, s.time, 12), ": ");  // timestamp__scnprintf_usec
  if (f & kFieldPeriod) {
    p = PutDec(p, s.period, 10);
    *p++ = ' ';
  }
  if (f & kFieldEvent) p = PutStr(PutStrRight(p, ev.name, name_width_), ": ");

  if (f & kFieldIp) {
    const bool sym = f & kFieldSym, symoff = f & kFieldSymOff, dso = f & kFieldDso;
    if (chain) {
      // sample__fprintf_callchain: one line per frame; a corrupt chain prints none.
      *p++ = '\n';
      out->Commit(p);
      const size_t frames_start = out->size();
      if (!WalkCallchain(s.callchain, options_.max_stack, false,
                         [&](uint64_t ip, uint16_t cpumode, bool) { PrintFrame(thread, cpumode, ip, f, out); })) {
        out->Truncate(frames_start);
        ++counters_.nr_bad_callchains;
      }
      p = out->Reserve(1);
    } else {
      *p++ = ' ';
      p = PutHex(p, s.ip, 16);
      if (sym) {
        *p++ = ' ';
        p = PutSymbol(p, al, symoff);
      }
      if (dso) p = PutDso(p, al);
    }
  }
  *p++ = '\n';
  out->Commit(p);
}

void Script::PrintFrame(Thread* thread, uint16_t cpumode, uint64_t ip, uint32_t f, TextBuffer* out) {
  static_assert(kFieldSymOff == kFieldSym << 1 && kFieldDso == kFieldSym << 2);
  const auto line_fields = static_cast<uint8_t>((f / kFieldSym) & 7);
  FrameLine* line = nullptr;
  uint64_t maps_id = 0, generation = 0;
  if (const Maps* maps = machine_->MapsFor(thread, cpumode)) {
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
  const AddrLocation al = resolver_->Resolve(thread, cpumode, ip);
  char* const start = out->Reserve(24 + SymbolBound(al) + DsoNameBound(al.dso));
  char* p = start;
  *p++ = '\t';
  p = PutHex(p, al.dso && !al.dso->is_kernel() ? al.addr : ip, 16);
  if (f & kFieldSym) {
    *p++ = ' ';
    p = PutSymbol(p, al, f & kFieldSymOff);
  }
  if (f & kFieldDso) p = PutDso(p, al);
  *p++ = '\n';
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

std::vector<std::string> Script::SummaryLines() const {
  std::vector<std::string> lines;
  const auto& c = counters_;
  c.AppendSummary(&lines);
  if (c.nr_bad_callchains)
    lines.push_back(fmt::format("{} callchains with guest/unknown context markers printed empty", c.nr_bad_callchains));
  for (auto& p : symbolizer_->Problems()) lines.push_back(p);
  return lines;
}

}  // namespace perflens
