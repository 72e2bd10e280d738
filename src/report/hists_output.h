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
#include "session/session.h"

namespace perflens {

class HistsOutput {
 public:
  HistsOutput(const std::vector<Hists>& hists, const std::vector<Evsel>& evsels, const ReportOptions& options,
              bool children, bool sort_by_children, const CallGraphParams& call_graph, uint64_t total_lost_samples,
              std::string path, std::vector<std::string> warnings, bool group_view = false,
              bool forced_leader = false, const ThreadReadValues* thread_values = nullptr)
      : hists_(hists), evsels_(evsels), options_(options), children_(children), sort_by_children_(sort_by_children),
        call_graph_(call_graph), total_lost_samples_(total_lost_samples), path_(std::move(path)),
        warnings_(std::move(warnings)), group_view_(group_view), forced_leader_(forced_leader),
        thread_values_(thread_values) {}

  const std::vector<Hists>& hists() const { return hists_; }    // parallel to evsels()
  const std::vector<Evsel>& evsels() const { return evsels_; }
  const ReportOptions& options() const { return options_; }     // -F, -t, -n, --percent-limit
  bool children() const { return children_; }                   // a Children column
  bool sort_by_children() const { return sort_by_children_; }   // rows ordered by Children
  const CallGraphParams& call_graph() const { return call_graph_; }
  uint64_t total_lost_samples() const { return total_lost_samples_; }
  const std::string& path() const { return path_; }             // the input, for JSON
  const std::vector<std::string>& warnings() const { return warnings_; }  // JSON "warnings"
  // A group's members printed beside its leader (Evsel::leader/nr_members), and whether
  // the group was made by --group on a file without groups (its name is then bare).
  bool group_view() const { return group_view_; }
  bool forced_leader() const { return forced_leader_; }
  // -T: the per-thread READ counts printed after the report; nullptr without -T.
  const ThreadReadValues* thread_values() const { return thread_values_; }
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
  bool group_view_ = false, forced_leader_ = false;
  const ThreadReadValues* thread_values_ = nullptr;
  const BranchTypeStat* branch_types_ = nullptr;
};

}  // namespace perflens
