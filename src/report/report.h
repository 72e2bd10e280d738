// Report: the perf report pipeline — read records in order, rebuild the Machine, resolve
// each sample (and its callchain for Children) and fill one Hists per evsel. Printing is
// separate (stdio_printer.h, json_printer.h).
#pragma once

#include <deque>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/machine.h"
#include "perfdata/perf_file.h"
#include "report/callchain.h"
#include "report/callchain_tree.h"
#include "report/hists.h"
#include "report/report_options.h"
#include "report/resolver.h"
#include "report/sample_counts.h"
#include "report/sample_sums.h"
#include "symbolize/symbolizer.h"

namespace perflens {

// Per-sample failures, counted and summarized once.
struct ReportCounters : SampleCounts {
  uint64_t nr_no_map = 0;           // sample ip in no map ([unknown])
  uint64_t nr_no_symbol = 0;        // map found, symbol not
  uint64_t nr_guest = 0;
  uint64_t nr_bad_callchains = 0;   // guest/unknown markers: chain discarded as perf does
  uint64_t total_lost_samples = 0;  // PERF_RECORD_LOST_SAMPLES
  uint64_t total_lost = 0;          // PERF_RECORD_LOST
  uint64_t nr_deferred_kernel_symbols = 0;  // kernel addresses resolved after the read
};

class Report {
 public:
  ~Report();

  // Errors: bad sort keys or fields.
  static Result<std::unique_ptr<Report>> Create(PerfFile* file, const ReportOptions& options);

  // Processes every record of the file. Errors only when the file cannot be read at all.
  Status Process();

  const PerfFile& file() const { return *file_; }
  const ReportOptions& options() const { return options_; }
  const std::vector<Hists>& hists() const { return hists_; }  // one per evsel
  const ReportCounters& counters() const { return counters_; }
  const ReadStats& read_stats() const { return read_stats_; }
  bool children() const { return children_; }
  // Rows ordered (and --percent-limit applied) by the Children value.
  bool sort_by_children() const { return sort_by_children_; }
  bool has_callchains() const { return has_callchains_; }
  // The call graph that will be printed (mode none when there are no callchains).
  const CallGraphParams& call_graph() const { return call_graph_; }
  Machine& machine() { return *machine_; }
  Symbolizer& symbolizer() { return *symbolizer_; }
  // Lines for the end-of-report summary: what could not be resolved, with counts.
  std::vector<std::string> SummaryLines() const;

 private:
  // A sample resolved on the reading thread, waiting to be added to its Hists.
  struct PendingSample {
    uint32_t evsel = 0;
    uint16_t cpumode = 0;
    bool filtered = false;  // by --comms/--pids/--tids/--dsos/--symbols
    bool chain_ok = true;   // false: corrupt chain (guest/unknown context marker)
    const std::string* comm = nullptr;
    const Thread* thread = nullptr;
    uint32_t pid = 0, tid = 0, cpu = 0;
    uint64_t period = 0;
    AddrLocation al;
    uint32_t frames_begin = 0, frames_end = 0;  // its callchain in Batch::frames
  };
  struct Batch {
    std::vector<PendingSample> samples;
    std::vector<AddrLocation> frames;  // callee first, keyed as perf's callchain nodes
    void clear() {
      samples.clear();
      frames.clear();
    }
  };
  // Records as the reading thread delivers them (perf's order); views into the
  // PerfFile's bytes.
  // Records from the reading thread. Views into the reader's own chunks (decompressed
  // or piped records) live only during the read callback, so their bytes are copied
  // into `owned` (the view's data holds the offset there until the batch is shipped).
  struct ReadBatch {
    std::vector<RecordView> records;
    std::vector<uint8_t> owned;
    void clear() {
      records.clear();
      owned.clear();
    }
  };
  template <typename B>
  class Pipeline;

