#include "report/report.h"

#include <string_view>

#include <fmt/format.h>

#include "perfdata/perf_event.h"

namespace perflens {

Result<std::unique_ptr<Report>> Report::Create(PerfFile* file, const ReportOptions& options) {
  std::unique_ptr<Report> r(new Report());
    r->options_ = options;
  // perf: with -F and no -s, the sort keys are the sort-key fields of -F; with both, rows
  // are grouped by the union (fields that are sort keys become sort keys too).
  // perf's branch mode (sort__mode = SORT_MODE__BRANCH): by default when the recording
  // has the BRANCH_STACK feature (perf record -b; not --call-graph lbr) and no user
  // stacks; -b forces it, --no-branch-stack turns it off.
  uint64_t combined_sample_type = 0;
  for (const auto& ev : file->evsels()) combined_sample_type |= ev.attr.sample_type;
  const bool has_br_stack =
      file->HasFeature(kFeatBranchStack) && !(combined_sample_type & kSampleStackUser);
  r->branch_mode_ = options.branch_stack.value_or(has_br_stack) && !options.branch_history;
  if (r->branch_mode_ && !(combined_sample_type & kSampleBranchStack) && !file->pipe_mode())
    return Err("Selected -b but no branch data. Did you call perf record without -b?");
  std::string sort = options.sort;
  // perf's get_default_sort_order: a file of tracepoints only sorts by trace. In pipe
  // mode perf decides before the attrs arrive: the usual default.
  bool all_tracepoints = !file->evsels().empty() && !file->pipe_mode();
  for (const Evsel& ev : file->evsels()) all_tracepoints &= ev.attr.type == kPerfTypeTracepoint;
  if (!options.sort_given && all_tracepoints) sort = "trace";
  if (r->branch_mode_ && !options.sort_given) sort = "comm,dso_from,symbol_from,symbol_to,cycles";
  if (options.branch_history && !options.sort_given) sort = "srcline,symbol,dso";
  // perf refuses -s lists naming an ipc key (it adds them itself).
  if (options.sort_given && sort.find("ipc") != std::string::npos)
    return Err("-s/--sort: the ipc keys are not sort keys ('{}'); perf adds its IPC column to lists naming symbol",
               sort);
  // perf appends ipc_null to a sort order naming "symbol" (ipc_lbr in branch mode,
  // not done here: perf 6.1 crashes on those lists).
  if ((options.sort_given || options.branch_history) && !r->branch_mode_ &&
      sort.find("symbol") != std::string::npos)
    sort += ",ipc_null";
  // perf's -p adds the parent key (setup_sorting: sort__has_parent).
  if (options.parent && (sort + ",").find("parent,") == std::string::npos) sort += ",parent";
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
  for (const SortKey*& k : *keys) {
    if (k->name == std::string_view("time")) k = TimeSortKey(options.ns);
    if (options.verbose) k = VerboseSortKey(k);
  }
  if (keys->size() > Hists::kMaxKeys) return Err("at most {} sort keys", Hists::kMaxKeys);
  for (const auto& ev : file->evsels())
    if (ev.attr.sample_type & kSampleCallchain) r->has_callchains_ = true;
  // perf 6.1 decides the Children default before a pipe's attrs arrive: off in pipe mode.
  r->children_ = options.children.value_or(r->has_callchains_ && !file->pipe_mode());
  if (!r->has_callchains_) r->children_ = false;  // perf: nothing to accumulate
  // --branch-history on a file with branch stacks (perf's show_branchflag_count) makes
  // call graphs of samples without callchains.
  const bool branch_counts = options.branch_history && has_br_stack;
  if (!r->has_callchains_ && (options.branch_history || options.call_graph.find("branch") != std::string::npos) &&
      !branch_counts)
    return Err("Selected -g or --branch-history. But no callchain or branch data. Did you call 'perf record' "
               "without -g or -b?");
  if (r->branch_mode_) {
    // perf turns cumulation off in branch mode and adds no callchains to branch rows.
    r->children_ = false;
    r->has_callchains_ = false;
  }
  // perf report's default is graph,0.5 with caller order for children, callee without.
  CallGraphParams& cg = r->call_graph_;
  bool order_set = false;
  std::string cg_error;
  if (!ParseCallGraphArg(options.call_graph, &cg, &order_set, &cg_error)) return Error{cg_error};
  // In pipe mode perf picks the caller order while Children is still on by default,
  // then turns Children off once it finds no attrs yet: caller order, no Children.
  if (!order_set) cg.caller_order = r->children_ || (file->pipe_mode() && !options.children.has_value());
  if (options.branch_history) {
    cg.key = CallchainKey::kAddress;
    cg.branch_callstack = true;
    cg.show_branch_counts = branch_counts;
    // perf picks the order while Children is still on by default (it is turned off
    // later for a file without callchains).
    if (!order_set) cg.caller_order = options.children.value_or(true);
  }
  // perf's --hierarchy turns cumulation off after the default order was chosen with it.
  if (options.hierarchy) {
    if (!options.fields.empty()) return Err("--hierarchy and --fields options cannot be used together");
    r->children_ = false;
  }
  if (!r->has_callchains_ && !branch_counts) cg.mode = CallGraphMode::kNone;
  if (options.percent_limit_sets_call_graph) cg.min_percent = options.percent_limit;
  // With -F the first percentage field decides the order (Children only when named).
  r->sort_by_children_ = r->children_;
  if (!options.fields.empty()) {
    size_t oc = options.fields.find("overhead_children"), o = options.fields.find("overhead");
    r->sort_by_children_ = r->children_ && oc != std::string::npos && oc == o;
  }
  cg.skip_first_sym = options.fields.empty() && options.sort.rfind("sym", 0) == 0;
  cg.color = options.color;
  if (!options.field_separator.empty()) cg.folded_separator = options.field_separator;

  SessionOptions so;
  so.symbolize = options.symbolize;
  so.progress = options.progress;
  so.filter.comms = options.comms;
  so.filter.pids = options.pids;
  so.filter.tids = options.tids;
  so.filter.dsos = options.dsos;
  so.filter.symbols = options.symbols;
  so.deliver_filtered = true;  // perf: filtered samples still count in the totals
  so.filter.hide_unresolved = options.hide_unresolved;
  PERFLENS_RETURN_IF_ERROR(ParseTimeCpuFilters(*file, options.time, options.cpu_list, false, &so.filter.time_ranges,
                                               &so.filter.cpus));
  bool has_parent = false;
  for (const SortKey* k : *keys) has_parent |= k->name == std::string_view("parent");
  if (has_parent) {
    // perf: parent_pattern, "^sys_|^do_page_fault" unless -p gives one.
    const std::string pattern = options.parent.value_or("^sys_|^do_page_fault");
    try {
      r->parent_pattern_ = std::make_unique<std::regex>(pattern, std::regex::extended | std::regex::optimize);
    } catch (const std::regex_error& e) {
      return Err("-p/--parent: bad regular expression '{}': {}", pattern, e.what());
    }
  }
  // The parent key walks the callchain even without a call graph (perf's
  // sample__resolve_callchain with sort__has_parent).
  const bool chains = r->children_ || cg.mode != CallGraphMode::kNone || (has_parent && r->has_callchains_);
  const bool branch_chains = chains && cg.branch_callstack;
  so.needs.assign(file->evsels().size(), SampleNeeds{true, chains, false, r->branch_mode_ || branch_chains});
  for (const SortKey* k : *keys)
    if (k->name == std::string_view("trace"))
      for (SampleNeeds& n : so.needs) n.raw = true;
  so.max_stack = options.max_stack;
  so.inline_frames = options.inline_frames;
  so.keep_root_side = cg.caller_order;
  so.adjust_return_addresses = options.adjust_return_addresses;
  so.coalesce = options.sum_samples && !chains && !r->branch_mode_;
  so.coalesce_chains = options.sum_samples && chains && !r->branch_mode_;
  for (const SortKey* k : *keys)
    if (k->name == std::string_view("cpu")) so.coalesce_by_cpu = true;
  for (const SortKey* k : *keys)  // summed samples carry no time
    if (k->name == std::string_view("time")) so.coalesce = so.coalesce_chains = false;
  so.defer_kernel_symbols = options.defer_kernel_symbols && !r->branch_mode_;
  so.thread_read_values = options.show_threads;
  so.use_threads = options.use_threads;
  so.parallel_read = options.parallel_read;
  so.consumer_thread = true;
  for (const SortKey* k : *keys)  // trace texts name kernel symbols on the resolving thread
    if (k->name == std::string_view("trace")) so.consumer_thread = false;
  r->session_ = Session::Open(file, std::move(so));
  r->evsels_ = file->evsels();
  if (options.group.has_value()) r->forced_leader_ = ForceLeader(&r->evsels_);
  for (const SortKey* k : *keys)
    if (k->name == std::string_view("srcline") || k->name == std::string_view("srcfile"))
      r->srclines_ = std::make_unique<SrcLines>(&r->session_->symbolizer(), options.full_source_path);
  if (chains && cg.key == CallchainKey::kAddress)
    r->chain_srclines_ =
        std::make_unique<SrcLines>(&r->session_->symbolizer(), options.full_source_path, options.inline_frames);
  r->hists_ = std::make_unique<HistsConsumer>(file->evsels().size(), *keys, r->children_, cg, r->srclines_.get(),
                                              r->chain_srclines_.get());
  if (r->parent_pattern_) r->hists_->set_parent_pattern(r->parent_pattern_.get(), options.exclude_other);
  // perf applies --ignore-callees while resolving callchains, which it does only for
  // -g, Children or the parent key.
  if (options.ignore_callees && chains) {
    try {
      r->ignore_callees_ =
          std::make_unique<std::regex>(*options.ignore_callees, std::regex::extended | std::regex::optimize);
    } catch (const std::regex_error& e) {
      return Err("--ignore-callees: bad regular expression '{}': {}", *options.ignore_callees, e.what());
    }
    r->hists_->set_ignore_callees(r->ignore_callees_.get());
  }
  r->hists_->set_branch_mode(r->branch_mode_);
  r->hists_->set_time_quantum(options.time_quantum);
  r->hists_->set_keep_excluded_rows(options.hierarchy && options.exclude_other);
  if (branch_chains) {
    std::vector<bool> lbr_call_stack;
    for (const Evsel& ev : file->evsels())
      lbr_call_stack.push_back((ev.attr.sample_type & kSampleBranchStack) &&
                               (ev.attr.branch_sample_type & kBranchSampleCallStack));
    r->hists_->set_lbr_call_stack(std::move(lbr_call_stack));
  }
  bool srcline_from = false, srcline_to = false;
  for (const SortKey* k : *keys) {
    srcline_from |= k->name == std::string_view("srcline_from");
    srcline_to |= k->name == std::string_view("srcline_to");
  }
  if (r->branch_mode_ && (srcline_from || srcline_to)) {
    r->branch_srclines_ = std::make_unique<SrcLines>(&r->session_->symbolizer(), options.full_source_path);
    r->hists_->set_branch_srclines(r->branch_srclines_.get(), srcline_from, srcline_to);
  }
  for (const SortKey* k : *keys)
    if (k->name == std::string_view("trace")) {
      r->trace_texts_ = std::make_unique<TraceTexts>(file->evsels(), file->env().tracing_data.get());
      r->kernel_resolver_ = std::make_unique<Resolver>(&r->session_->machine(), &r->session_->symbolizer());
      r->trace_texts_->set_kernel_resolver(r->kernel_resolver_.get());
      r->hists_->set_trace_texts(r->trace_texts_.get());
    }
  r->session_->AddConsumer(r->hists_.get());
  return r;
}

Report::~Report() = default;

const BranchTypeStat& Report::branch_types() const { return hists_->branch_types(); }

Status Report::Process() {
  Status st = session_->Run();
  if (st && options_.percentage_relative) hists_->UseNonFilteredTotals();
  if (st && options_.verbose) {
    Symbolizer& symbolizer = session_->symbolizer();
    hists_->SetSymtabOrigins([&](const Dso* dso) { return dso ? symbolizer.Info(*dso).symtab_origin : '!'; });
  }
  return st;
}

std::vector<std::string> Report::SymbolSourceLines() const {
  std::vector<std::string> lines;
  const Symbolizer& symbolizer = session_->symbolizer();
  for (const auto& dso : session_->machine().dsos()) {
    const DsoModule* m = symbolizer.FindLoaded(*dso);
    if (!m) continue;
    const DsoLoadInfo& info = m->info();
    std::string source = info.status == LoadStatus::kLoaded
                             ? (info.path.empty() ? std::string("the recording (PERF_RECORD_KSYMBOL)") : info.path)
                             : info.message;
    lines.push_back(fmt::format("{}: {} {}", dso->printable_long_name(), info.symtab_origin, source));
  }
  return lines;
}

std::vector<std::string> Report::SummaryLines() const {
  std::vector<std::string> lines = session_->ProblemLines();
  const auto& c = counters();
  if (c.nr_guest) lines.push_back(fmt::format("{} guest samples (guest machines are not modelled)", c.nr_guest));
  if (c.nr_bad_callchains)
    lines.push_back(fmt::format("{} callchains with guest/unknown context markers dropped", c.nr_bad_callchains));
  for (auto& p : session_->symbolizer().Problems()) lines.push_back(p);
  for (auto& p : session_->symbolizer().FixHints()) lines.push_back(p);
  if (c.nr_samples == 0) lines.push_back(fmt::format("{} has no usable samples", file().path()));
  return lines;
}

}  // namespace perflens
