#include "session/session.h"

#include <sys/utsname.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <system_error>
#include <thread>
#include <type_traits>

#include <fmt/format.h>

#include "perfdata/perf_event.h"
#include "perfdata/sample_read.h"

namespace perflens {
namespace {

constexpr size_t kPrefetchAhead = 8;
// Copied record bytes per read batch (a batch of piped or decompressed records).
constexpr size_t kMaxOwnedBatchBytes = 4 << 20;
// Record bytes per read batch: 4096 --call-graph dwarf samples are ~35 MB of the file,
// which the batches in flight keep resident.
constexpr uint64_t kMaxBatchRecordBytes = 4u << 20;
// Records the ordering queue delivers late come from at most about this far before the
// batch being processed (a FINISHED_ROUND holds a few MiB per CPU); bytes further back
// are given back to the kernel (PerfFile::DropProcessedBytes).
constexpr uint64_t kReorderSlack = 16u << 20;

bool Contains(const std::vector<std::string>& list, std::string_view s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

}  // namespace

const SampleNeeds Session::kDefaultNeeds{};

bool SampleFilter::ByThread(const Thread& thread) const {
  if (!comms.empty() && !Contains(comms, thread.comm())) return true;
  if (!pids.empty() && std::find(pids.begin(), pids.end(), thread.pid()) == pids.end()) return true;
  if (!tids.empty() && std::find(tids.begin(), tids.end(), thread.tid()) == tids.end()) return true;
  return false;
}

bool SampleFilter::ByLocation(const AddrLocation& al) const {
  if (!dsos.empty()) {
    if (!al.dso) return true;
    if (!Contains(dsos, al.dso->short_name()) && !Contains(dsos, al.dso->long_name())) return true;
  }
  if (!symbols.empty() && (!al.sym || !Contains(symbols, al.sym->name))) return true;
  return false;
}

// Batches go from one thread to the next and back empty. At most kBatches exist per
// pipeline, so a producer waits when its consumer falls behind (bounded memory), and
// the consumer takes them in exactly the order they were filled.
template <typename B>
class Session::Pipeline {
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
  // Consumer: the next full batch if one is ready, else nullptr at once.
  B* TryTakeFull() {
    std::lock_guard lock(m_);
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

// Records from the reading thread. Views into the reader's own chunks (decompressed or
// piped records) live only during the read callback, so their bytes are copied into
// `owned` (the view's data holds the offset there until the batch is shipped).
struct Session::ReadBatch {
  std::vector<RecordView> records;
  std::vector<uint8_t> owned;
  uint64_t record_bytes = 0;               // sum of the records' sizes
  uint64_t lowest_offset = UINT64_MAX;     // smallest perf_data_offset among them
  void clear() {
    records.clear();
    owned.clear();
    record_bytes = 0;
    lowest_offset = UINT64_MAX;
  }
};

// Resolved samples for the consumer thread; sample i's callchain is
// frames[chain_begin[i], chain_end[i]).
struct Session::SampleBatch {
  std::vector<ResolvedSample> samples;
  std::vector<std::pair<uint32_t, uint32_t>> chains;
  std::vector<CallchainFrame> frames;
  std::vector<std::pair<uint32_t, uint32_t>> raws;  // per sample: [begin, end) in raw_bytes
  std::vector<uint8_t> raw_bytes;
  void clear() {
    samples.clear();
    chains.clear();
    frames.clear();
    raws.clear();
    raw_bytes.clear();
  }
};

Session::~Session() = default;

std::unique_ptr<Session> Session::Open(PerfFile* file, SessionOptions options) {
  std::unique_ptr<Session> s(new Session());
  s->file_ = file;
  const HeaderEnv& env = file->env();
  SymbolizeOptions& so = options.symbolize;
  if (so.recorded_osrelease.empty() && env.osrelease) so.recorded_osrelease = *env.osrelease;
  if (so.recorded_arch.empty() && env.arch) so.recorded_arch = *env.arch;
  s->options_ = std::move(options);
  s->machine_ = std::make_unique<Machine>(env.arch.value_or(""));
  s->machine_->AddBuildIds(env.build_ids);
  // DWARF-unwound chains get inline frames in (nearly) every module they pass: their
  // line tables open on a helper as the modules load.
  for (const Evsel& ev : file->evsels())
    if (s->options_.use_threads && s->options_.inline_frames && s->NeedsUnwind(ev))
      s->options_.symbolize.prefetch_line_info = true;
  s->symbolizer_ = std::make_unique<Symbolizer>(s->options_.symbolize, s->machine_.get());
  s->resolver_ = std::make_unique<Resolver>(s->machine_.get(), s->symbolizer_.get());
  if (file->SamplesKernel()) s->symbolizer_->PrefetchKernelSymbols();  // read beside the records
  bool chains = false, raw = false;
  for (size_t i = 0; i < file->evsels().size(); ++i) {
    const SampleNeeds& needs = s->NeedsFor(static_cast<uint32_t>(i));
    chains |= needs.callchain || needs.branch_stack;
    raw |= needs.raw;
    s->on_demand_ |= (needs.callchain && needs.callchain_on_demand) || needs.branch_stack;
  }
  // perf_env__arch: without HEADER_ARCH (a recording killed before its features were
  // written, a cut file) perf takes the arch of the machine it runs on.
  std::string arch = env.arch.value_or("");
  if (arch.empty()) {
    struct utsname u;
    if (uname(&u) == 0) arch = u.machine;
  }
  // One CfiSources for the session's lifetime, shared by every unwinder (the on-demand
  // one and the pool's): created once here, never replaced while unwinders hold it.
  s->cfi_sources_ = std::make_unique<CfiSources>();
  s->unwind_arch64_ = UnwindArchFor(arch, 2);  // PERF_SAMPLE_REGS_ABI_64
  s->unwind_arch32_ = UnwindArchFor(arch, 1);  // PERF_SAMPLE_REGS_ABI_32
  for (size_t i = 0; i < file->evsels().size(); ++i)
    s->unwind_ahead_ |= s->NeedsUnwind(file->evsels()[i]);
  s->unwind_ahead_ = s->unwind_ahead_ && s->options_.use_threads && UsableCores() > 1;
  s->frame_source_ = std::make_unique<FrameSource>(s->machine_.get(), s->resolver_.get(), s->options_.max_stack,
                                                   s->options_.inline_frames, s->options_.adjust_return_addresses);
  const SessionOptions& o = s->options_;
  // PERF_SAMPLE_READ samples are split per read value (ProcessParsed), one by one;
  // summed samples keep neither time nor (always) cpu: the --time/-C filters need each.
  bool sample_read = false;
  for (const Evsel& ev : file->evsels()) sample_read |= (ev.attr.sample_type & kSampleRead) != 0;
  // What both kinds of summing need: one sample per record, no per-sample filter, raw
  // data or time, evsel indexes that fit the key.
  const bool summable = !sample_read && !raw && file->evsels().size() <= UINT16_MAX && !o.filter.drops_any();
  s->coalesce_ = o.coalesce && !chains && summable;
  s->defer_kernel_symbols_ = o.defer_kernel_symbols && !chains && o.filter.symbols.empty();
  // Summed chains are the recorded ones: not unwound, not rebuilt from LBR, not resolved
  // on demand; side-band records must keep their place among the samples.
  bool chains_as_recorded = !s->on_demand_;
  for (const Evsel& ev : file->evsels()) {
    if (!s->NeedsFor(static_cast<uint32_t>(ev.index)).callchain) continue;
    const bool lbr_chain = (ev.attr.branch_sample_type & kBranchSampleCallStack) && (ev.attr.sample_type & kSampleBranchStack);
    chains_as_recorded = chains_as_recorded && !lbr_chain && !s->NeedsUnwind(ev);
  }
  s->coalesce_chains_ = o.coalesce_chains && chains && chains_as_recorded && summable && o.side_band_types == 0 &&
                        !o.side_band_finished_round;
  return s;
}

Status Session::Run() {
  threaded_consumers_ = false;
  // Coalesced samples are delivered once per key: nothing for a thread to do. Summed
  // chains are too, until the trial (SumChain) finds many distinct ones.
  wants_consumer_thread_ = options_.use_threads && options_.consumer_thread && !coalesce_ && !on_demand_;
  if (wants_consumer_thread_ && !coalesce_chains_) StartConsumerThread();

  // Framing and ordering on a reading thread when one can be had; decoding and
  // resolution here. Records are passed as views (the PerfFile keeps their bytes).
  Status st = Status::Ok();
  std::thread read_thread;
  const bool parallel = UsesParallelRead();
  if (parallel) {
    st = ReadParallel();
  } else if (options_.use_threads) {
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
          if (const uint64_t done = drop_below_.load(std::memory_order_relaxed)) file_->DropProcessedBytes(done);
        };
        st = file_->ReadRecords(
            [this, &ship](const RecordView& r) {
              ReadBatch& b = *read_batch_;
              b.records.push_back(r);
              if (r.chunk) {
                b.records.back().data = reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(b.owned.size()));
                b.owned.insert(b.owned.end(), r.data, r.data + r.size);
              }
              b.record_bytes += r.size;
              b.lowest_offset = std::min(b.lowest_offset, r.perf_data_offset);
              if (b.records.size() >= Pipeline<ReadBatch>::kBatchItems || b.owned.size() >= kMaxOwnedBatchBytes ||
                  b.record_bytes >= kMaxBatchRecordBytes)
                ship();
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
    for (ReadBatch* rb = read_pipeline_->TakeFull(); rb;) {
      ReadBatch* next = nullptr;  // taken early by HandleReadBatch to unwind its first run
      HandleReadBatch(*rb, &next);
      if (options_.progress && !rb->records.empty()) ReportProgress(rb->records.back().perf_data_offset, false);
      // The bytes well before this batch's records are done with: give their pages
      // back (records the ordering queue delivers later from there read them again).
      // Found by the reading thread as it filled the batches.
      const uint64_t lowest = next ? std::min(rb->lowest_offset, next->lowest_offset) : rb->lowest_offset;
      if (lowest != UINT64_MAX && lowest > kReorderSlack && lowest - kReorderSlack > drop_below_.load(std::memory_order_relaxed))
        drop_below_.store(lowest - kReorderSlack, std::memory_order_relaxed);
      read_pipeline_->Recycle(rb);
      rb = next ? next : read_pipeline_->TakeFull();
    }
    read_thread.join();
  } else if (!parallel) {
    uint64_t nr_records = 0;
    st = file_->ReadRecords(
        [this, &nr_records](const RecordView& r) {
          HandleRecord(r);
          if (options_.progress && (++nr_records & 4095) == 0) ReportProgress(r.perf_data_offset, false);
        },
        &read_stats_);
  }
  read_pipeline_.reset();
  read_batch_ = nullptr;

  FlushSums();
  FlushChainSums();
  if (threaded_consumers_) {
    ShipBatch();
    sample_pipeline_->Close();
    consumer_thread_.join();
  }
  sample_pipeline_.reset();
  sample_batch_ = nullptr;
  FinishDeferred();
  for (SampleConsumer* c : consumers_) c->Finish();
  if (options_.progress) ReportProgress(0, true);
  return st;
}

bool Session::UsesParallelRead() const {
  if (!coalesce_ || !file_->CanReadInParallel()) return false;
  switch (options_.parallel_read) {
    case SessionOptions::ParallelRead::kOff: return false;
    case SessionOptions::ParallelRead::kOn: return true;
    case SessionOptions::ParallelRead::kAuto: break;
  }
  return options_.use_threads && UsableCores() > 1 &&
         file_->data_size() >= options_.parallel_min_bytes &&
         file_->MeanSampleBytes() >= options_.parallel_min_sample_bytes;
}

Status Session::ReadParallel() {
  const size_t workers =
      options_.read_workers ? options_.read_workers : std::min<size_t>(UsableCores(), 16);
  WorkerPool pool(workers - 1);
  std::vector<Sample> scratch(pool.workers());
  PerfFile::ParallelRead pr;
  pr.pool = &pool;
  if (options_.read_window_bytes) pr.window_bytes = options_.read_window_bytes;
  if (options_.read_range_bytes) pr.range_bytes = options_.read_range_bytes;
  // Asked for by name: small files are cut into ranges too (a few KiB each).
  else if (options_.parallel_read == SessionOptions::ParallelRead::kOn) pr.range_bytes = 4096;
  // On the workers: what DecodeSummed makes of a usable sample; the rest are decoded
  // again in order (DecodeSummed), which counts them as the one-thread read does.
  static_assert(sizeof(SummedSample) == sizeof(PerfFile::DecodedSample));
  static_assert(std::is_trivially_copyable_v<SummedSample>);
  const bool by_cpu = options_.coalesce_by_cpu;
  pr.decode = [this, &scratch, by_cpu](size_t worker, const RecordView& r, PerfFile::DecodedSample* out) {
    SampleBasics b;
    const Evsel* ev = nullptr;
    if (file_->ParseSampleBasics(r, &b, &ev, &scratch[worker]) != SampleError::kNone || !ev) return false;
    SummedSample s;
    FillSummed(b, *ev, r.cpumode(), by_cpu, &s);
    std::memcpy(out->bytes, &s, sizeof s);
    return true;
  };
  SummedRun run(this);
  SampleBasics basics;
  uint64_t nr_records = 0;
  // Per evsel: its samples carry a user stack (counted as SampleCounts::ParseBasics does).
  std::vector<uint8_t> user_stack;
  for (const Evsel& ev : file_->evsels()) user_stack.push_back((ev.attr.sample_type & kSampleStackUser) != 0);
  Status st = file_->ReadRecordsParallel(
      [&](const RecordView& r, const PerfFile::DecodedSample* decoded) {
        if (options_.progress && (++nr_records & 4095) == 0) ReportProgress(r.perf_data_offset, false);
        if (r.type == kRecordSample) {
          SummedSample* s = run.Next();
          if (decoded) {
            std::memcpy(s, decoded->bytes, sizeof *s);
            ++counters_.nr_samples;  // as SampleCounts::ParseBasics counts a usable one
            counters_.nr_user_stacks += user_stack[s->key.evsel];
            run.Added();
          } else if (DecodeSummed(r, &basics, s)) {
            run.Added();
          }
          return;
        }
        run.Flush();
        HandleRecord(r);
      },
      pr, &read_stats_);
  run.Flush();
  return st;
}

void Session::StartConsumerThread() {
  sample_pipeline_ = std::make_unique<Pipeline<SampleBatch>>();
  sample_batch_ = sample_pipeline_->TakeFree();
  try {
    consumer_thread_ = std::thread([this] {
      while (SampleBatch* b = sample_pipeline_->TakeFull()) {
        DeliverBatch(*b);
        sample_pipeline_->Recycle(b);
      }
    });
  } catch (const std::system_error&) {
    // No second thread: samples are delivered on this one.
  }
  threaded_consumers_ = consumer_thread_.joinable();
}

void Session::ReportProgress(uint64_t perf_data_offset, bool finished) {
  SessionProgress p;
  if (!finished) progress_offset_ = std::max(progress_offset_, perf_data_offset);
  perf_data_offset = progress_offset_;
  if (!file_->pipe_mode()) {
    p.bytes_total = file_->data_size();
    const uint64_t begin = file_->data_offset();
    p.bytes_done = perf_data_offset > begin ? std::min(perf_data_offset - begin, p.bytes_total) : 0;
  } else {
    p.bytes_done = perf_data_offset;
  }
  if (finished && p.bytes_total) p.bytes_done = p.bytes_total;
  p.nr_samples = counters_.nr_samples;
  p.finished = finished;
  options_.progress(p);
}

void Session::HandleReadBatch(const ReadBatch& rb, ReadBatch** next_batch) {
  // The records come cold from the reading thread's core: fetch a few ahead.
  const std::vector<RecordView>& recs = rb.records;
  if (!coalesce_) {
    // Each sample is decoded one record ahead, so the cache slots its callchain will
    // read are fetched while the one before is resolved.
    Sample* cur = &sample_;
    Sample* next = &next_sample_;
    const Evsel* next_ev = nullptr;
    bool next_ok = false;
    size_t next_index = SIZE_MAX;
    // Decodes (and counts) a sample and starts fetching what resolving its chain reads.
    auto decode = [this](const RecordView& rec, Sample* out, const Evsel** out_ev) {
      if (!counters_.Parse(*file_, rec, out, out_ev)) return false;
      if (!coalesce_chains_ && WantsEagerChain(static_cast<uint32_t>((*out_ev)->index)))
        if (const Thread* t = machine_->FindThread(out->tid)) PrefetchCallchain(*resolver_, t, out->callchain);
      return true;
    };
    // Records [begin, end) in order; with `ahead`, their samples were unwound ahead.
    auto process = [&](size_t begin, size_t end, const AheadRun* ahead) {
      for (size_t i = begin; i < end; ++i) {
        if (i + kPrefetchAhead < end) __builtin_prefetch(recs[i + kPrefetchAhead].data);
        const RecordView& r = recs[i];
        if (r.type != kRecordSample) {
          HandleRecord(r);
          continue;
        }
        const Evsel* ev = nullptr;
        bool ok;
        if (next_index == i) {
          std::swap(cur, next);
          ev = next_ev;
          ok = next_ok;
        } else {
          ok = decode(r, cur, &ev);
        }
        if (i + 1 < end && recs[i + 1].type == kRecordSample) {
          next_ok = decode(recs[i + 1], next, &next_ev);
          next_index = i + 1;
        }
        current_ahead_ = ahead && ahead->results[i].valid ? &ahead->results[i] : nullptr;
        if (ok) ProcessParsed(*cur, *ev, r.perf_data_offset);
        current_ahead_ = nullptr;
      }
    };
    size_t first = 0;
    if (coalesce_chains_) {  // never with unwind_ahead_: summed chains are not unwound
      first = SumChains(recs);
      if (first == recs.size()) return;
    }
    if (!unwind_ahead_) {
      process(first, recs.size(), nullptr);
      return;
    }
    // Runs of records that change no maps: their samples' stacks are unwound on all
    // cores first, then everything is processed in order, the model-changing record
    // that ends the run last. The next batch's first run is unwound on the helpers
    // while this batch's last run is processed, when nothing in it changes the model.
    for (size_t begin = 0; begin < recs.size();) {
      const size_t end = RunEnd(recs, begin);
      AheadRun& run = ahead_[ahead_current_];
      if (!(run.started && run.recs == &recs && run.begin == begin && run.end == end))
        StartUnwindAhead(run, recs, begin, end);
      FinishUnwindAhead(run);
      const size_t stop = std::min(end + 1, recs.size());
      bool next_started = false;
      if (next_batch && end == recs.size() && !run.changes_threads.load(std::memory_order_relaxed) && read_pipeline_) {
        if ((*next_batch = read_pipeline_->TryTakeFull())) {
          const std::vector<RecordView>& next_recs = (*next_batch)->records;
          StartUnwindAhead(ahead_[1 - ahead_current_], next_recs, 0, RunEnd(next_recs, 0));
          next_started = true;
        }
      }
      process(begin, stop, &run);
      run.started = false;
      if (next_started) ahead_current_ = 1 - ahead_current_;
      begin = stop;
    }
    return;
  }
  // Coalescing: runs of samples are decoded, then summed together (AddSummed
  // prefetches the sums' table ahead), up to the next other record.
  SummedRun run(this);
  SampleBasics basics;
  for (size_t i = 0; i < recs.size(); ++i) {
    if (i + kPrefetchAhead < recs.size()) __builtin_prefetch(recs[i + kPrefetchAhead].data);
    const RecordView& r = recs[i];
    if (r.type == kRecordSample) {
      if (DecodeSummed(r, &basics, run.Next())) run.Added();
      continue;
    }
    run.Flush();
    HandleRecord(r);
  }
  run.Flush();
}

void Session::FillSummed(const SampleBasics& b, const Evsel& ev, uint16_t cpumode, bool by_cpu, SummedSample* out) {
  out->key.ip = b.ip;
  out->key.pid = b.pid;
  out->key.tid = b.tid;
  out->key.cpu = by_cpu ? b.cpu : 0;
  out->key.evsel = static_cast<uint16_t>(ev.index);
  out->key.cpumode = cpumode;
  out->period = b.period;
}

bool Session::DecodeSummed(const RecordView& r, SampleBasics* basics, SummedSample* out) {
  const Evsel* ev = nullptr;
  if (!counters_.ParseBasics(*file_, r, basics, &ev, &sample_)) return false;
  FillSummed(*basics, *ev, r.cpumode(), options_.coalesce_by_cpu, out);
  return true;
}

void Session::AddSummed(std::span<const SummedSample> samples) {
  constexpr size_t kSlotAhead = 16, kEntryAhead = 8;
  const size_t n = samples.size();
  for (size_t i = 0; i < n; ++i) {
    if (i + kSlotAhead < n) sums_.PrefetchSlot(samples[i + kSlotAhead].key);
    if (i + kEntryAhead < n) sums_.PrefetchEntry(samples[i + kEntryAhead].key);
    const SummedSample& s = samples[i];
    if (s.key.cpumode == kMiscGuestKernel || s.key.cpumode == kMiscGuestUser) ++counters_.nr_guest;
    if (!sums_.Add(s.key, s.period)) continue;
    // A new key: resolved now, while the model is as its samples saw it.
    const SampleSumKey& k = s.key;
    SummedKey& sk = summed_.emplace_back();
    Thread* thread = machine_->FindOrCreateThread(k.pid, k.tid);
    AddrLocation location;
    if (NeedsFor(k.evsel).location || !options_.filter.empty()) location = Locate(thread, k.cpumode, k.ip, &sk.deferred);
    sk.no_map = !location.dso;
    sk.no_symbol = location.dso && !location.sym;
    if (sk.no_symbol) sk.dso = location.dso;
    sk.filtered = options_.filter.ByThread(*thread) || options_.filter.ByLocation(location);
    if (sk.filtered && !options_.deliver_filtered) continue;  // counted at the flush, never delivered
    ResolvedSample rs;
    FillSample(thread, k.evsel, k.cpumode, k.pid, k.cpu, k.ip, &rs);
    rs.location = location;
    rs.filtered = sk.filtered;
    rs.period = 0;
    rs.nr_samples = 0;
    bool unslotted = false;
    for (SampleConsumer* c : consumers_) {
      const uint32_t slot = c->OnSummedKey(rs);
      key_slots_.push_back(slot);
      unslotted |= slot == SampleConsumer::kNoSlot;
    }
    if (unslotted) {
      sk.unslotted = static_cast<uint32_t>(unslotted_.size());
      unslotted_.push_back({thread, location});
    }
  }
}

void Session::FillSample(const Thread* thread, uint32_t evsel, uint16_t cpumode, uint32_t sample_pid, uint32_t cpu,
                         uint64_t ip, ResolvedSample* rs) {
  rs->evsel = evsel;
  rs->cpumode = cpumode;
  rs->thread = thread;
  rs->comm = thread->comm_ptr();
  rs->pid = thread->pid();
  rs->tid = thread->tid();
  rs->sample_pid = sample_pid;
  rs->cpu = cpu;
  rs->ip = ip;
}

void Session::FlushSums() {
  std::span<const SampleSums::Entry> entries = sums_.entries();
  const size_t nc = consumers_.size();
  slot_sums_.resize(nc);
  // Slot sums go out in small runs: a flush of many keys touches no new memory.
  auto ship_slots = [this](size_t c) {
    if (slot_sums_[c].empty()) return;
    consumers_[c]->OnSlotSums(slot_sums_[c]);
    slot_sums_[c].clear();
  };
  size_t slots_at = 0;  // key_slots_ holds nc slots per delivered key
  for (size_t i = 0; i < entries.size(); ++i) {
    const SampleSums::Entry& e = entries[i];
    const SummedKey& sk = summed_[i];
    if (sk.no_map) counters_.nr_no_map += e.nr_samples;
    else if (sk.no_symbol) CountNoSymbol(sk.dso, e.nr_samples);
    if (sk.deferred) sk.deferred->nr_samples += e.nr_samples;
    if (sk.filtered && !options_.deliver_filtered) {
      counters_.nr_filtered += e.nr_samples;
      continue;
    }
    const uint32_t* slots = key_slots_.data() + slots_at;
    slots_at += nc;
    for (size_t c = 0; c < nc; ++c) {
      if (slots[c] != SampleConsumer::kNoSlot) {
        slot_sums_[c].push_back({slots[c], e.period, e.nr_samples});
        if (slot_sums_[c].size() == kSlotSumsRun) ship_slots(c);
        continue;
      }
      // The thread's comm and pid are what they were when the key was first seen: a
      // COMM, FORK or EXIT flushes the sums first.
      const UnslottedKey& uk = unslotted_[sk.unslotted];
      const SampleSumKey& k = e.key;
      ResolvedSample s;
      FillSample(uk.thread, k.evsel, k.cpumode, k.pid, k.cpu, k.ip, &s);
      s.location = uk.location;
      s.filtered = sk.filtered;
      s.period = e.period;
      s.nr_samples = e.nr_samples;
      consumers_[c]->OnSample(s);
    }
  }
  for (size_t c = 0; c < nc; ++c) ship_slots(c);
  sums_.Clear();
  summed_.clear();
  unslotted_.clear();
  key_slots_.clear();
}

void Session::HandleRecord(const RecordView& r) {
  switch (r.type) {
    case kRecordSample:
      ProcessSample(r);
      break;
    case kRecordLostSamples:
      if (r.size >= 16) counters_.total_lost_samples += file_->loader().U64(r.data + 8);
      break;
    case kRecordRead:
      if (options_.thread_read_values && r.size >= 24) {
        const Evsel* ev = file_->EvselForRecord(r);
        const Loader& ld = file_->loader();
        if (ev) thread_read_values_.Add(ld.U32(r.data + 8), ld.U32(r.data + 12), ev->index, ld.U64(r.data + 16));
      }
      break;
    case kRecordLost: {
      LostEvent e;
      if (DecodeLost(r, file_->loader(), &e)) counters_.total_lost += e.lost;
      if (((options_.side_band_types >> kRecordLost) & 1) && !options_.consumer_thread) DeliverSideBand(r);
      break;
    }
    case kRecordFinishedRound:
      if (options_.side_band_finished_round && !options_.consumer_thread) DeliverSideBand(r);
      break;
    default: {
      const bool side_band = r.type < 64 && ((options_.side_band_types >> r.type) & 1) && !options_.consumer_thread;
      if (side_band && r.type == kRecordExit) DeliverSideBand(r);
      if (Machine::ChangesModel(r.type)) {
        if (coalesce_) FlushSums();
        if (coalesce_chains_) FlushChainSums();
      }
      // Only COMM keeps a time (the comm history).
      machine_->ProcessRecord(r, file_->loader(), r.type == kRecordComm ? file_->RecordTime(r) : 0);
      if (side_band && r.type != kRecordExit) DeliverSideBand(r);
      break;
    }
  }
}

void Session::ProcessSample(const RecordView& r) {
  Sample& s = sample_;  // reused: DecodeSample resets it (a fresh one per sample was a second 370-byte clear)
  if (coalesce_) {
    SampleBasics basics;
    SummedSample summed;
    if (DecodeSummed(r, &basics, &summed)) AddSummed({&summed, 1});
    return;
  }
  const Evsel* ev = nullptr;
  if (counters_.Parse(*file_, r, &s, &ev)) ProcessParsed(s, *ev, r.perf_data_offset);
}

bool Session::NeedsUnwind(const Evsel& evsel) const {
  const SampleNeeds& n = NeedsFor(static_cast<uint32_t>(evsel.index));
  return n.callchain &&
         (evsel.attr.sample_type & (kSampleRegsUser | kSampleStackUser)) == (kSampleRegsUser | kSampleStackUser);
}

UnwindInput Session::MakeUnwindInput(const Sample& s, const Evsel& evsel) const {
  UnwindInput in;
  in.regs_abi = s.user_regs_abi;
  in.arch = s.user_regs_abi == 1 ? unwind_arch32_ : unwind_arch64_;
  in.regs_mask = evsel.attr.sample_regs_user;
  in.regs = s.user_regs;
  in.stack = s.user_stack;
  in.stack_size = s.user_stack_size;
  in.stack_dyn_size = s.user_stack_dyn_size;
  in.swap = file_->loader().swap;
  return in;
}

size_t Session::RunEnd(const std::vector<RecordView>& recs, size_t begin) {
  size_t end = begin;
  while (end < recs.size() && (recs[end].type == kRecordSample || !Machine::ChangesModel(recs[end].type))) ++end;
  return end;
}

void Session::StartUnwindAhead(AheadRun& run, const std::vector<RecordView>& recs, size_t begin, size_t end) {
  constexpr size_t kMinJobs = 16;  // fewer: not worth waking the helpers
  run.recs = &recs;
  run.begin = begin;
  run.end = end;
  run.started = true;
  run.jobs.clear();
  for (size_t i = begin; i < end; ++i)
    if (recs[i].type == kRecordSample) run.jobs.push_back(i);
  if (run.results.size() < recs.size()) run.results.resize(recs.size());
  for (size_t i = begin; i < end; ++i) run.results[i].valid = false;
  if (run.jobs.size() < kMinJobs) {
    run.jobs.clear();
    run.changes_threads.store(true, std::memory_order_relaxed);  // not looked at: assume it does
    return;
  }
  run.changes_threads.store(false, std::memory_order_relaxed);
  if (!unwind_pool_) {
    const size_t cores = std::max<size_t>(2, UsableCores());
    unwind_pool_ = std::make_unique<WorkerPool>(std::min<size_t>(cores - 1, 15));
    for (size_t w = 0; w < unwind_pool_->workers(); ++w)
      pool_unwinders_.push_back(std::make_unique<Unwinder>(symbolizer_.get(), cfi_sources_.get()));
    pool_samples_.resize(unwind_pool_->workers());
  }
  // Read-only on the model, which nothing changes until FinishUnwindAhead returns and
  // the run is processed: this batch's records before `begin` are processed, and the
  // records processed meanwhile change no maps and create no thread (AheadRun). Threads
  // are looked up without the model's cache, which the resolving thread writes. A
  // sample whose thread does not exist yet, or that does not decode, is left to ChainFor.
  unwind_pool_->Start(run.jobs.size(), [this, &run](size_t worker, size_t j) {
    const size_t index = run.jobs[j];
    UnwoundAhead& a = run.results[index];
    Sample& s = pool_samples_[worker];
    const Evsel* ev = nullptr;
    if (file_->ParseSample((*run.recs)[index], &s, &ev) != SampleError::kNone || !ev) return;
    // What processing it will do to the threads (Machine::FindOrCreateThread).
    const Thread* thread = machine_->LookupThread(s.tid);
    if (!thread || (thread->pid() == UINT32_MAX && s.pid != UINT32_MAX))
      run.changes_threads.store(true, std::memory_order_relaxed);
    if (!thread || !NeedsUnwind(*ev)) return;
    a.thread = thread;
    a.ips.clear();
    a.stop = pool_unwinders_[worker]->Unwind(MakeUnwindInput(s, *ev), machine_->MapsFor(thread, kMiscUser),
                                             options_.max_stack, &a.ips);
    a.valid = true;
  });
}

void Session::FinishUnwindAhead(AheadRun& run) {
  if (!run.jobs.empty()) unwind_pool_->Finish();
}

U64Array Session::ChainFor(const Sample& s, const Evsel& evsel, const Thread* thread, uint64_t perf_data_offset,
                           uint64_t* unwound_begin) {
  *unwound_begin = UINT64_MAX;
  if ((evsel.attr.branch_sample_type & kBranchSampleCallStack) && (evsel.attr.sample_type & kSampleBranchStack)) {
    if (LbrChain(s, &chain_buffer_, options_.max_stack))
      return U64Array{reinterpret_cast<const uint8_t*>(chain_buffer_.data()), chain_buffer_.size(), false};
  }
  // perf's thread__resolve_callchain_unwind: only evsels sampling both.
  if ((evsel.attr.sample_type & (kSampleRegsUser | kSampleStackUser)) != (kSampleRegsUser | kSampleStackUser))
    return s.callchain;
  if (!unwinder_) {
    unwinder_ = std::make_unique<Unwinder>(symbolizer_.get(), cfi_sources_.get());
  }
  std::vector<uint64_t>& buf = chain_buffer_;
  buf.resize(s.callchain.size);
  for (uint64_t i = 0; i < s.callchain.size; ++i) buf[i] = s.callchain[i];
  UnwindStop stop;
  if (current_ahead_ && current_ahead_->thread == thread) {  // unwound ahead, in the same maps
    buf.insert(buf.end(), current_ahead_->ips.begin(), current_ahead_->ips.end());
    stop = current_ahead_->stop;
  } else {
    stop = unwinder_->Unwind(MakeUnwindInput(s, evsel), machine_->MapsFor(thread, kMiscUser), options_.max_stack, &buf);
  }
  ++counters_.nr_unwound;
  ++counters_.unwind_stops[static_cast<size_t>(stop)];
  if (IsEarlyStop(stop) && counters_.first_unwind_stop == UnwindStop::kComplete) {
    counters_.first_unwind_stop = stop;
    counters_.first_unwind_stop_offset = perf_data_offset;
  }
  *unwound_begin = s.callchain.size;
  return U64Array{reinterpret_cast<const uint8_t*>(buf.data()), buf.size(), false};
}

void ThreadReadValues::Add(uint32_t pid, uint32_t tid, int evsel, uint64_t value) {
  auto [col_it, new_col] = column_of_.try_emplace(evsel, columns.size());
  if (new_col) {
    columns.push_back(evsel);
    for (Row& r : rows) r.values.resize(columns.size());
  }
  auto [row_it, new_row] = row_of_.try_emplace(uint64_t{pid} << 32 | tid, rows.size());
  if (new_row) rows.push_back({pid, tid, std::vector<uint64_t>(columns.size())});
  rows[row_it->second].values[col_it->second] += value;
}

void Session::ProcessParsed(Sample& s, const Evsel& ev, uint64_t perf_data_offset) {
  if (!(ev.attr.sample_type & kSampleRead)) return ProcessDecoded(s, ev, perf_data_offset);
  // perf's evlist__deliver_sample → deliver_sample_group / deliver_sample_value: one
  // sample per read value, for the evsel that owns the value's id, with the counter's
  // growth since that id's last sample as the period (the first sample's is its whole
  // value); unknown ids are counted, zero periods are not delivered.
  // With inherit each thread reads its own counter under the parent's id: perf 6.1 keeps
  // one value per id and prints the differences between threads' counters (wrapped
  // below 0 when a thread's is smaller); the growth is per (id, tid), as later perf
  // keeps it (perf_evsel__attr_has_per_thread_sample_period; README "differs on purpose").
  const bool per_thread = ev.attr.inherit() && (ev.attr.sample_type & kSampleTid);
  const SampleRead read(s.read_values, ev.attr.read_format);
  for (uint64_t i = 0; i < read.size(); ++i) {
    const ReadValue v = read.at(i);
    const Evsel* member = file_->EvselForId(v.id);
    if (!member) {
      ++counters_.nr_unknown_id;
      continue;
    }
    uint64_t& last = per_thread ? read_values_per_thread_[{v.id, s.tid}] : read_values_[v.id];
    s.period = v.value - last;
    s.id = v.id;
    last = v.value;
    if (s.period != 0) ProcessDecoded(s, *member, perf_data_offset);
  }
}

void Session::ProcessDecoded(const Sample& s, const Evsel& ev, uint64_t perf_data_offset) {
  if (options_.filter.Drops(s.time, s.cpu)) {  // --time, -C: as if the sample were not there
    ++counters_.nr_time_cpu_dropped;
    return;
  }
  if (!coalesce_chains_) return ResolveDecoded(s, ev, perf_data_offset, 1);
  ChainSample c;
  FillChainSample(s, ev, &c);
  SumChain(c);
}

void Session::FillChainSample(const Sample& s, const Evsel& ev, ChainSample* out) {
  out->key = {s.ip, s.pid, s.tid, options_.coalesce_by_cpu ? s.cpu : 0, static_cast<uint16_t>(ev.index), s.cpumode()};
  out->period = s.period;
  if (s.time) {
    summed_first_time_ = std::min(summed_first_time_, s.time);
    summed_last_time_ = std::max(summed_last_time_, s.time);
  }
  if (NeedsFor(static_cast<uint32_t>(ev.index)).callchain) {
    out->chain = s.callchain.data;
    out->chain_words = static_cast<uint32_t>(s.callchain.size);
  } else {
    out->chain = nullptr;
    out->chain_words = 0;
  }
  out->hash = ChainSums::Hash(out->key, out->chain, out->chain_words);
}

void Session::SumChain(const ChainSample& c) {
  chain_sums_.Add(c.key, c.chain, c.chain_words, c.period, c.hash);
  // Summing pays where chains repeat (a few hot loops); where most are distinct it only
  // adds a copy and a second pass: after a trial the rest is then resolved sample by
  // sample (what was summed is delivered first, so the order holds).
  // The trial also decides where the entries are delivered: on this thread while
  // summing leaves few (libm.data: 1 per 20 samples, 6% faster inline), on the consumer
  // thread when many remain (deep.data: 1 per 1.7, 19% slower inline).
  if (++chain_samples_ == options_.coalesce_chains_trial) {
    const uint64_t entries = chain_entries_ + chain_sums_.entries().size();
    if (wants_consumer_thread_ && chain_samples_ < entries * 4) StartConsumerThread();
    if (chain_samples_ < entries * 3 / 2) {
      FlushChainSums();
      coalesce_chains_ = false;
      chain_sums_ = ChainSums();  // its memory too
      return;
    }
  }
  if (chain_sums_.held_bytes() >= kMaxChainSumsBytes) FlushChainSums();
}

size_t Session::SumChains(const std::vector<RecordView>& recs) {
  constexpr size_t kRun = 128;
  ChainSample run[kRun];
  size_t n = 0;
  auto add_run = [&] {
    SumChainRun({run, n});
    n = 0;
  };
  for (size_t i = 0; i < recs.size(); ++i) {
    if (i + kPrefetchAhead < recs.size()) __builtin_prefetch(recs[i + kPrefetchAhead].data);
    const RecordView& r = recs[i];
    if (r.type != kRecordSample) {
      add_run();
      HandleRecord(r);
      continue;
    }
    // Summing means no PERF_SAMPLE_READ and no --time/-C (Session::Open): ProcessParsed
    // and ProcessDecoded would add the sample as is. Its chain stays in the record.
    const Evsel* ev = nullptr;
    if (!counters_.Parse(*file_, r, &sample_, &ev)) continue;
    FillChainSample(sample_, *ev, &run[n++]);
    // A run ends at the trial's last sample: summing may stop there.
    if (n == kRun || chain_samples_ + n == options_.coalesce_chains_trial) {
      add_run();
      if (!coalesce_chains_) return i + 1;
    }
  }
  add_run();
  return recs.size();
}

void Session::SumChainRun(std::span<const ChainSample> run) {
  constexpr size_t kSlotAhead = 16, kEntryAhead = 8, kChainAhead = 4;
  const size_t n = run.size();
  for (size_t i = 0; i < n; ++i) {
    if (i + kSlotAhead < n) chain_sums_.PrefetchSlot(run[i + kSlotAhead].hash);
    if (i + kEntryAhead < n) chain_sums_.PrefetchEntry(run[i + kEntryAhead].hash);
    if (i + kChainAhead < n) chain_sums_.PrefetchChain(run[i + kChainAhead].hash);
    SumChain(run[i]);
  }
}

void Session::FlushChainSums() {
  std::span<const ChainSums::Entry> entries = chain_sums_.entries();
  const bool swap = file_->loader().swap;
  auto chain = [&](const ChainSums::Entry& e) { return U64Array{chain_sums_.chain(e), e.chain_words, swap}; };
  Sample s;
  s.time = 0;  // summed samples carry no time, addr or weight
  for (size_t i = 0; i < entries.size(); ++i) {
    // The next entry's map and symbol cache slots are fetched while this one resolves.
    if (i + 1 < entries.size())
      if (const Thread* t = machine_->FindThread(entries[i + 1].key.tid))
        PrefetchCallchain(*resolver_, t, chain(entries[i + 1]));
    const ChainSums::Entry& e = entries[i];
    const SampleSumKey& k = e.key;
    s.ip = k.ip;
    s.pid = k.pid;
    s.tid = k.tid;
    s.cpu = k.cpu;
    s.misc = k.cpumode;
    s.period = e.period;
    s.callchain = chain(e);
    ResolveDecoded(s, file_->evsels()[k.evsel], 0, e.nr_samples);
  }
  chain_entries_ += entries.size();
  chain_sums_.Clear();
}

void Session::ResolveDecoded(const Sample& s, const Evsel& sample_evsel, uint64_t perf_data_offset,
                             uint64_t nr_samples) {
  const Evsel* ev = &sample_evsel;
  const uint16_t cpumode = s.cpumode();
  if (cpumode == kMiscGuestKernel || cpumode == kMiscGuestUser) counters_.nr_guest += nr_samples;
  const auto evsel = static_cast<uint32_t>(ev->index);
  const SampleNeeds& needs = NeedsFor(evsel);

  Thread* thread = machine_->FindOrCreateThread(s.pid, s.tid);
  ResolvedSample rs;
  FillSample(thread, evsel, cpumode, s.pid, s.cpu, s.ip, &rs);
  rs.time = s.time;
  rs.period = s.period;
  rs.addr = s.addr;
  rs.weight = s.weight;
  rs.nr_samples = nr_samples;
  const SampleFilter& filter = options_.filter;
  bool filtered = filter.ByThread(*thread);
  if (filtered && !options_.deliver_filtered) {
    counters_.nr_filtered += nr_samples;
    return;
  }
  if (needs.location) {
    DeferredSymbol* deferred = nullptr;
    rs.location = Locate(thread, cpumode, s.ip, &deferred);
    if (!rs.location.dso) counters_.nr_no_map += nr_samples;
    else if (!rs.location.sym) CountNoSymbol(rs.location.dso, nr_samples);
    if (deferred) deferred->nr_samples += nr_samples;
  }
  if (filter.hide_unresolved && !rs.location.sym) {  // -U: perf drops it before the histograms
    counters_.nr_unresolved_dropped += nr_samples;
    return;
  }
  filtered = filtered || filter.ByLocation(rs.location);
  if (filtered && !options_.deliver_filtered) {
    counters_.nr_filtered += nr_samples;
    return;
  }
  rs.filtered = filtered;
  if (needs.raw && s.raw_data) rs.raw = {s.raw_data, s.raw_size};
  chain_frames_.clear();
  if (!filtered && needs.callchain && needs.callchain_on_demand) {
    rs.has_callchain = true;
    rs.raw_callchain = ChainFor(s, *ev, thread, perf_data_offset, &rs.raw_unwound_begin);
    rs.frame_source = frame_source_.get();
    rs.chain_ok = WalkCallchain(
        rs.raw_callchain, options_.max_stack, false, [](uint64_t, uint16_t, bool) {}, rs.raw_unwound_begin);
    if (!rs.chain_ok) counters_.nr_bad_callchains += nr_samples;
  } else if (!filtered && needs.callchain) {
    rs.has_callchain = true;
    uint64_t unwound_begin;
    const U64Array chain = ChainFor(s, *ev, thread, perf_data_offset, &unwound_begin);
    rs.chain_ok = ResolveCallchain(*resolver_, thread, chain, options_.max_stack, &chain_frames_,
                                   options_.adjust_return_addresses, options_.keep_root_side, unwound_begin,
                                   options_.inline_frames);
    if (!rs.chain_ok) counters_.nr_bad_callchains += nr_samples;
    // -U: perf's add_callchain_ip leaves out the entries without a symbol.
    if (filter.hide_unresolved) std::erase_if(chain_frames_, [](const CallchainFrame& f) { return !f.al.sym; });
  }
  if (!filtered && needs.branch_stack && (ev->attr.sample_type & kSampleBranchStack)) {
    rs.branch_sample = &s;
    rs.frame_source = frame_source_.get();
  }
  Deliver(rs);
}

void Session::Deliver(ResolvedSample& s) {
  if (!threaded_consumers_) {
    s.callchain = chain_frames_;
    for (SampleConsumer* c : consumers_) c->OnSample(s);
    return;
  }
  SampleBatch& b = *sample_batch_;
  const auto begin = static_cast<uint32_t>(b.frames.size());
  b.frames.insert(b.frames.end(), chain_frames_.begin(), chain_frames_.end());
  b.samples.push_back(s);
  b.chains.emplace_back(begin, static_cast<uint32_t>(b.frames.size()));
  const auto raw_begin = static_cast<uint32_t>(b.raw_bytes.size());
  b.raw_bytes.insert(b.raw_bytes.end(), s.raw.begin(), s.raw.end());  // the record's bytes may be freed
  b.raws.emplace_back(raw_begin, static_cast<uint32_t>(b.raw_bytes.size()));
  if (b.samples.size() >= Pipeline<SampleBatch>::kBatchItems || b.frames.size() >= Pipeline<SampleBatch>::kBatchFrames)
    ShipBatch();
}

void Session::ShipBatch() {
  if (sample_batch_->samples.empty()) return;
  sample_pipeline_->PushFull(sample_batch_);
  sample_batch_ = sample_pipeline_->TakeFree();
}

void Session::DeliverBatch(SampleBatch& b) {
  const std::span<const CallchainFrame> frames(b.frames);
  for (size_t i = 0; i < b.samples.size(); ++i) {
    ResolvedSample& s = b.samples[i];
    s.callchain = frames.subspan(b.chains[i].first, b.chains[i].second - b.chains[i].first);
    s.raw = std::span<const uint8_t>(b.raw_bytes).subspan(b.raws[i].first, b.raws[i].second - b.raws[i].first);
    for (SampleConsumer* c : consumers_) c->OnSample(s);
  }
}

AddrLocation Session::Locate(Thread* thread, uint16_t cpumode, uint64_t ip, DeferredSymbol** deferred) {
  return defer_kernel_symbols_ && cpumode == kMiscKernel && symbolizer_->KernelSymbolsPending()
             ? ResolveDeferringKernelSymbol(thread, ip, deferred)
             : resolver_->Resolve(thread, cpumode, ip);
}

AddrLocation Session::ResolveDeferringKernelSymbol(Thread* thread, uint64_t ip, DeferredSymbol** deferred) {
  AddrLocation al = resolver_->ResolveMap(thread, kMiscKernel, ip);
  if (!al.dso) return al;
  if (al.dso->kind() != DsoKind::kKernel) {
    al.sym = resolver_->FindSymbol(al.dso, al.dso_addr);  // a module: waits for kallsyms
    return al;
  }
  auto [it, added] = deferred_by_addr_.try_emplace(al.dso_addr, nullptr);
  if (added) {
    DeferredSymbol& d = deferred_.emplace_back();
    ++counters_.nr_deferred_kernel_symbols;
    d.placeholder.start = al.dso_addr;
    d.placeholder.end = al.dso_addr + 1;
    d.dso = al.dso;
    it->second = &d;
  } else if (it->second->dso != al.dso) {
    al.sym = resolver_->FindSymbol(al.dso, al.dso_addr);  // a second kernel Dso: no shortcut
    return al;
  }
  *deferred = it->second;
  al.sym = &it->second->placeholder;
  return al;
}

void Session::FinishDeferred() {
  if (deferred_.empty()) return;
  std::unordered_map<const Symbol*, const Symbol*> real;
  for (DeferredSymbol& d : deferred_) {
    const Symbol* sym = resolver_->FindSymbol(d.dso, d.placeholder.start);
    if (!sym && d.nr_samples) CountNoSymbol(d.dso, d.nr_samples);
    real.emplace(&d.placeholder, sym);
  }
  for (SampleConsumer* c : consumers_) c->ReplaceSymbols(real);
}

void Session::CountNoSymbol(const Dso* dso, uint64_t n) {
  counters_.nr_no_symbol += n;
  if (dso != last_no_symbol_dso_ || !last_no_symbol_count_) {
    last_no_symbol_dso_ = dso;
    last_no_symbol_count_ = &no_symbol_by_dso_[dso];  // unordered_map: the value does not move
  }
  *last_no_symbol_count_ += n;
}

std::vector<std::string> Session::ProblemLines() const {
  std::vector<std::string> lines;
  const auto& c = counters_;
  // Said even when no sample was usable (all malformed, unknown ids): that is when the
  // reason matters most.
  auto pct = [&](uint64_t n) { return c.nr_samples ? 100.0 * static_cast<double>(n) / static_cast<double>(c.nr_samples) : 0.0; };
  if (c.nr_no_map)
    lines.push_back(fmt::format("{:.1f}% ({}/{}) samples in no map ([unknown])", pct(c.nr_no_map), c.nr_no_map,
                                c.nr_samples));
  if (c.nr_no_symbol) {
    // Which DSOs: the three with the most such samples (a missing debug file or a
    // stripped binary is then named), by count, then name.
    std::vector<std::pair<uint64_t, std::string>> by_count;
    for (const auto& [dso, n] : no_symbol_by_dso_)
      if (n) by_count.push_back({n, dso ? dso->short_name() : std::string("?")});
    std::sort(by_count.begin(), by_count.end(),
              [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
    std::string which;
    for (size_t i = 0; i < by_count.size() && i < 3; ++i)
      which += fmt::format("{}{} {}", i ? ", " : "", by_count[i].second, by_count[i].first);
    if (by_count.size() > 3) which += fmt::format(", {} more DSOs", by_count.size() - 3);
    lines.push_back(fmt::format("{:.1f}% ({}/{}) samples in a DSO without a symbol there{}", pct(c.nr_no_symbol),
                                c.nr_no_symbol, c.nr_samples, which.empty() ? "" : " (" + which + ")"));
  }
  c.AppendSummary(&lines);
  if (std::string line = UnwindStopsLine(); !line.empty()) lines.push_back(std::move(line));
  for (std::string& line : ModelNotes()) lines.push_back(std::move(line));
  return lines;
}

std::vector<std::string> Session::ModelNotes() const {
  std::vector<std::string> lines;
  const MachineStats& m = machine_->stats();
  if (m.nr_text_remaps)
    lines.push_back(fmt::format("{} anonymous executable map{} inside a file's text kept the file's symbols (text "
                                "remapped onto anonymous memory, e.g. huge pages; first: {})",
                                m.nr_text_remaps, m.nr_text_remaps == 1 ? "" : "s", m.first_text_remap));
  return lines;
}

std::string Session::UnwindStopsLine() const {
  const auto& c = counters_;
  uint64_t early = 0;
  for (size_t i = 0; i < std::size(c.unwind_stops); ++i)
    if (IsEarlyStop(static_cast<UnwindStop>(i))) early += c.unwind_stops[i];
  if (!early) return {};
  std::string reasons;
  for (size_t i = 0; i < std::size(c.unwind_stops); ++i) {
    const auto stop = static_cast<UnwindStop>(i);
    if (!IsEarlyStop(stop) || !c.unwind_stops[i]) continue;
    reasons += fmt::format("{}{} {}", reasons.empty() ? "" : ", ", c.unwind_stops[i], UnwindStopName(stop));
  }
  return fmt::format("{:.1f}% ({}/{}) DWARF-unwound user stacks stopped early: {} (first: SAMPLE at offset {:#x}: {})",
                     100.0 * static_cast<double>(early) / static_cast<double>(c.nr_unwound), early, c.nr_unwound,
                     reasons, c.first_unwind_stop_offset, UnwindStopName(c.first_unwind_stop));
}

void Session::DeliverSideBand(const RecordView& r) {
  const Loader& ld = file_->loader();
  uint32_t pid = UINT32_MAX, tid = UINT32_MAX;
  uint64_t own_time = 0;  // FORK/EXIT carry their time
  switch (r.type) {
    case kRecordComm: {
      CommEvent e;
      if (!DecodeComm(r, ld, &e)) return;
      pid = e.pid, tid = e.tid;
      break;
    }
    case kRecordFork:
    case kRecordExit: {
      TaskEvent e;
      if (!DecodeTask(r, ld, &e)) return;
      pid = e.pid, tid = e.tid, own_time = e.time;
      break;
    }
    case kRecordMmap:
    case kRecordMmap2: {
      MmapEvent e;
      if (!(r.type == kRecordMmap ? DecodeMmap(r, ld, &e) : DecodeMmap2(r, ld, &e))) return;
      pid = e.pid, tid = e.tid;
      break;
    }
    case kRecordNamespaces:  // perf prints it for the event's own thread
      if (r.size < 16) return;
      pid = ld.U32(r.data + 8), tid = ld.U32(r.data + 12);
      break;
    case kRecordFinishedRound: {  // no sample_id: the line alone
      SideBandRecord round;
      round.record = &r;
      for (SampleConsumer* c : consumers_) c->OnSideBand(round);
      return;
    }
    default:
      break;
  }
  // SWITCH, LOST, CGROUP, KSYMBOL, BPF_EVENT: perf prints them for the sample's thread.
  const bool sample_thread = r.type != kRecordComm && r.type != kRecordFork && r.type != kRecordExit &&
                             r.type != kRecordMmap && r.type != kRecordMmap2 && r.type != kRecordNamespaces;
  SideBandRecord sb;
  sb.record = &r;
  sb.evsel = file_->EvselForRecord(r);
  if (!sb.evsel && !file_->evsels().empty()) sb.evsel = &file_->evsels().front();
  if (sb.evsel && sb.evsel->attr.sample_id_all()) {
    DecodeSampleIdTrailer(r, sb.evsel->layout, ld, &sb.id);
  } else {
    sb.id.pid = pid, sb.id.tid = tid, sb.id.cpu = 0, sb.id.time = own_time;
  }
  if (sample_thread && sb.evsel && sb.evsel->attr.sample_id_all()) pid = sb.id.pid, tid = sb.id.tid;
  const std::vector<bool>& cpus = options_.filter.cpus;
  if (!cpus.empty() && (sb.id.cpu >= cpus.size() || !cpus[sb.id.cpu])) return;
  if (tid != UINT32_MAX) sb.thread = machine_->FindOrCreateThread(pid, tid);
  for (SampleConsumer* c : consumers_) c->OnSideBand(sb);
}

}  // namespace perflens
