// Session: one perf.data file read end to end (perf's perf_session + perf_tool). It
// owns the Machine, the Symbolizer and the Resolver, reads the records in perf's order,
// applies the side-band records to the Machine, resolves each sample (its ip and, when
// asked, its callchain) and hands the ResolvedSample to its consumers: report's
// histograms, script's writer, folded stacks, exports. Adding an output is one
// SampleConsumer; the reading, ordering, model and symbol set-up exist once, here.
//
// Threads (who owns what):
//   reading thread   PerfFile::ReadRecords: framing, decompression, ordering. Owns only
//                    the reader; passes record views in batches (owned bytes copied).
//   resolving thread the caller of Run: the only thread that touches the Machine, the
//                    Symbolizer's loading and the Resolver (and its caches).
//   consumer thread  with SessionOptions::consumer_thread, consumers run here on
//                    batches of resolved samples, in order; they see only the
//                    ResolvedSample (values, interned pointers, Dsos and Symbols that
//                    never move or change), never the Machine.
// Without use_threads everything runs on the caller's thread, with the same output.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/result.h"
#include "model/machine.h"
#include "perfdata/perf_file.h"
#include "session/callchain.h"
#include "session/resolver.h"
#include "session/sample_counts.h"
#include "session/sample_sums.h"
#include "session/time_cpu_filter.h"
#include "base/worker_pool.h"
#include "symbolize/symbolizer.h"
#include "unwind/unwinder.h"

namespace perflens {

// One sample as the consumers get it. Addresses: `ip` is the runtime address in the
// sampled process; location.dso_addr is the ip in the Dso's symbol space (see
// AddrLocation). No Map pointer: maps are split and replaced as records arrive, and a
// consumer may run behind on its own thread.
struct ResolvedSample {
  uint32_t evsel = 0;          // index into PerfFile::evsels()
  uint16_t cpumode = 0;        // PERF_RECORD_MISC_CPUMODE_MASK bits of the record
  bool filtered = false;       // excluded by SampleFilter (only with deliver_filtered)
  bool has_callchain = false;  // SampleNeeds::callchain applied (the chain may be empty)
  bool chain_ok = true;        // false: corrupt callchain (guest/unknown marker), none given
  const Thread* thread = nullptr;    // lives as long as the session
  const std::string* comm = nullptr;  // the thread's comm when sampled (interned)
  uint32_t pid = 0, tid = 0;   // the thread's (perf's thread: pid learned from FORK etc.)
  uint32_t sample_pid = 0;     // PERF_SAMPLE_TID's pid as recorded
  uint32_t cpu = 0;            // PERF_SAMPLE_CPU (0 unless coalesce_by_cpu when coalesced)
  uint64_t time = 0;           // PERF_SAMPLE_TIME, ns; 0 when coalesced
  uint64_t ip = 0;             // PERF_SAMPLE_IP
  uint64_t period = 0;         // PERF_SAMPLE_PERIOD (sum of nr_samples samples when coalesced)
  uint64_t addr = 0;           // PERF_SAMPLE_ADDR (0 when coalesced)
  uint64_t weight = 0;         // PERF_SAMPLE_WEIGHT, WEIGHT_STRUCT's low 32 bits (0 when coalesced)
  uint64_t nr_samples = 1;     // >1 only when coalesced
  AddrLocation location;       // of `ip`; dso and sym null when SampleNeeds::location is off
  // The callchain resolved leaf first (perf's order), when SampleNeeds::callchain;
  // valid during OnSample only.
  std::span<const CallchainFrame> callchain;
  // With SampleNeeds::callchain_on_demand: the entries as recorded (callee first,
  // context markers included; valid during OnSample) and the source that resolves
  // them, for a consumer that caches what it makes of a frame by address-space state
  // and resolves only what it has not seen (script's lines). chain_ok is set.
  // With a DWARF-unwound user part (--call-graph dwarf), raw_callchain is the recorded
  // chain followed by the unwound frames from this index on (WalkCallchain's
  // unwound_begin); UINT64_MAX: none.
  U64Array raw_callchain;
  uint64_t raw_unwound_begin = UINT64_MAX;
  // With SampleNeeds::branch_stack: the sample's branch entries (newest first; valid
  // during OnSample; Sample::branch/branch_flags decode them) and frame_source set.
  const Sample* branch_sample = nullptr;
  class FrameSource* frame_source = nullptr;
  // PERF_SAMPLE_RAW's bytes with SampleNeeds::raw (empty otherwise); valid during
  // OnSample only.
  std::span<const uint8_t> raw;
};

// Resolution on demand, for consumers called on the resolving thread (the source is
// only handed out there): the same answers the eager callchain gives.
class FrameSource {
 public:
  FrameSource(const Machine* machine, Resolver* resolver, int max_stack, bool inline_frames,
              bool adjust_return_addresses)
      : machine_(machine),
        resolver_(resolver),
        max_stack_(max_stack),
        inline_frames_(inline_frames),
        adjust_return_addresses_(adjust_return_addresses) {}
  // The Maps an entry of `cpumode` is looked up in (nullptr: none), whose id and
  // generation identify the address-space state it resolves in.
  const Maps* MapsFor(const Thread* thread, uint16_t cpumode) const { return machine_->MapsFor(thread, cpumode); }
  // `return_address`: looked up at ip - 1 (ResolveEntry); see looks_up_before.
  AddrLocation Resolve(const Thread* thread, uint16_t cpumode, uint64_t ip, bool return_address = false) {
    return ResolveEntry(*resolver_, thread, cpumode, ip, return_address);
  }
  // A branch address, whose cpumode the record does not say (perf's
  // thread__find_cpumode_addr_location): the first of user, kernel, guest user, guest
  // kernel whose maps hold it; user (no map) when none does.
  AddrLocation ResolveAnyMode(const Thread* thread, uint64_t ip) {
    for (uint16_t mode : {kMiscUser, kMiscKernel, kMiscGuestUser, kMiscGuestKernel}) {
      AddrLocation al = resolver_->Resolve(thread, mode, ip);
      if (al.dso) return al;
    }
    return resolver_->Resolve(thread, kMiscUser, ip);
  }
  // For an entry WalkCallchain hands out with `exact` and `unwound`: whether it is
  // looked up at ip - 1 — a recorded entry after the first is a return address, unless
  // SessionOptions::adjust_return_addresses is off.
  bool looks_up_before(bool exact, bool unwound) const { return adjust_return_addresses_ && !exact && !unwound; }
  int max_stack() const { return max_stack_; }  // entries to walk (WalkCallchain)
  // For an entry of the unwound part located at `al`: the symbols of its inline frames
  // (ResolveCallchain's `inline_frames`), or false when it stays one frame.
  bool InlineSymbols(const AddrLocation& al, std::vector<const Symbol*>* syms) {
    return inline_frames_ && resolver_->InlineSymbols(al, syms);
  }
  bool inline_frames() const { return inline_frames_; }

