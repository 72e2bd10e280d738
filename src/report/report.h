// Report: `perf report`'s front-end — resolves the options (sort keys, Children, -g,
// -F) against the file, opens a Session with what the report needs resolved and runs
// it into a HistsConsumer (one Hists per evsel). Printing is separate
// (stdio_printer.h, json_printer.h) and reads the finished Hists.
#pragma once

#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "perfdata/perf_file.h"
#include "report/callchain_tree.h"
#include "report/hists.h"
#include "report/hists_consumer.h"
#include "report/trace_texts.h"
#include "report/hists_output.h"
#include "report/report_options.h"
#include "session/session.h"

namespace perflens {

using ReportCounters = SessionCounters;

class Report {
 public:
  ~Report();

  // Errors: bad sort keys, -g or -F fields.
  static Result<std::unique_ptr<Report>> Create(PerfFile* file, const ReportOptions& options);

  // Processes every record of the file. Errors only when the file cannot be read at all.
  Status Process();

  const PerfFile& file() const { return session_->file(); }
  const ReportOptions& options() const { return options_; }
  const std::vector<Hists>& hists() const { return hists_->hists(); }  // one per evsel
  const ReportCounters& counters() const { return session_->counters(); }
  const ReadStats& read_stats() const { return session_->read_stats(); }
  bool children() const { return children_; }
  // Rows ordered (and --percent-limit applied) by the Children value.
  bool sort_by_children() const { return sort_by_children_; }
  bool has_callchains() const { return has_callchains_; }
  bool branch_mode() const { return branch_mode_; }
  // Branch mode: the typed entries counted (perf's "Branch Statistics").
  const BranchTypeStat& branch_types() const;
  // The call graph that will be printed (mode none when there are no callchains).
  const CallGraphParams& call_graph() const { return call_graph_; }
  Machine& machine() { return session_->machine(); }
  Symbolizer& symbolizer() { return session_->symbolizer(); }
  // Lines for the end-of-report summary: what could not be resolved, with counts.
  std::vector<std::string> SummaryLines() const;
  // -v's stderr: one line per DSO whose symbols were looked for, in the order the
  // recording named them: its long name, perf's origin letter and the file read,
  // e.g. "/usr/lib/x86_64-linux-gnu/libc.so.6: B ~/.debug/.build-id/93/ac61…/elf", or
  // why none ("[vdso]: ! no image with build-id …").
  std::vector<std::string> SymbolSourceLines() const;
  // The finished Hists and how to print them (after Process).
  HistsOutput Output() const {
    HistsOutput out(hists(), evsels_, options_, children_, sort_by_children_, call_graph_,
                       counters().total_lost_samples, file().path(), SummaryLines(), options_.group.value_or(true),
                       forced_leader_, options_.show_threads ? &session_->thread_read_values() : nullptr);
    if (branch_mode_) out.set_branch_types(&branch_types());
    return out;
  }

 private:
  Report() = default;

  ReportOptions options_;
  bool children_ = false;
  bool sort_by_children_ = false;
  bool has_callchains_ = false;
  bool branch_mode_ = false;  // perf's SORT_MODE__BRANCH: one row per branch-stack entry
  CallGraphParams call_graph_;
  // The file's evsels, made one group by --group/--no-group when it has none (perf's
  // evlist__force_leader): what the printers see.
  std::vector<Evsel> evsels_;
  bool forced_leader_ = false;
  std::unique_ptr<Session> session_;
  std::unique_ptr<SrcLines> srclines_;  // when a sort key is srcline
  std::unique_ptr<SrcLines> chain_srclines_;  // with the call graph's address key
  std::unique_ptr<SrcLines> branch_srclines_;  // srcline_from / srcline_to in branch mode
  std::unique_ptr<std::regex> parent_pattern_;  // the parent key's pattern (before hists_: it outlives it)
  std::unique_ptr<std::regex> ignore_callees_;  // --ignore-callees
  std::unique_ptr<TraceTexts> trace_texts_;   // when a sort key is trace
  std::unique_ptr<Resolver> kernel_resolver_;  // trace_texts_'s %pS arguments
  std::unique_ptr<HistsConsumer> hists_;
};

}  // namespace perflens
