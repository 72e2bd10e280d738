// HistsOutput: what a report printer reads — the finished Hists (one per evsel) and how
// to show them. Printers take this, not the pipeline that filled the Hists, so any
// front-end (report, a later diff or TUI) can print Hists it made.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "perfdata/perf_file.h"
#include "report/branch_type.h"
#include "report/callchain_tree.h"
#include "report/hists.h"
#include "report/report_options.h"

namespace perflens {

class HistsOutput {
 public:
  HistsOutput(const std::vector<Hists>& hists, const std::vector<Evsel>& evsels, const ReportOptions& options,
              bool children, bool sort_by_children, const CallGraphParams& call_graph, uint64_t total_lost_samples,
              std::string path, std::vector<std::string> warnings)
      : hists_(hists), evsels_(evsels), options_(options), children_(children), sort_by_children_(sort_by_children),
        call_graph_(call_graph), total_lost_samples_(total_lost_samples), path_(std::move(path)),
        warnings_(std::move(warnings)) {}

  const std::vector<Hists>& hists() const { return hists_; }    // parallel to evsels()
  const std::vector<Evsel>& evsels() const { return evsels_; }
  const ReportOptions& options() const { return options_; }     // -F, -t, -n, --percent-limit
  bool children() const { return children_; }                   // a Children column
  bool sort_by_children() const { return sort_by_children_; }   // rows ordered by Children
  const CallGraphParams& call_graph() const { return call_graph_; }
  uint64_t total_lost_samples() const { return total_lost_samples_; }
  const std::string& path() const { return path_; }             // the input, for JSON
  const std::vector<std::string>& warnings() const { return warnings_; }  // JSON "warnings"
  // Branch mode: the typed branches counted (printed after the rows); nullptr otherwise.
  const BranchTypeStat* branch_types() const { return branch_types_; }
  void set_branch_types(const BranchTypeStat* stat) { branch_types_ = stat; }

 private:
  const std::vector<Hists>& hists_;
  const std::vector<Evsel>& evsels_;
  const ReportOptions& options_;
  bool children_, sort_by_children_;
  const CallGraphParams& call_graph_;
  uint64_t total_lost_samples_;
  std::string path_;
  std::vector<std::string> warnings_;
  const BranchTypeStat* branch_types_ = nullptr;
};

}  // namespace perflens