 private:
  const Machine* machine_;
  Resolver* resolver_;
  int max_stack_;
  bool inline_frames_;
  bool adjust_return_addresses_;
};

// A side-band record handed to consumers that asked for its type
// (SessionOptions::side_band_types: perf script's --show-task-events and
// --show-mmap-events). COMM, FORK, MMAP and MMAP2 come after the model applied them,
// EXIT before (perf prints before 'exit' deletes anything).
struct SideBandRecord {
  const RecordView* record = nullptr;
  const Evsel* evsel = nullptr;    // whose sample_id trailer it carries (the first evsel without one)
  const Thread* thread = nullptr;  // the event's own pid/tid thread (nullptr: tid -1)
  // As perf's sample for it: the sample_id trailer's pid, tid, time and cpu; without
  // sample_id_all the event's pid/tid, cpu 0 and time 0 (FORK/EXIT: their own time).
  SampleId id;
};

// Receives the session's samples. All calls come from one thread, in perf's order.
class SampleConsumer {
 public:
  virtual ~SampleConsumer() = default;
  virtual void OnSample(const ResolvedSample& s) = 0;
  // The side-band records of SessionOptions::side_band_types, in order with the
  // samples; only for consumers on the resolving thread (not with consumer_thread).
  virtual void OnSideBand(const SideBandRecord& /*r*/) {}
  // With SessionOptions::defer_kernel_symbols: placeholder symbols handed out while
  // kallsyms was loading, each mapped to the real one (nullptr: none there). Once,
  // after the last sample.
  virtual void ReplaceSymbols(const std::unordered_map<const Symbol*, const Symbol*>& /*replacements*/) {}
  // After the last sample (and ReplaceSymbols).
  virtual void Finish() {}

