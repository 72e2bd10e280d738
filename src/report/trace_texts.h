// TraceTexts: report's `trace` sort key (perf's --sort trace, "Trace output"): each
// sample's tracepoint payload formatted as perf's get_trace_output does (libtraceevent,
// TEP_PRINT_INFO, record cpu 0), interned so that equal texts are one row with one id.
// Samples of other evsels get perf's "N/A". One per report; not thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "perfdata/evlist.h"
#include "report/hist_entry.h"
#include "report/tracepoint_formatter.h"
#include "session/session.h"

namespace perflens {

class TraceTexts {
 public:
  // `evsels`: the file's; `tracing_data`: its formats, may be null (texts are then "").
  TraceTexts(const std::vector<Evsel>& evsels, const TracingData* tracing_data);
  // Sets e->trace and e->trace_id for sample `s` (which carries its raw bytes:
  // SampleNeeds::raw).
  void Fill(HistEntry* e, const ResolvedSample& s);
  // Names kernel addresses in %pS arguments; Fill must then run on the resolver's thread.
  void set_kernel_resolver(Resolver* resolver) {
    if (formatter_) formatter_->set_kernel_symbols(KernelSymbolsOf(resolver));
  }

 private:
  const std::string* Intern(std::string_view text, uint32_t* id);

  std::vector<std::pair<uint32_t, uint64_t>> evsels_;  // (attr.type, attr.config) per evsel
  std::unique_ptr<TracepointFormatter> formatter_;
  std::deque<std::string> texts_;  // stable addresses
  std::unordered_map<std::string_view, uint32_t> ids_;
  std::string scratch_;
};

}  // namespace perflens
