#include "report/report.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <system_error>
#include <thread>

#include "perfdata/perf_event.h"

namespace perflens {
namespace {

constexpr size_t kPrefetchAhead = 8;

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
  // In pipe mode perf picks the caller order while Children is still on by default,
  // then turns Children off once it finds no attrs yet: caller order, no Children.
  if (!order_set) cg.caller_order = r->children_ || (file->pipe_mode() && !options.children.has_value());
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
  if (file->SamplesKernel()) r->symbolizer_->PrefetchKernelSymbols();  // read beside the records
  r->flat_ = options.sum_samples && !r->children_ && cg.mode == CallGraphMode::kNone &&
             file->evsels().size() <= UINT16_MAX;
  for (const SortKey* k : r->sort_keys_)
    if (k->name == std::string_view("cpu")) r->sums_by_cpu_ = true;
  r->defer_kernel_symbols_ =
      options.defer_kernel_symbols && !r->children_ && cg.mode == CallGraphMode::kNone && options.symbols.empty();
  return r;
}

// Batches go from one thread to the next (reading -> resolving -> hists) and back
// empty. At most kBatches exist per pipeline, so a producer waits when its consumer
// falls behind (bounded memory), and the consumer takes them in exactly the order they
// were filled.
template <typename B>
class Report::Pipeline {
 public:
  static constexpr size_t kBatches = 3;
  static constexpr size_t kBatchItems = 4096;
  // Long chains (a large --max-stack on a hostile file: up to 8K frames a sample) ship
  // a batch early, so the batches stay within ~3 x 40 MB.
  static constexpr size_t kBatchFrames = size_t{1} << 20;

  Pipeline() {
    for (size_t i = 0; i < kBatches; ++i) {
      all_.push_back(std::make_unique<B>());
      free_.push_back(all_.back().get());
    }
  }
  // Producer: an empty batch (waits for one).
  B* TakeFree() {
    std::unique_lock lock(m_);
    cv_.wait(lock, [&] { return !free_.empty(); });
    B* b = free_.front();
    free_.pop_front();
    return b;
  }
  void PushFull(B* b) {
    {
      std::lock_guard lock(m_);
      full_.push_back(b);
    }
    cv_.notify_all();
  }
  void Close() {
    {
      std::lock_guard lock(m_);
      closed_ = true;
    }
    cv_.notify_all();
  }
  // Consumer: the next full batch; nullptr once closed and drained.
  B* TakeFull() {
    std::unique_lock lock(m_);
    cv_.wait(lock, [&] { return !full_.empty() || closed_; });
    if (full_.empty()) return nullptr;
    B* b = full_.front();
    full_.pop_front();
    return b;
  }
  void Recycle(B* b) {
    b->clear();
    {
      std::lock_guard lock(m_);
      free_.push_back(b);
    }
    cv_.notify_all();
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<B>> all_;
  std::deque<B*> free_, full_;
  bool closed_ = false;
};

Report::~Report() = default;

namespace {
// Copied record bytes per read batch (a batch of piped or decompressed records).
constexpr size_t kMaxOwnedBatchBytes = 4 << 20;
}  // namespace

Status Report::Process() {
  pipeline_ = std::make_unique<Pipeline<Batch>>();
  batch_ = pipeline_->TakeFree();
  std::thread hists_thread;
  // Flat mode adds to the hists here, once per key: nothing for a hists thread to do.
  if (options_.use_threads && !flat_) {
    try {
      hists_thread = std::thread([this] {
        while (Batch* b = pipeline_->TakeFull()) {
          AddBatch(*b);
          pipeline_->Recycle(b);
        }
      });
    } catch (const std::system_error&) {
      // No second thread: Ship adds each batch on this one.
    }
  }
  threaded_ = hists_thread.joinable();

  // Framing and ordering on a reading thread when one can be had; decoding and
  // resolution here. Records are passed as views (the PerfFile keeps their bytes).
  Status st = Status::Ok();
  std::thread read_thread;
  if (options_.use_threads) {
    read_pipeline_ = std::make_unique<Pipeline<ReadBatch>>();
    read_batch_ = read_pipeline_->TakeFree();
    try {
      read_thread = std::thread([this, &st] {
        // Points the copied views at their bytes, once `owned` no longer grows.
        auto ship = [this] {
          ReadBatch& b = *read_batch_;
          if (!b.owned.empty())
            for (RecordView& v : b.records)
              if (v.chunk) v.data = b.owned.data() + reinterpret_cast<uintptr_t>(v.data);
          read_pipeline_->PushFull(read_batch_);
          read_batch_ = read_pipeline_->TakeFree();
        };
        st = file_->ReadRecords(
            [this, &ship](const RecordView& r) {
              ReadBatch& b = *read_batch_;
              b.records.push_back(r);
              if (r.chunk) {
                b.records.back().data = reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(b.owned.size()));
                b.owned.insert(b.owned.end(), r.data, r.data + r.size);
              }
              if (b.records.size() >= Pipeline<ReadBatch>::kBatchItems || b.owned.size() >= kMaxOwnedBatchBytes) ship();
            },
            &read_stats_);
        if (!read_batch_->records.empty()) ship();
        read_pipeline_->Close();
      });
    } catch (const std::system_error&) {
      read_pipeline_.reset();
    }
  }
  if (read_thread.joinable()) {
    while (ReadBatch* rb = read_pipeline_->TakeFull()) {
      HandleReadBatch(*rb);
      read_pipeline_->Recycle(rb);
    }
    read_thread.join();
  } else {
    st = file_->ReadRecords([this](const RecordView& r) { HandleRecord(r); }, &read_stats_);
  }
  read_pipeline_.reset();
  read_batch_ = nullptr;