  // Coalesced delivery (SessionOptions::coalesce) for a consumer that sums by itself:
  // OnSummedKey gets each new key once, when it is first seen (comm, location and
  // `filtered` as OnSample would get them; period and nr_samples 0), and returns the
  // consumer's slot for it. At each flush OnSlotSums then gets the sums of the slotted
  // keys in first-seen order, after which the slots are forgotten. kNoSlot (the
  // default) means: deliver that key through OnSample at the flush. Finding a key's row
  // when it is first seen, while its thread and symbol are in cache, is what makes a
  // flat report cheap; a flush of 26K keys otherwise chases them all cold again.
  static constexpr uint32_t kNoSlot = UINT32_MAX;
  struct SlotSum {
    uint32_t slot = 0;
    uint64_t period = 0;      // summed PERF_SAMPLE_PERIOD
    uint64_t nr_samples = 0;  // samples summed
  };
  virtual uint32_t OnSummedKey(const ResolvedSample& /*s*/) { return kNoSlot; }
  virtual void OnSlotSums(std::span<const SlotSum> /*sums*/) {}
};

// perf's --comms/--pid/--tid/--dsos/--symbols: a sample passes when every non-empty
// list holds its value (dsos: short or long name; symbols: the resolved name).
// --time and -C/--cpu (time_ranges, cpus) are apart: the samples they exclude are
// dropped before anything counts them (Drops), never delivered, as perf does.
struct SampleFilter {
  std::vector<std::string> comms, dsos, symbols;
  std::vector<uint32_t> pids, tids;
  std::vector<TimeRange> time_ranges;  // --time; empty: all times
  std::vector<bool> cpus;              // -C: indexed by cpu; empty: all cpus
  // -U/--hide-unresolved: samples whose ip has no symbol are dropped (perf report's
  // process_sample_event), and so are callchain entries without one (add_callchain_ip).
  bool hide_unresolved = false;
  bool empty() const { return comms.empty() && dsos.empty() && symbols.empty() && pids.empty() && tids.empty(); }
  bool drops_any() const { return !time_ranges.empty() || !cpus.empty() || hide_unresolved; }
  bool ByThread(const Thread& thread) const;
  bool ByLocation(const AddrLocation& al) const;
  // --time / -C: whether a sample at `time` (ns) on `cpu` is dropped.
  bool Drops(uint64_t time, uint32_t cpu) const {
    return SkipsTime(time_ranges, time) || (!cpus.empty() && (cpu >= cpus.size() || !cpus[cpu]));
  }
};

// What to resolve for the samples of one evsel.
struct SampleNeeds {
  bool location = true;    // the ip's map, Dso and symbol
  bool callchain = false;  // the PERF_SAMPLE_CALLCHAIN entries (not for filtered samples)
  // With `callchain`: hand the entries over unresolved with a FrameSource instead
  // (consumers then run on the resolving thread; keep_root_side does not apply, and
  // FrameSource::looks_up_before says where adjust_return_addresses does).
  bool callchain_on_demand = false;
  // The PERF_SAMPLE_BRANCH_STACK entries, handed over unresolved with a FrameSource
  // (ResolvedSample::branch_*; consumers then run on the resolving thread, samples are
  // not coalesced; not for filtered samples).
  bool branch_stack = false;
  // The PERF_SAMPLE_RAW bytes in ResolvedSample::raw (tracepoint payloads). Samples are
  // then not coalesced.
  bool raw = false;
};

struct SessionCounters : SampleCounts {
  uint64_t nr_no_map = 0;           // sample ip in no map ([unknown])
  uint64_t nr_no_symbol = 0;        // map found, symbol not
  uint64_t nr_guest = 0;            // guest cpumode samples
  uint64_t nr_bad_callchains = 0;   // guest/unknown context markers: chain discarded as perf does
  uint64_t nr_filtered = 0;         // dropped by the filter (not delivered)
  uint64_t nr_time_cpu_dropped = 0;   // dropped by --time / -C (SampleFilter::Drops)
  uint64_t nr_unresolved_dropped = 0; // dropped by -U (no symbol at the ip)
  uint64_t total_lost_samples = 0;  // PERF_RECORD_LOST_SAMPLES
  uint64_t total_lost = 0;          // PERF_RECORD_LOST
  uint64_t nr_deferred_kernel_symbols = 0;  // kernel addresses resolved after the read
  // DWARF unwinding of user stacks (samples whose callchain was asked for and whose
  // evsel has REGS_USER and STACK_USER): how each walk ended, and the first early stop.
  uint64_t nr_unwound = 0;
  uint64_t unwind_stops[static_cast<size_t>(UnwindStop::kCount)] = {};
  uint64_t first_unwind_stop_offset = 0;  // perf_data_offset of the first early stop
  UnwindStop first_unwind_stop = UnwindStop::kComplete;
};

// perf report -T: the PERF_RECORD_READ values (`perf record -s`, a thread's counters
// when it exits) summed per (pid, tid) and evsel, rows and columns in first-seen order
// (perf's perf_read_values). A READ's value is the first word of its read_format block
// and its evsel the one its sample_id names, as perf reads them.
struct ThreadReadValues {
  struct Row {
    uint32_t pid = 0, tid = 0;
    std::vector<uint64_t> values;  // per column; 0 where the thread had no READ of it
  };
  std::vector<int> columns;  // evsel indices
  std::vector<Row> rows;
  void Add(uint32_t pid, uint32_t tid, int evsel, uint64_t value);

