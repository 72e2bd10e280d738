#include "report/report.h"

#include <algorithm>

#include "perfdata/perf_event.h"

namespace perflens {
namespace {

bool Contains(const std::vector<std::string>& list, std::string_view s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

}  // namespace

Result<std::unique_ptr<Report>> Report::Create(PerfFile* file, const ReportOptions& options) {
  std::unique_ptr<Report> r(new Report());
  r->file_ = file;
  r->options_ = options;
  // perf: with -F and no -s, the sort keys are the sort-key fields of -F; with both, rows
  // are grouped by the union (fields that are sort keys become sort keys too).
  std::string sort = options.sort;
  std::string field_keys;
  for (std::string_view rest = options.fields; !rest.empty();) {
    size_t comma = rest.find(',');
    std::string_view f = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (FindSortKey(f)) field_keys += (field_keys.empty() ? "" : ",") + std::string(f);
  }
  if (!field_keys.empty()) sort = options.sort_given ? sort + "," + field_keys : field_keys;
  auto keys = ParseSortKeys(sort);
  if (!keys) return keys.error();
  if (keys->size() > Hists::kMaxKeys) return Err("at most {} sort keys", Hists::kMaxKeys);
  r->sort_keys_ = *keys;
  for (const auto& ev : file->evsels()) {
    (void)ev;
    r->hists_.emplace_back(r->sort_keys_);
  }
  for (const auto& ev : file->evsels())
    if (ev.attr.sample_type & kSampleCallchain) r->has_callchains_ = true;
  // perf 6.1 decides the Children default before a pipe's attrs arrive: off in pipe mode.
  r->children_ = options.children.value_or(r->has_callchains_ && !file->pipe_mode());
  if (!r->has_callchains_) r->children_ = false;  // perf: nothing to accumulate
  // perf report's default is graph,0.5 with caller order for children, callee without.
  CallGraphParams& cg = r->call_graph_;
  bool order_set = false;
  std::string cg_error;
  if (!ParseCallGraphArg(options.call_graph, &cg, &order_set, &cg_error)) return Error{cg_error};
  if (!order_set) cg.caller_order = r->children_;
  if (!r->has_callchains_) cg.mode = CallGraphMode::kNone;
  // perf's parse_percent_limit also sets the call-graph threshold.
  if (options.percent_limit > 0) cg.min_percent = options.percent_limit;
  // With -F the first percentage field decides the order (Children only when named).
  r->sort_by_children_ = r->children_;
  if (!options.fields.empty()) {
    size_t oc = options.fields.find("overhead_children"), o = options.fields.find("overhead");
    r->sort_by_children_ = r->children_ && oc != std::string::npos && oc == o;
  }
  cg.skip_first_sym = options.fields.empty() && options.sort.rfind("sym", 0) == 0;

  const HeaderEnv& env = file->env();
  SymbolizeOptions so = options.symbolize;
  if (so.recorded_osrelease.empty() && env.osrelease) so.recorded_osrelease = *env.osrelease;
  if (so.recorded_arch.empty() && env.arch) so.recorded_arch = *env.arch;
  r->machine_ = std::make_unique<Machine>(env.arch.value_or(""));
  r->machine_->AddBuildIds(env.build_ids);
  r->symbolizer_ = std::make_unique<Symbolizer>(so, r->machine_.get());
  r->resolver_ = std::make_unique<Resolver>(r->machine_.get(), r->symbolizer_.get());
  // Kernel symbols take as long to read as the samples: read them alongside.
  for (const auto& ev : file->evsels())
    if (!ev.attr.exclude_kernel()) {
      r->symbolizer_->PrefetchKernelSymbols();
      break;
    }
  return r;
}

Status Report::Process() {
  Status st = file_->ReadRecords(
      [this](const RecordView& r) {
        switch (r.type) {
          case kRecordSample:
            ProcessSample(r);
            break;
          case kRecordLostSamples:
            if (r.size >= 16) counters_.total_lost_samples += file_->loader().U64(r.data + 8);
            break;
          case kRecordLost: {
            LostEvent e;
            if (DecodeLost(r, file_->loader(), &e)) counters_.total_lost += e.lost;
            break;
          }
          default:
            machine_->ProcessRecord(*file_, r);
            break;
        }
      },
      &read_stats_);
  for (Hists& h : hists_) h.ResolvePlaceholderComms();
  return st;
}

bool Report::Filtered(const Thread* thread, const AddrLocation& al) const {
  const ReportOptions& o = options_;
  if (!o.comms.empty() && !Contains(o.comms, thread->comm())) return true;
  if (!o.pids.empty() && std::find(o.pids.begin(), o.pids.end(), thread->pid()) == o.pids.end()) return true;
  if (!o.tids.empty() && std::find(o.tids.begin(), o.tids.end(), thread->tid()) == o.tids.end()) return true;
  if (!o.dsos.empty()) {
    if (!al.dso) return true;
    if (!Contains(o.dsos, al.dso->short_name()) && !Contains(o.dsos, al.dso->long_name())) return true;
  }
  if (!o.symbols.empty() && (!al.sym || !Contains(o.symbols, al.sym->name))) return true;
  return false;
}

void Report::ProcessSample(const RecordView& r) {
  Sample s;
  const Evsel* ev = nullptr;
  if (!counters_.Parse(*file_, r, &s, &ev)) return;
  Hists& hists = hists_[ev->index];
  hists.total_period += s.period;
  hists.nr_samples += 1;
  const uint16_t cpumode = s.cpumode();
  if (cpumode == kMiscKernel) hists.total_period_sys += s.period;
  else if (cpumode == kMiscUser) hists.total_period_us += s.period;
  else if (cpumode == kMiscGuestKernel || cpumode == kMiscGuestUser) ++counters_.nr_guest;

  Thread* thread = machine_->FindOrCreateThread(s.pid, s.tid);
  AddrLocation al = resolver_->Resolve(thread, cpumode, s.ip);
  if (!al.dso) ++counters_.nr_no_map;
  else if (!al.sym) ++counters_.nr_no_symbol;
  if (al.dso) al.dso->hit = true;
  if (Filtered(thread, al)) return;

  HistEntry proto;
  proto.comm = thread->comm_ptr();
  proto.thread = thread;
  proto.pid = thread->pid();
  proto.tid = thread->tid();
  proto.cpu = s.cpu;
  proto.dso = al.dso;
  proto.sym = al.sym;
  proto.addr = al.addr;
  proto.level = al.level;
  size_t self_row = hists.FindOrAdd(proto);
  Hists::AddSelf(&hists.at(self_row), s.period, cpumode);
  const bool graph = call_graph_.mode != CallGraphMode::kNone;
  if (!children_ && !graph) return;

  bool chain_ok = ResolveCallchain(thread, s, al.level);
  uint32_t chain_pos = 0;
  if (graph) {
    // The chain in print order: callee first (the kernel's order) or caller first.
    chain_.clear();
    for (const AddrLocation& fl : frames_) chain_.push_back(hists.chains().InternFrame({fl.dso, fl.sym, fl.addr}));
    if (call_graph_.caller_order) std::reverse(chain_.begin(), chain_.end());
    chain_pos = hists.chains().AddChain(chain_);
    hists.chains().AddRef(self_row, chain_pos, 0, static_cast<uint32_t>(chain_.size()), s.period);
  }
  if (!children_) return;

  // Children: every distinct row on the callchain gets the period once (perf's
  // hist_entry_iter cumulative mode, deduplicated by sort keys), walking the chain in
  // print order; each such row's graph gets the part of the chain from it onwards.
  Hists::AddAcc(&hists.at(self_row), s.period);
  chain_rows_.clear();
  chain_rows_.push_back(self_row);
  if (!chain_ok) return;
  const size_t n = frames_.size();
  for (size_t k = 0; k < n; ++k) {
    const AddrLocation& fl = frames_[call_graph_.caller_order ? n - 1 - k : k];
    proto.dso = fl.dso;
    proto.sym = fl.sym;
    proto.addr = fl.addr;
    proto.level = fl.level;
    size_t row = hists.FindOrAdd(proto);
    if (std::find(chain_rows_.begin(), chain_rows_.end(), row) != chain_rows_.end()) continue;
    chain_rows_.push_back(row);
    Hists::AddAcc(&hists.at(row), s.period);
    if (graph) hists.chains().AddRef(row, chain_pos, static_cast<uint32_t>(k), static_cast<uint32_t>(n), s.period);
  }
}

bool Report::ResolveCallchain(Thread* thread, const Sample& s, char sample_level) {
  frames_.clear();
  if (!perflens::ResolveCallchain(*resolver_, thread, s.callchain, options_.max_stack, &chain_frames_,
                                  options_.adjust_return_addresses, call_graph_.caller_order)) {
    ++counters_.nr_bad_callchains;
    return false;
  }
  for (const CallchainFrame& f : chain_frames_) {
    AddrLocation fl = f.al;
    // fill_callchain_info: unresolved nodes are keyed by the raw ip; the level follows
    // the maps the node was found in, else stays the sample's.
    if (!fl.sym) fl.addr = f.ip;
    fl.level = fl.dso ? (fl.dso->is_kernel() ? 'k' : '.') : sample_level;
    frames_.push_back(fl);
  }
  return true;
}

std::vector<std::string> Report::SummaryLines() const {
  std::vector<std::string> lines;
  const auto& c = counters_;
  if (c.nr_samples == 0) return lines;
  auto pct = [&](uint64_t n) { return 100.0 * static_cast<double>(n) / static_cast<double>(c.nr_samples); };
  if (c.nr_no_map)
    lines.push_back(fmt::format("{:.1f}% ({}/{}) samples in no map ([unknown])", pct(c.nr_no_map), c.nr_no_map,
                                c.nr_samples));
  if (c.nr_no_symbol)
    lines.push_back(fmt::format("{:.1f}% ({}/{}) samples in a DSO without a symbol there", pct(c.nr_no_symbol),
                                c.nr_no_symbol, c.nr_samples));
  c.AppendSummary(&lines);
  if (c.nr_guest) lines.push_back(fmt::format("{} guest samples (guest machines are not modelled)", c.nr_guest));
  if (c.nr_bad_callchains)
    lines.push_back(fmt::format("{} callchains with guest/unknown context markers dropped", c.nr_bad_callchains));
  for (auto& p : symbolizer_->Problems()) lines.push_back(p);
  return lines;
}

}  // namespace perflens