  FlushSums();
  Ship();
  pipeline_->Close();
  if (hists_thread.joinable()) hists_thread.join();
  pipeline_.reset();
  batch_ = nullptr;
  ResolveDeferredSymbols();
  for (Hists& h : hists_) h.ResolvePlaceholderComms();
  return st;
}

void Report::HandleReadBatch(const ReadBatch& rb) {
  // The records come cold from the reading thread's core: fetch a few ahead.
  const std::vector<RecordView>& recs = rb.records;
  if (!flat_) {
    for (size_t i = 0; i < recs.size(); ++i) {
      if (i + kPrefetchAhead < recs.size()) __builtin_prefetch(recs[i + kPrefetchAhead].data);
      HandleRecord(recs[i]);
    }
    return;
  }
  // Flat mode: runs of samples are decoded, then summed together (AddSummed prefetches
  // the sums' table ahead), up to the next other record.
  constexpr size_t kRun = 256;
  SummedSample run[kRun];
  size_t n = 0;
  SampleBasics basics;
  for (size_t i = 0; i < recs.size(); ++i) {
    if (i + kPrefetchAhead < recs.size()) __builtin_prefetch(recs[i + kPrefetchAhead].data);
    const RecordView& r = recs[i];
    if (r.type == kRecordSample) {
      if (DecodeSummed(r, &counters_, &basics, &sample_, &run[n]) && ++n == kRun) {
        AddSummed({run, n});
        n = 0;
      }
      continue;
    }
    AddSummed({run, n});
    n = 0;
    HandleRecord(r);
  }
  AddSummed({run, n});
}

bool Report::DecodeSummed(const RecordView& r, SampleCounts* counts, SampleBasics* basics, Sample* scratch,
                          SummedSample* out) const {
  const Evsel* ev = nullptr;
  if (!counts->ParseBasics(*file_, r, basics, &ev, scratch)) return false;
  out->key.ip = basics->ip;
  out->key.pid = basics->pid;
  out->key.tid = basics->tid;
  out->key.cpu = sums_by_cpu_ ? basics->cpu : 0;
  out->key.evsel = static_cast<uint16_t>(ev->index);
  out->key.cpumode = r.cpumode();
  out->period = basics->period;
  return true;
}

void Report::AddSummed(std::span<const SummedSample> samples) {
  constexpr size_t kSlotAhead = 16, kEntryAhead = 8;
  const size_t n = samples.size();
  for (size_t i = 0; i < n; ++i) {
    if (i + kSlotAhead < n) sums_.PrefetchSlot(samples[i + kSlotAhead].key);
    if (i + kEntryAhead < n) sums_.PrefetchEntry(samples[i + kEntryAhead].key);
    const SummedSample& s = samples[i];
    if (s.key.cpumode == kMiscGuestKernel || s.key.cpumode == kMiscGuestUser) ++counters_.nr_guest;
    if (sums_.Add(s.key, s.period)) LocateSummed(s.key);
  }
}

void Report::HandleRecord(const RecordView& r) {
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
      if (flat_ && Machine::ChangesModel(r.type)) FlushSums();
      machine_->ProcessRecord(r, file_->loader(), file_->RecordTime(r));
      break;
  }
}

