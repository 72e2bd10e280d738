#include "report/trace_texts.h"

#include "perfdata/perf_event.h"

namespace perflens {

TraceTexts::TraceTexts(const std::vector<Evsel>& evsels, const TracingData* tracing_data) {
  for (const Evsel& ev : evsels) evsels_.emplace_back(ev.attr.type, ev.attr.config);
  if (tracing_data) formatter_ = std::make_unique<TracepointFormatter>(*tracing_data);
}

const std::string* TraceTexts::Intern(std::string_view text, uint32_t* id) {
  auto it = ids_.find(text);
  if (it == ids_.end()) {
    const std::string& kept = texts_.emplace_back(text);
    it = ids_.emplace(kept, static_cast<uint32_t>(texts_.size() - 1)).first;
  }
  *id = it->second;
  return &texts_[it->second];
}

void TraceTexts::Fill(HistEntry* e, const ResolvedSample& s) {
  scratch_.clear();
  if (s.evsel >= evsels_.size() || evsels_[s.evsel].first != kPerfTypeTracepoint) {
    scratch_ = "N/A";  // hist_entry__trace_snprintf for other events
  } else if (formatter_ && !s.raw.empty()) {
    formatter_->Format(evsels_[s.evsel].second, 0, s.raw, &scratch_);
  }
  e->trace = Intern(scratch_, &e->trace_id);
}

}  // namespace perflens