 private:
  std::unordered_map<uint64_t, size_t> row_of_;  // pid << 32 | tid → rows index
  std::unordered_map<int, size_t> column_of_;    // evsel → columns index
};

// How far Session::Run has read, for a progress line (SessionOptions::progress).
struct SessionProgress {
  uint64_t bytes_done = 0;   // bytes of the data section handled (up to the last record's position)
  uint64_t bytes_total = 0;  // the data section's size in bytes; 0 when unknown (a pipe)
  uint64_t nr_samples = 0;   // samples decoded so far
  bool finished = false;     // the last call, after the read
};
using SessionProgressFn = std::function<void(const SessionProgress&)>;

struct SessionOptions {
  // Collect ThreadReadValues from the READ records (report -T).
  bool thread_read_values = false;
  // recorded_osrelease/arch default to the file's HEADER_OSRELEASE/ARCH.
  SymbolizeOptions symbolize;
  SampleFilter filter;
  // Filtered samples are delivered with `filtered` set (report: they count in the
  // totals) instead of counted in nr_filtered and dropped (script).
  bool deliver_filtered = false;
  // Per evsel; evsels beyond the vector get {location, no callchain}.
  std::vector<SampleNeeds> needs;
  // --max-stack: real entries resolved per chain part (the recorded chain, and the
  // DWARF-unwound user part on its own, as perf)
  int max_stack = 127;
  bool keep_root_side = false;           // beyond max_stack keep the outermost entries
  // Callers of the recorded chain looked up at return address - 1 (ResolveEntry);
  // perf 6.1 looks them up as they are (--no-return-address-adjust).
  bool adjust_return_addresses = true;
  // perf's --inline (on by default; --no-inline): DWARF-unwound frames get the frames of
  // the functions inlined at them (ResolveCallchain).
  bool inline_frames = true;
  // Samples summed per (evsel, pid, tid, cpumode, ip[, cpu]) between records that can
  // change the model, resolved once per key and delivered before such a record (in
  // first-seen order, nr_samples > 1, no time). Only when no evsel needs callchains and
  // at most 2^16 evsels; otherwise ignored.
  bool coalesce = false;
  bool coalesce_by_cpu = false;  // keep the cpu in the key (else delivered as 0)
  // With callchains: samples summed per (evsel, pid, tid, cpumode, ip[, cpu]) and
  // recorded callchain between records that can change the model, resolved once per
  // distinct one and delivered through OnSample before such a record (first-seen order,
  // nr_samples > 1, no time, addr or weight). Only when every evsel whose chains are
  // resolved has them eager and as recorded (no DWARF user stack, no LBR call stack),
  // no branch stacks, raw data, PERF_SAMPLE_READ, --time/-C/-U or side-band delivery,
  // and at most 2^16 evsels; otherwise ignored.
  bool coalesce_chains = false;
  // After this many samples summing with chains stops, for the rest of the read, unless
  // it made 3 samples 2 entries or fewer (32K: a hot-loop profile sums 5×, deep
  // recursion 1.7×, 600 functions called at random 1.13×, where summing costs more than
  // it saves). With consumer_thread, the summed entries are delivered on the resolving
  // thread until then, and after it only while there are 4 samples or more per entry
  // (the consumer thread's copy costs more than it overlaps). 0: summing never stops.
  // Same output either way.
  uint64_t coalesce_chains_trial = 32768;
  // While kallsyms loads on its helper thread, give kernel samples placeholder symbols
  // and ReplaceSymbols at the end instead of waiting. Only without callchains and
  // without a symbol filter; the consumers must handle ReplaceSymbols.
  bool defer_kernel_symbols = false;
  // Bit (1 << type) per record type (< 64) delivered to SampleConsumer::OnSideBand;
  // ignored with consumer_thread. -C (filter.cpus) applies to them, as in perf script.
  uint64_t side_band_types = 0;
  // FINISHED_ROUND records to OnSideBand too, when read (perf script --show-round-events;
  // the file is then read unordered, ReaderOptions::ordered).
  bool side_band_finished_round = false;
  bool use_threads = true;       // a reading thread beside the resolving one
  // Coalesced samples (flat reports) of a mapped file: frame and decode the data
  // section on every core (PerfFile::ReadRecordsParallel) instead of on one reading
  // thread. kAuto: with use_threads, at least two usable cores (UsableCores: the
  // affinity's), parallel_min_bytes of data and
  // samples of parallel_min_sample_bytes on average (PerfFile::MeanSampleBytes):
  // the ordering stays on the resolving thread, so the parallel read pays where framing
  // large records is the cost (deep callchains, DWARF stacks), not on small samples,
  // which the reading thread beside the resolving one already keeps up with. The output
  // is the same either way. kOn: whenever the file allows it, with ranges of 4 KiB
  // unless read_range_bytes says otherwise.
  enum class ParallelRead { kAuto, kOff, kOn };
  ParallelRead parallel_read = ParallelRead::kAuto;
  uint64_t parallel_min_bytes = 4u << 20;
  uint64_t parallel_min_sample_bytes = 256;
  size_t read_workers = 0;        // workers of the parallel read (caller included); 0: one per usable core, up to 16
  uint64_t read_window_bytes = 0;  // PerfFile::ParallelRead's (tests: small windows); 0: its default
  uint64_t read_range_bytes = 0;
  bool consumer_thread = false;  // and consumers on a third (not with coalesce)
  // Called on the resolving thread once per batch of records (a few thousand) and once
  // with `finished` at the end; the callee rate-limits what it prints. Empty: none.
  SessionProgressFn progress;
};

class Session {
 public:
  ~Session();
  // Sets up the Machine (recorded build-ids, arch), the Symbolizer (kallsyms prefetch
  // when an evsel samples the kernel) and the Resolver for `file` (not owned).
  static std::unique_ptr<Session> Open(PerfFile* file, SessionOptions options);

