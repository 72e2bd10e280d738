#include "export/export.h"

#include <fmt/format.h>

#include "perfdata/perf_event.h"
#include "session/time_cpu_filter.h"

namespace perflens {

namespace {

// The session an export reads `file` with: report's filters, and what the format needs.
Result<SessionOptions> ExportSessionOptions(PerfFile* file, const ExportOptions& options) {
  SessionOptions so;
  so.symbolize = options.symbolize;
  so.progress = options.progress;
  // pprof's source lines read each module's DWARF after the read: index it on the
  // Symbolizer's helper thread as modules load, beside the read.
  if (options.format == ExportFormat::kPprof) so.symbolize.prefetch_line_info = true;
  so.filter.comms = options.comms;
  so.filter.pids = options.pids;
  so.filter.tids = options.tids;
  so.filter.dsos = options.dsos;
  so.filter.symbols = options.symbols;
  so.filter.hide_unresolved = options.hide_unresolved;
  // Filtered samples are left out of the export (report counts them in its totals only).
  so.deliver_filtered = false;
  PERFLENS_RETURN_IF_ERROR(ParseTimeCpuFilters(*file, options.time, options.cpu_list, false, &so.filter.time_ranges,
                                               &so.filter.cpus));
  bool chains = false;
  so.needs.resize(file->evsels().size());
  for (size_t i = 0; i < file->evsels().size(); ++i) {
    const bool has_chain = file->evsels()[i].attr.sample_type & kSampleCallchain;
    so.needs[i] = SampleNeeds{true, has_chain, false, false};
    chains |= has_chain;
  }
  so.max_stack = options.max_stack;
  so.inline_frames = options.inline_frames;
  so.keep_root_side = false;  // beyond --max-stack the leaf side stays, as report's callee order
  so.adjust_return_addresses = options.adjust_return_addresses;
  // Flat files: samples summed per key between model changes (no times: the
  // profile's time comes from HEADER_SAMPLE_TIME then). The Firefox Profiler's
  // timeline needs every sample's time.
  so.coalesce = !chains && options.format != ExportFormat::kFirefox;
  // Folded stacks and the HTML report count samples per stack, in nothing but
  // first-seen order: samples with the same recorded chain are summed too. So does
  // pprof, per (thread, stack), when no sample is filtered out: its time range is then
  // the session's over the summed samples, the same as over every sample.
  so.coalesce_chains = options.format == ExportFormat::kFolded || options.format == ExportFormat::kHtml ||
                       (options.format == ExportFormat::kPprof && so.filter.empty());
  so.use_threads = options.use_threads;
  // The pprof consumer finds each new frame's map in the Machine: on the resolving thread.
  so.consumer_thread = false;
  return so;
}

std::vector<std::string> SessionSummaryLines(Session& session, const PerfFile& file) {
  std::vector<std::string> lines = session.ProblemLines();
  for (auto& p : session.symbolizer().Problems()) lines.push_back(p);
  for (auto& p : session.symbolizer().FixHints()) lines.push_back(p);
  if (session.counters().nr_samples == 0) lines.push_back(fmt::format("{} has no usable samples", file.path()));
  return lines;
}

}  // namespace

Result<std::unique_ptr<Export>> Export::Create(PerfFile* file, const ExportOptions& options) {
  std::unique_ptr<Export> e(new Export());
  e->file_ = file;
  e->options_ = options;
  Result<SessionOptions> so = ExportSessionOptions(file, options);
  if (!so) return so.error();
  e->session_ = Session::Open(file, std::move(*so));
  if (options.format == ExportFormat::kPprof) {
    e->pprof_ = std::make_unique<PprofConsumer>(file->evsels(), &e->session_->machine());
    e->session_->AddConsumer(e->pprof_.get());
  } else if (options.format == ExportFormat::kSpeedscope) {
    e->speedscope_ = std::make_unique<SpeedscopeConsumer>(file->evsels(), options.folded_weight_period);
    e->session_->AddConsumer(e->speedscope_.get());
  } else if (options.format == ExportFormat::kFirefox) {
    e->firefox_ = std::make_unique<FirefoxConsumer>(file->evsels());
    e->session_->AddConsumer(e->firefox_.get());
  } else if (options.format == ExportFormat::kHtml) {
    e->html_ = std::make_unique<HtmlConsumer>(file->evsels());
    e->session_->AddConsumer(e->html_.get());
  } else {
    e->folded_ = std::make_unique<FoldedConsumer>(options.folded_weight_period);
    e->session_->AddConsumer(e->folded_.get());
  }
  return e;
}

Export::~Export() = default;

Status Export::Process() { return session_->Run(); }

Result<std::string> Export::Output() {
  if (folded_) {
    std::string out;
    folded_->stacks().Print(&out);
    return out;
  }
  if (speedscope_) return speedscope_->Serialize(file_->path());
  if (firefox_) return firefox_->Serialize(file_->env());
  if (html_) {
    std::string json;
    html_->AddSourceLines(session_->symbolizer());
    html_->AppendJson(file_->path(), &json);
    return RenderHtmlReport(json, fmt::format("perflens: {}", file_->path()));
  }
  const auto [first_time, last_time] = session_->summed_chain_times();
  if (first_time <= last_time) pprof_->AddSampleTimes(first_time, last_time);
  const HeaderEnv& env = file_->env();
  std::vector<std::string> comments = {fmt::format("perflens export of {}", file_->path())};
  return pprof_->Serialize(env, comments, &session_->symbolizer());
}

std::vector<std::string> Export::SummaryLines() const { return SessionSummaryLines(*session_, *file_); }

Result<std::string> ExportHtmlDiff(PerfFile* base, const ExportOptions& base_options, PerfFile* next,
                                   const ExportOptions& next_options, std::vector<ExportFileProblems>* problems) {
  Result<SessionOptions> base_so = ExportSessionOptions(base, base_options);
  if (!base_so) return base_so.error();
  Result<SessionOptions> next_so = ExportSessionOptions(next, next_options);
  if (!next_so) return next_so.error();
  HtmlConsumer html(next->evsels());
  // Both sessions live until the data is written: the thread table points at their comms.
  std::unique_ptr<Session> base_session = Session::Open(base, std::move(*base_so));
  base_session->AddConsumer(&html);
  html.BeginBaseline(base->evsels(), base->path());
  if (Status st = base_session->Run(); !st) return st.error();
  html.EndBaseline();
  std::unique_ptr<Session> next_session = Session::Open(next, std::move(*next_so));
  next_session->AddConsumer(&html);
  if (Status st = next_session->Run(); !st) return st.error();
  for (const auto& [session, file] : {std::pair{base_session.get(), base}, std::pair{next_session.get(), next}}) {
    ExportFileProblems p{file->path(), session->read_stats(), {}};
    for (std::string& line : SessionSummaryLines(*session, *file))
      p.summary_lines.push_back(fmt::format("{}: {}", file->path(), line));
    problems->push_back(std::move(p));
  }
  if (base_session->counters().nr_samples > 0 && html.base_total_samples() == 0)
    problems->front().summary_lines.push_back(
        fmt::format("{}: none of its events pairs with an event of {} (same attr type and config, as perf diff "
                    "pairs them): the page has no baseline",
                    base->path(), next->path()));
  std::string json;
  html.AppendJson(next->path(), &json);
  return RenderHtmlReport(json, fmt::format("perflens diff: {} vs {}", base->path(), next->path()));
}

}  // namespace perflens
