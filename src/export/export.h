// Export: `perflens export` — one read of a perf.data file through the session, with
// report's sample filters, into another tool's format: pprof's gzipped profile.proto
// (export/pprof.h), folded stacks (export/folded.h), a speedscope JSON document
// (export/speedscope.h), a Firefox Profiler processed profile (export/firefox.h) or one
// self-contained HTML viewer (export/html.h). Needs nothing from report/.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "export/firefox.h"
#include "export/folded.h"
#include "export/html.h"
#include "export/pprof.h"
#include "export/speedscope.h"
#include "perfdata/perf_file.h"
#include "session/session.h"

namespace perflens {

enum class ExportFormat { kPprof, kFolded, kSpeedscope, kFirefox, kHtml };

// What `perflens export` was asked for, with perf report's option names for the filters
// (the same meaning as in ReportOptions).
struct ExportOptions {
  ExportFormat format = ExportFormat::kPprof;
  std::vector<std::string> comms, dsos, symbols;  // -c/--comms, -d/--dsos, -S/--symbols
  std::vector<uint32_t> pids, tids;               // --pid, --tid
  std::string time;                               // --time
  std::string cpu_list;                           // -C/--cpu
  bool hide_unresolved = false;                   // -U
  int max_stack = 127;                            // --max-stack
  bool inline_frames = true;                      // --inline / --no-inline
  bool adjust_return_addresses = true;            // --[no-]return-address-adjust
  bool folded_weight_period = false;              // folded, speedscope: weights are periods, not samples
  SymbolizeOptions symbolize;
  bool use_threads = true;
  SessionProgressFn progress;  // Session::Run's progress calls (SessionOptions::progress)
};

class Export {
 public:
  // `file` is not owned and must outlive the Export. Errors: a bad --time or -C.
  static Result<std::unique_ptr<Export>> Create(PerfFile* file, const ExportOptions& options);
  ~Export();
  // Reads every record (Session::Run).
  Status Process();
  // The output file's bytes: the gzipped profile (with source lines: DWARF is read
  // here, after the read), the folded lines, the speedscope or Firefox Profiler JSON,
  // or the HTML page.
  Result<std::string> Output();
  const ReadStats& read_stats() const { return session_->read_stats(); }
  // The HTML consumer (its sizes), nullptr for the other formats.
  const HtmlConsumer* html() const { return html_.get(); }
  // The pprof consumer (its totals), nullptr for the other formats.
  const PprofConsumer* pprof() const { return pprof_.get(); }
  // The speedscope consumer (its total weight), nullptr for the other formats.
  const SpeedscopeConsumer* speedscope() const { return speedscope_.get(); }
  // The Firefox Profiler consumer (its sample count), nullptr for the other formats.
  const FirefoxConsumer* firefox() const { return firefox_.get(); }
  // What could not be resolved, for stderr (Session::ProblemLines and the Symbolizer's).
  std::vector<std::string> SummaryLines() const;

 private:
  Export() = default;
  PerfFile* file_ = nullptr;
  ExportOptions options_;
  std::unique_ptr<Session> session_;
  std::unique_ptr<PprofConsumer> pprof_;
  std::unique_ptr<FoldedConsumer> folded_;
  std::unique_ptr<SpeedscopeConsumer> speedscope_;
  std::unique_ptr<FirefoxConsumer> firefox_;
  std::unique_ptr<HtmlConsumer> html_;
};

// `perflens diff --html`: the baseline, then the new file, read into one HtmlConsumer
// (export/html.h: one frame and stack table for both, the baseline's samples as the
// data's "base"), each with its own options (diff gives each file its --time range;
// the format is HTML whatever they say). Returns the page, and appends to *problems
// what each file's read left out (baseline first): its ReadStats and SummaryLines, and
// for the baseline a line when none of its events pairs with one of the new file's.
// Errors: a bad --time or -C, either Session's.
struct ExportFileProblems {
  std::string path;
  ReadStats read_stats;
  std::vector<std::string> summary_lines;
};
Result<std::string> ExportHtmlDiff(PerfFile* base, const ExportOptions& base_options, PerfFile* next,
                                   const ExportOptions& next_options, std::vector<ExportFileProblems>* problems);

}  // namespace perflens