  Report() = default;
  // Resolving thread: the machine, counters or ProcessSample for one record.
  void HandleRecord(const RecordView& r);
  // Reading thread: decodes and resolves one sample into the current batch.
  void ProcessSample(const RecordView& r);
  // Flat mode: decodes sample `r` into *out, counted in `counts`; false when not usable.
  bool DecodeSummed(const RecordView& r, SampleCounts* counts, SampleBasics* basics, Sample* scratch,
                    SummedSample* out) const;
  // Flat mode: adds decoded samples to sums_ (prefetching ahead).
  void AddSummed(std::span<const SummedSample> samples);
  // Resolving thread: one batch from the reading thread.
  void HandleReadBatch(const ReadBatch& rb);
  struct DeferredSymbol;
  // The location of `ip` in `thread` (its kernel symbol deferred while kallsyms loads,
  // when allowed: *deferred is then set).
  AddrLocation Locate(Thread* thread, uint16_t cpumode, uint64_t ip, DeferredSymbol** deferred);
  void CountLocated(const AddrLocation& al, uint64_t nr_samples);
  // A PendingSample for one sample of `thread` at `ip`, resolved and counted.
  PendingSample& AddPending(Thread* thread, uint32_t evsel, uint16_t cpumode, uint32_t cpu, uint64_t ip,
                            uint64_t period);
  // The sort-key values of a sample's row.
  static HistEntry MakeProto(const PendingSample& p);
  static void AddTotals(Hists* hists, uint64_t period, uint16_t cpumode, uint64_t nr_samples);
  // Flat mode: resolves a key when it is first summed, and finds or adds its row.
  void LocateSummed(const SampleSumKey& k);
  // Flat mode: adds the sums to their rows and the totals, before the model changes.
  void FlushSums();
  // Hands the current batch to the hists side (or adds it here without a second thread).
  void Ship();
  // Hists side: adds a batch's samples, in order.
  void AddBatch(const Batch& b);
  void AddSample(const PendingSample& p, std::span<const AddrLocation> frames);
  bool Filtered(const Thread* thread, const AddrLocation& al) const;
  // Resolves s.callchain into the batch's frames; false for a corrupt chain.
  bool ResolveCallchain(Thread* thread, const Sample& s, char sample_level, Batch* batch);
  // A kernel-mode ip resolved while kallsyms is still loading: the map now, the symbol a
  // placeholder that Process replaces once the reading is done.
  AddrLocation ResolveDeferringKernelSymbol(Thread* thread, uint64_t ip, DeferredSymbol** deferred);
  // Replaces the placeholders in every Hists with the real symbols.
  void ResolveDeferredSymbols();

  PerfFile* file_ = nullptr;
  ReportOptions options_;
  std::vector<const SortKey*> sort_keys_;
  std::unique_ptr<Machine> machine_;
  std::unique_ptr<Symbolizer> symbolizer_;
  std::unique_ptr<Resolver> resolver_;
  std::vector<Hists> hists_;
  ReportCounters counters_;
  ReadStats read_stats_;
  bool children_ = false;
  bool sort_by_children_ = false;
  bool has_callchains_ = false;
  CallGraphParams call_graph_;
  // Reading thread (framing and ordering) -> resolving thread (the caller of Process).
  std::unique_ptr<Pipeline<ReadBatch>> read_pipeline_;
  ReadBatch* read_batch_ = nullptr;  // being filled by the reading thread
  // Resolving thread -> hists thread.
  std::unique_ptr<Pipeline<Batch>> pipeline_;
  Batch* batch_ = nullptr;             // being filled
  bool threaded_ = false;              // a second thread adds the batches
  Sample sample_;                      // the sample being resolved
  // Flat mode (no Children, no call graph): samples are summed per key and resolved per
  // key at each model-changing record and at the end (see sample_sums.h).
  bool flat_ = false;
  bool sums_by_cpu_ = false;  // the cpu sort key: the cpu is part of the key
  SampleSums sums_;
  // What sums_.entries()[i] resolved to when it was first added.
  struct SummedRow {
    uint32_t row = 0;  // in hists_[evsel], unless filtered
    bool filtered = false;
    bool no_map = false, no_symbol = false;
    DeferredSymbol* deferred = nullptr;  // its kernel symbol is resolved after the read
  };
  std::vector<SummedRow> summed_rows_;
  std::vector<CallchainFrame> chain_frames_;  // per-sample walk scratch, reused
  // Kernel symbols are deferred (not waited for) while kallsyms loads, when rows are all
  // there is to build: no callchains, no Children, no --symbols filter.
  bool defer_kernel_symbols_ = false;
  struct DeferredSymbol {
    Symbol placeholder;  // [addr, addr + 1), no name: keys the rows until replaced
    Dso* dso = nullptr;
    uint64_t nr_samples = 0;
  };
  std::deque<DeferredSymbol> deferred_;                    // stable addresses
  std::unordered_map<uint64_t, DeferredSymbol*> deferred_by_addr_;
  // Hists side (the second thread while Process runs).
  std::vector<size_t> chain_rows_;     // per-sample dedup scratch, reused (no allocation)
  std::vector<uint32_t> chain_;        // interned frame ids in print order, reused
};

}  // namespace perflens