  // Consumers are not owned and must outlive Run. Order of calls = order added.
  void AddConsumer(SampleConsumer* consumer) { consumers_.push_back(consumer); }
  // Reads every record and delivers every sample. Errors only when the file cannot be
  // read at all; a stop in the middle is in read_stats().stopped.
  Status Run();

  const PerfFile& file() const { return *file_; }
  const SessionOptions& options() const { return options_; }
  Machine& machine() { return *machine_; }
  Symbolizer& symbolizer() { return *symbolizer_; }
  const Symbolizer& symbolizer() const { return *symbolizer_; }
  const SessionCounters& counters() const { return counters_; }
  // The first and last PERF_SAMPLE_TIME (ns; 0 times skipped) of the samples summed
  // with their chains (SessionOptions::coalesce_chains), whose ResolvedSamples carry no
  // time; {UINT64_MAX, 0} when none. After Run.
  std::pair<uint64_t, uint64_t> summed_chain_times() const { return {summed_first_time_, summed_last_time_}; }
  // With SessionOptions::thread_read_values, after Run.
  const ThreadReadValues& thread_read_values() const { return thread_read_values_; }
  const ReadStats& read_stats() const { return read_stats_; }
  // Whether Run reads with PerfFile::ReadRecordsParallel (SessionOptions::parallel_read
  // and, for kAuto, the machine's usable cores and PerfFile::MeanSampleBytes).
  bool UsesParallelRead() const;
  // The summary lines of what could not be resolved (no map, no symbol, symbol-load
  // problems, malformed samples), for the front-ends that print them.
  std::vector<std::string> ProblemLines() const;
  // Notes on how the model read the side-band that change no number but should be
  // known (text remapped onto anonymous memory kept its file's identity); in ProblemLines.
  std::vector<std::string> ModelNotes() const;
  // The DWARF-unwinding line of ProblemLines: how many unwound user stacks stopped
  // early, by reason, with the first one's file offset; "" when none did.
  std::string UnwindStopsLine() const;