void Report::Ship() {
  if (batch_->samples.empty()) return;
  if (threaded_) {
    pipeline_->PushFull(batch_);
    batch_ = pipeline_->TakeFree();
  } else {
    AddBatch(*batch_);
    batch_->clear();
  }
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
  Sample& s = sample_;  // reused: DecodeSample resets it (a fresh one per sample was a second 370-byte clear)
  if (flat_) {
    SampleBasics basics;
    SummedSample summed;
    if (DecodeSummed(r, &counters_, &basics, &s, &summed)) AddSummed({&summed, 1});
    return;
  }
  const Evsel* ev = nullptr;
  if (!counters_.Parse(*file_, r, &s, &ev)) return;
  const uint16_t cpumode = s.cpumode();
  if (cpumode == kMiscGuestKernel || cpumode == kMiscGuestUser) ++counters_.nr_guest;

  Thread* thread = machine_->FindOrCreateThread(s.pid, s.tid);
  PendingSample& p = AddPending(thread, static_cast<uint32_t>(ev->index), cpumode, s.cpu, s.ip, s.period);
  Batch& b = *batch_;
  if (!p.filtered && (children_ || call_graph_.mode != CallGraphMode::kNone)) {
    p.chain_ok = ResolveCallchain(thread, s, p.al.level, &b);
    p.frames_end = static_cast<uint32_t>(b.frames.size());
  }
  if (b.samples.size() >= Pipeline<Batch>::kBatchItems || b.frames.size() >= Pipeline<Batch>::kBatchFrames) Ship();
}

AddrLocation Report::Locate(Thread* thread, uint16_t cpumode, uint64_t ip, DeferredSymbol** deferred) {
  AddrLocation al = defer_kernel_symbols_ && cpumode == kMiscKernel && symbolizer_->KernelSymbolsPending()
                        ? ResolveDeferringKernelSymbol(thread, ip, deferred)
                        : resolver_->Resolve(thread, cpumode, ip);
  if (al.dso) al.dso->hit = true;
  return al;
}

void Report::CountLocated(const AddrLocation& al, uint64_t nr_samples) {
  if (!al.dso) counters_.nr_no_map += nr_samples;
  else if (!al.sym) counters_.nr_no_symbol += nr_samples;
}

Report::PendingSample& Report::AddPending(Thread* thread, uint32_t evsel, uint16_t cpumode, uint32_t cpu, uint64_t ip,
                                          uint64_t period) {
  DeferredSymbol* deferred = nullptr;
  AddrLocation al = Locate(thread, cpumode, ip, &deferred);
  CountLocated(al, 1);
  if (deferred) ++deferred->nr_samples;

  Batch& b = *batch_;
  PendingSample& p = b.samples.emplace_back();
  p.evsel = evsel;
  p.cpumode = cpumode;
  p.comm = thread->comm_ptr();
  p.thread = thread;
  p.pid = thread->pid();
  p.tid = thread->tid();
  p.cpu = cpu;
  p.period = period;
  p.al = al;
  p.frames_begin = p.frames_end = static_cast<uint32_t>(b.frames.size());
  p.filtered = Filtered(thread, al);
  return p;
}

