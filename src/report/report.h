// Report: the perf report pipeline — read records in order, rebuild the Machine, resolve
// each sample (and its callchain for Children) and fill one Hists per evsel. Printing is
// separate (stdio_printer.h, json_printer.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/machine.h"
#include "perfdata/perf_file.h"
#include "report/callchain.h"
#include "report/callchain_tree.h"
#include "report/hists.h"
#include "report/report_options.h"
#include "report/resolver.h"
#include "report/sample_counts.h"
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
};

class Report {
 public:
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
  Report() = default;
  void ProcessSample(const RecordView& r);
  bool Filtered(const Thread* thread, const AddrLocation& al) const;
  // Resolves s.callchain into frames_; false (and frames_ empty) for a corrupt chain.
  bool ResolveCallchain(Thread* thread, const Sample& s, char sample_level);

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
  std::vector<size_t> chain_rows_;     // per-sample dedup scratch, reused (no allocation)
  std::vector<CallchainFrame> chain_frames_;  // per-sample walk scratch, reused
  std::vector<AddrLocation> frames_;   // per-sample resolved callchain, reused
  std::vector<uint32_t> chain_;        // frames_ as interned frame ids in print order, reused
  CallGraphParams call_graph_;
};

}  // namespace perflens