 private:
  template <typename B>
  class Pipeline;
  struct ReadBatch;
  struct SampleBatch;
  struct DeferredSymbol {
    Symbol placeholder;  // [addr, addr + 1), no name: keys the rows until replaced
    Dso* dso = nullptr;
    uint64_t nr_samples = 0;
  };
  struct SummedKey {  // what sums_.entries()[i] resolved to when first added
    DeferredSymbol* deferred = nullptr;
    const Dso* dso = nullptr;  // of a no_symbol key (CountNoSymbol)
    uint32_t unslotted = UINT32_MAX;  // index in unslotted_ when a consumer took no slot
    bool no_map = false, no_symbol = false, filtered = false;
  };
  struct UnslottedKey {  // what OnSample needs at the flush
    Thread* thread = nullptr;
    AddrLocation location;
  };

  Session() = default;
  // `next`: where to take the following batch early when its first run may be unwound
  // while this one's last is processed (nullptr: never; *next stays nullptr when not).
  void HandleReadBatch(const ReadBatch& rb, ReadBatch** next_batch = nullptr);
  void HandleRecord(const RecordView& r);
  // Counts `n` samples in `dso` whose address has no symbol there (nr_no_symbol and the
  // per-DSO counts ProblemLines names).
  void CountNoSymbol(const Dso* dso, uint64_t n);
  std::unordered_map<const Dso*, uint64_t> no_symbol_by_dso_;
  const Dso* last_no_symbol_dso_ = nullptr;  // and its count, for runs of one DSO
  uint64_t* last_no_symbol_count_ = nullptr;
  // Run's read of a coalescing session on every core.
  Status ReadParallel();
  // Calls options_.progress; `perf_data_offset`: the last handled record's position.
  void ReportProgress(uint64_t perf_data_offset, bool finished);
  uint64_t progress_offset_ = 0;  // the last position ReportProgress was given
  void ProcessSample(const RecordView& r);
  // A decoded sample of `evsel` (the record at `perf_data_offset`): resolved and
  // delivered, or with coalesce_chains_ summed.
  void ProcessDecoded(const Sample& s, const Evsel& evsel, uint64_t perf_data_offset);
  // Resolves and delivers `s` standing for `nr_samples` samples (its period their sum).
  void ResolveDecoded(const Sample& s, const Evsel& evsel, uint64_t perf_data_offset, uint64_t nr_samples);
  // Delivers chain_sums_ (ResolveDecoded once per entry, in first-seen order).
  void FlushChainSums();
  // A decoded sample on its way to chain_sums_: its key, period, recorded chain (in the
  // record's bytes) and ChainSums::Hash of them.
  struct ChainSample {
    SampleSumKey key;
    uint64_t period = 0;
    const uint8_t* chain = nullptr;
    uint32_t chain_words = 0;
    uint64_t hash = 0;
  };
  void FillChainSample(const Sample& s, const Evsel& evsel, ChainSample* out);
  // Adds one to chain_sums_; may flush it, or end summing after the trial.
  void SumChain(const ChainSample& c);
  // The samples of `recs` summed in runs (SumChainRun prefetches the table ahead), the
  // other records handled between them, until the end or until the trial ends summing.
  // Returns the index of the first record not handled.
  size_t SumChains(const std::vector<RecordView>& recs);
  void SumChainRun(std::span<const ChainSample> run);
  // A decoded sample: ProcessDecoded, or for PERF_SAMPLE_READ once per read value.
  void ProcessParsed(Sample& s, const Evsel& evsel, uint64_t perf_data_offset);
  // The chain to resolve for `s`: its recorded callchain, or with a DWARF user part
  // (evsel with REGS_USER and STACK_USER) the recorded entries followed by the unwound
  // frames in chain_buffer_ (*unwound_begin set to where they start).
  U64Array ChainFor(const Sample& s, const Evsel& evsel, const Thread* thread, uint64_t perf_data_offset,
                    uint64_t* unwound_begin);
  // The fields of *rs that come from the sample's thread and record.
  void FillSample(const Thread* thread, uint32_t evsel, uint16_t cpumode, uint32_t sample_pid, uint32_t cpu,
                  uint64_t ip, ResolvedSample* rs);
  bool DecodeSummed(const RecordView& r, SampleBasics* basics, SummedSample* out);
  // The key and period of a decoded sample of `ev` (`by_cpu`: coalesce_by_cpu).
  static void FillSummed(const SampleBasics& b, const Evsel& ev, uint16_t cpumode, bool by_cpu, SummedSample* out);
  void AddSummed(std::span<const SummedSample> samples);
  // Decoded samples handed to AddSummed in runs of up to 256 (it prefetches the sums'
  // table ahead): Next() is where the next goes, Added() keeps it, Flush() before any
  // other record.
  class SummedRun {
   public:
    explicit SummedRun(Session* session) : session_(session) {}
    SummedSample* Next() { return &run_[n_]; }
    void Added() {
      if (++n_ == kSize) Flush();
    }
    void Flush() {
      session_->AddSummed({run_, n_});
      n_ = 0;
    }