void Report::LocateSummed(const SampleSumKey& k) {
  Thread* thread = machine_->FindOrCreateThread(k.pid, k.tid);
  SummedRow& sr = summed_rows_.emplace_back();
  AddrLocation al = Locate(thread, k.cpumode, k.ip, &sr.deferred);
  sr.no_map = !al.dso;
  sr.no_symbol = al.dso && !al.sym;
  sr.filtered = Filtered(thread, al);
  if (sr.filtered) return;
  PendingSample p;
  p.comm = thread->comm_ptr();
  p.thread = thread;
  p.pid = thread->pid();
  p.tid = thread->tid();
  p.cpu = k.cpu;
  p.al = al;
  sr.row = static_cast<uint32_t>(hists_[k.evsel].FindOrAdd(MakeProto(p)));
}

void Report::FlushSums() {
  std::span<const SampleSums::Entry> entries = sums_.entries();
  for (size_t i = 0; i < entries.size(); ++i) {
    const SampleSums::Entry& e = entries[i];
    const SummedRow& sr = summed_rows_[i];
    Hists& hists = hists_[e.key.evsel];
    AddTotals(&hists, e.period, e.key.cpumode, e.nr_samples);
    if (sr.no_map) counters_.nr_no_map += e.nr_samples;
    if (sr.no_symbol) counters_.nr_no_symbol += e.nr_samples;
    if (sr.deferred) sr.deferred->nr_samples += e.nr_samples;
    if (!sr.filtered) Hists::AddSelf(&hists.at(sr.row), e.period, e.key.cpumode, e.nr_samples);
  }
  sums_.Clear();
  summed_rows_.clear();
}

AddrLocation Report::ResolveDeferringKernelSymbol(Thread* thread, uint64_t ip, DeferredSymbol** deferred) {
  AddrLocation al = resolver_->ResolveMap(thread, kMiscKernel, ip);
  if (!al.dso) return al;
  if (al.dso->kind() != DsoKind::kKernel) {
    al.sym = resolver_->FindSymbol(al.dso, al.addr);  // a module: waits for kallsyms
    return al;
  }
  auto [it, added] = deferred_by_addr_.try_emplace(al.addr, nullptr);
  if (added) {
    DeferredSymbol& d = deferred_.emplace_back();
    ++counters_.nr_deferred_kernel_symbols;
    d.placeholder.start = al.addr;
    d.placeholder.end = al.addr + 1;
    d.dso = al.dso;
    it->second = &d;
  } else if (it->second->dso != al.dso) {
    al.sym = resolver_->FindSymbol(al.dso, al.addr);  // a second kernel Dso: no shortcut
    return al;
  }
  *deferred = it->second;
  al.sym = &it->second->placeholder;
  return al;
}

void Report::ResolveDeferredSymbols() {
  if (deferred_.empty()) return;
  std::unordered_map<const Symbol*, const Symbol*> real;
  for (DeferredSymbol& d : deferred_) {
    const Symbol* sym = resolver_->FindSymbol(d.dso, d.placeholder.start);
    if (!sym) counters_.nr_no_symbol += d.nr_samples;
    real.emplace(&d.placeholder, sym);
  }
  for (Hists& h : hists_) h.ReplaceSymbols(real);
}

void Report::AddBatch(const Batch& b) {
  for (const PendingSample& p : b.samples)
    AddSample(p, std::span<const AddrLocation>(b.frames).subspan(p.frames_begin, p.frames_end - p.frames_begin));
}

void Report::AddTotals(Hists* hists, uint64_t period, uint16_t cpumode, uint64_t nr_samples) {
  hists->total_period += period;
  hists->nr_samples += nr_samples;
  if (cpumode == kMiscKernel) hists->total_period_sys += period;
  else if (cpumode == kMiscUser) hists->total_period_us += period;
}

HistEntry Report::MakeProto(const PendingSample& p) {
  HistEntry proto;
  proto.comm = p.comm;
  proto.thread = p.thread;
  proto.pid = p.pid;
  proto.tid = p.tid;
  proto.cpu = p.cpu;
  proto.dso = p.al.dso;
  proto.sym = p.al.sym;
  proto.addr = p.al.addr;
  proto.level = p.al.level;
  return proto;
}