   private:
    static constexpr size_t kSize = 256;
    Session* session_;
    SummedSample run_[kSize];
    size_t n_ = 0;
  };
  void FlushSums();
  // The location of `ip`, its kernel symbol deferred while kallsyms loads when allowed
  // (*deferred is then set).
  AddrLocation Locate(Thread* thread, uint16_t cpumode, uint64_t ip, DeferredSymbol** deferred);
  AddrLocation ResolveDeferringKernelSymbol(Thread* thread, uint64_t ip, DeferredSymbol** deferred);
  // Hands `s` (callchain in frames_[begin, end)) to the consumers now or in the batch.
  void Deliver(ResolvedSample& s);
  // Hands `r` (of a type in side_band_types) to the consumers' OnSideBand.
  void DeliverSideBand(const RecordView& r);
  void DeliverBatch(SampleBatch& b);
  void ShipBatch();
  void FinishDeferred();
  const SampleNeeds& NeedsFor(uint32_t evsel) const {
    return evsel < options_.needs.size() ? options_.needs[evsel] : kDefaultNeeds;
  }
  bool WantsEagerChain(uint32_t evsel) const {
    const SampleNeeds& n = NeedsFor(evsel);
    return n.callchain && !n.callchain_on_demand;
  }
  static const SampleNeeds kDefaultNeeds;

  PerfFile* file_ = nullptr;
  SessionOptions options_;
  std::unique_ptr<Machine> machine_;
  std::unique_ptr<Symbolizer> symbolizer_;
  std::unique_ptr<Resolver> resolver_;
  std::unique_ptr<FrameSource> frame_source_;
  bool on_demand_ = false;  // some evsel's callchain or branch stack is resolved on demand
  std::vector<SampleConsumer*> consumers_;
  SessionCounters counters_;
  ReadStats read_stats_;
  bool coalesce_ = false;
  bool coalesce_chains_ = false;
  ChainSums chain_sums_;
  // Flushed before it holds more (16 MiB: ~25K distinct chains of 80 frames; deep
  // recursion repeats its chains over longer spans than 8 MiB hold).
  static constexpr size_t kMaxChainSumsBytes = size_t{16} << 20;
  // Samples and distinct entries summed so far (SessionOptions::coalesce_chains_trial).
  uint64_t chain_samples_ = 0, chain_entries_ = 0;
  uint64_t summed_first_time_ = UINT64_MAX, summed_last_time_ = 0;  // summed_chain_times()
  bool defer_kernel_symbols_ = false;
  Sample sample_;                             // the sample being decoded, reused
  Sample next_sample_;                        // the one after it (decoded one ahead)
  // PERF_SAMPLE_READ: each sample id's counter value at its last sample (perf's
  // perf_sample_id->period), for the periods of the next.
  std::unordered_map<uint64_t, uint64_t> read_values_;
  // The same per (id, tid) for inherited counters (each thread has its own).
  struct IdTidHash {
    size_t operator()(const std::pair<uint64_t, uint32_t>& k) const {
      return std::hash<uint64_t>()(k.first * 0x9E3779B97F4A7C15ULL ^ k.second);
    }
  };
  std::unordered_map<std::pair<uint64_t, uint32_t>, uint64_t, IdTidHash> read_values_per_thread_;
  ThreadReadValues thread_read_values_;
  std::vector<CallchainFrame> chain_frames_;  // the chain being resolved, reused
  // DWARF unwinding (on the resolving thread): the CFI of each module, the unwinder
  // with its row cache, and the merged chain (native byte order), reused.
  std::unique_ptr<CfiSources> cfi_sources_;  // set in Open, never replaced
  std::unique_ptr<Unwinder> unwinder_;
  // Unwinding ahead on every core (StartUnwindAhead): for the samples of a run of records
  // that changes no maps, the unwound user part by record index in the read batch,
  // computed by the pool's workers (each with its own Unwinder) before the records are
  // processed in order; ChainFor takes it instead of unwinding. Same frames, same
  // counters (ChainFor counts them in order), whatever the number of cores.
  struct UnwoundAhead {
    const Thread* thread = nullptr;  // the thread it was unwound for
    std::vector<uint64_t> ips;       // the unwound part (Unwinder::Unwind's appends)
    UnwindStop stop = UnwindStop::kComplete;
    bool valid = false;
  };
  // One run of records unwound ahead: started on the pool's helpers (StartUnwindAhead),
  // finished with the resolving thread's help (FinishUnwindAhead) before its records
  // are processed. The run after the last one of a batch is started while that one is
  // processed, when the processing cannot change what the helpers read: no record of
  // it changes the model (runs end before those) and no sample of it creates a thread
  // or teaches one its pid (`changes_threads`, found by the helpers).
  struct AheadRun {
    const std::vector<RecordView>* recs = nullptr;
    size_t begin = 0, end = 0;
    std::vector<size_t> jobs;           // record indexes of the samples
    std::vector<UnwoundAhead> results;  // by record index; valid only in [begin, end)
    std::atomic<bool> changes_threads{false};
    bool started = false;
  };
  void StartUnwindAhead(AheadRun& run, const std::vector<RecordView>& recs, size_t begin, size_t end);
  void FinishUnwindAhead(AheadRun& run);
  // The end of the run of records from `begin` that change no model.
  static size_t RunEnd(const std::vector<RecordView>& recs, size_t begin);
  bool NeedsUnwind(const Evsel& evsel) const;
  UnwindInput MakeUnwindInput(const Sample& s, const Evsel& evsel) const;
  bool unwind_ahead_ = false;  // Open: threads allowed, several cores, a dwarf evsel with chains
  AheadRun ahead_[2];
  size_t ahead_current_ = 0;  // ahead_[ahead_current_]: the run being processed
  const UnwoundAhead* current_ahead_ = nullptr;  // of the sample being processed, if any
  std::unique_ptr<WorkerPool> unwind_pool_;
  std::vector<std::unique_ptr<Unwinder>> pool_unwinders_;
  std::vector<Sample> pool_samples_;
  std::vector<uint64_t> chain_buffer_;
  UnwindArch unwind_arch64_ = UnwindArch::kUnknown, unwind_arch32_ = UnwindArch::kUnknown;
  // Reading thread -> resolving thread.
  std::unique_ptr<Pipeline<ReadBatch>> read_pipeline_;
  // perf.data offset below which the resolving thread is done with the mapped bytes;
  // the reading thread gives their pages back (PerfFile::DropProcessedBytes), off the
  // resolving thread (the madvise was a tenth of its time on a 250 MB dwarf recording).
  std::atomic<uint64_t> drop_below_{0};
  ReadBatch* read_batch_ = nullptr;
  // Resolving thread -> consumer thread.
  std::unique_ptr<Pipeline<SampleBatch>> sample_pipeline_;
  SampleBatch* sample_batch_ = nullptr;
  bool threaded_consumers_ = false;
  // SessionOptions::consumer_thread applies: started by Run, or with summed chains at
  // the trial (SumChain).
  bool wants_consumer_thread_ = false;
  std::thread consumer_thread_;
  void StartConsumerThread();
  SampleSums sums_;
  std::vector<SummedKey> summed_;
  std::vector<UnslottedKey> unslotted_;
  std::vector<uint32_t> key_slots_;  // consumers_.size() per summed key
  static constexpr size_t kSlotSumsRun = 256;
  std::vector<std::vector<SampleConsumer::SlotSum>> slot_sums_;  // per consumer, up to kSlotSumsRun
  std::deque<DeferredSymbol> deferred_;  // stable addresses
  std::unordered_map<uint64_t, DeferredSymbol*> deferred_by_addr_;
};

}  // namespace perflens