void Report::AddSample(const PendingSample& p, std::span<const AddrLocation> frames) {
  Hists& hists = hists_[p.evsel];
  AddTotals(&hists, p.period, p.cpumode, 1);
  if (p.filtered) return;

  HistEntry proto = MakeProto(p);
  size_t self_row = hists.FindOrAdd(proto);
  Hists::AddSelf(&hists.at(self_row), p.period, p.cpumode);
  const bool graph = call_graph_.mode != CallGraphMode::kNone;
  if (!children_ && !graph) return;

  uint32_t chain_pos = 0;
  // perf's callchain_append adds nothing for an empty chain (a corrupt one is emptied):
  // no root hit, so no empty "value " line in flat/folded output.
  if (graph && !frames.empty()) {
    // The chain in print order: callee first (the kernel's order) or caller first.
    chain_.clear();
    for (const AddrLocation& fl : frames) chain_.push_back(hists.chains().InternFrame({fl.dso, fl.sym, fl.addr}));
    if (call_graph_.caller_order) std::reverse(chain_.begin(), chain_.end());
    chain_pos = hists.chains().AddChain(chain_);
    hists.chains().AddRef(self_row, chain_pos, 0, static_cast<uint32_t>(chain_.size()), p.period);
  }
  if (!children_) return;

  // Children: every distinct row on the callchain gets the period once (perf's
  // hist_entry_iter cumulative mode, deduplicated by sort keys), walking the chain in
  // print order; each such row's graph gets the part of the chain from it onwards.
  Hists::AddAcc(&hists.at(self_row), p.period);
  chain_rows_.clear();
  chain_rows_.push_back(self_row);
  if (!p.chain_ok) return;
  const size_t n = frames.size();
  for (size_t k = 0; k < n; ++k) {
    const AddrLocation& fl = frames[call_graph_.caller_order ? n - 1 - k : k];
    proto.dso = fl.dso;
    proto.sym = fl.sym;
    proto.addr = fl.addr;
    proto.level = fl.level;
    size_t row = hists.FindOrAdd(proto);
    if (std::find(chain_rows_.begin(), chain_rows_.end(), row) != chain_rows_.end()) continue;
    chain_rows_.push_back(row);
    Hists::AddAcc(&hists.at(row), p.period);
    if (graph) hists.chains().AddRef(row, chain_pos, static_cast<uint32_t>(k), static_cast<uint32_t>(n), p.period);
  }
}

bool Report::ResolveCallchain(Thread* thread, const Sample& s, char sample_level, Batch* batch) {
  if (!perflens::ResolveCallchain(*resolver_, thread, s.callchain, options_.max_stack, &chain_frames_,
                                  options_.adjust_return_addresses, call_graph_.caller_order)) {
    ++counters_.nr_bad_callchains;
    return false;
  }
  const size_t begin = batch->frames.size(), n = chain_frames_.size();
  for (const CallchainFrame& f : chain_frames_) {
    AddrLocation fl = f.al;
    if (!fl.sym) fl.addr = f.ip;  // fill_callchain_info: unresolved nodes keyed by the raw ip
    batch->frames.push_back(fl);
  }
  // perf's fill_callchain_info reuses the sample's addr_location along the chain, in
  // print order: a node with a map sets the level from the maps it was found in, a node
  // without one keeps the level of the node before it (the sample's for the first).
  char level = sample_level;
  for (size_t k = 0; k < n; ++k) {
    AddrLocation& fl = batch->frames[begin + (call_graph_.caller_order ? n - 1 - k : k)];
    if (fl.dso) level = fl.dso->is_kernel() ? 'k' : '.';
    fl.level = level;
  }
  return true;
}

std::vector<std::string> Report::SummaryLines() const {
  std::vector<std::string> lines;
  const auto& c = counters_;
  // Said even when no sample was usable (all malformed, unknown ids): that is when the
  // reason matters most.
  auto pct = [&](uint64_t n) { return c.nr_samples ? 100.0 * static_cast<double>(n) / static_cast<double>(c.nr_samples) : 0.0; };
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
  if (c.nr_samples == 0) lines.push_back(fmt::format("{} has no usable samples", file_->path()));
  return lines;
}

}  // namespace perflens
