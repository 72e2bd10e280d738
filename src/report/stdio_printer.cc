#include "report/stdio_printer.h"

#include <algorithm>
#include <atomic>
#include <span>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "report/output_fields.h"

namespace perflens {
namespace {

constexpr std::string_view kInlinedSuffix = " (inlined)";


// perf's convert_unit for the "# Samples:" line: 452 → "452 ", 4500 → "4K".
std::string SamplesWithUnit(uint64_t v) {
  char unit = ' ';
  if (v > 1000) { v /= 1000; unit = 'K'; }
  if (v > 1000) { v /= 1000; unit = 'M'; }
  if (v > 1000) { v /= 1000; unit = 'G'; }
  return fmt::format("{}{}", v, unit);
}

double Percent(uint64_t part, uint64_t total) {
  return total ? 100.0 * static_cast<double>(part) / static_cast<double>(total) : 0.0;
}

void Pad(std::string* out, size_t n) { out->append(n, ' '); }

// The call-graph text of each row (`texts` parallel to `rows`), made on two threads:
// trees are independent, each thread builds with its own scratch, and the texts are
// the same as one thread's.
void CallGraphTexts(const HistsOutput& report, const Hists& h, std::span<const HistEntry* const> rows,
                    std::vector<std::string>* texts) {
  texts->assign(rows.size(), std::string());
  std::atomic<size_t> next{0};
  auto work = [&] {
    CallchainStore::BuildScratch scratch;
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < rows.size();) {
      const HistEntry* e = rows[i];
      if (auto chain = h.BuildChain(e, report.call_graph(), &scratch))
        PrintCallchain(*chain, report.call_graph(), h.total_period,
                       report.children() ? e->acc.period : e->self.period, &(*texts)[i]);
    }
  };
  std::thread helper;
  try {
    if (rows.size() > 1 && report.options().use_threads) helper = std::thread(work);
  } catch (const std::system_error&) {
    // No second thread: this one does all rows.
  }
  work();
  if (helper.joinable()) helper.join();
}

}  // namespace

Status PrintReportStdio(const HistsOutput& report, std::string* out) {
  const ReportOptions& o = report.options();
  const bool children = report.children();
  const std::string& sep = o.field_separator;
  const bool use_sep = !sep.empty();
  const auto& evsels = report.evsels();

  out->append("# To display the perf.data header info, please use --header/--header-only options.\n#\n");
  fmt::format_to(std::back_inserter(*out), "#\n# Total Lost Samples: {}\n#\n", report.total_lost_samples());

  std::string cell;
  for (size_t ei = 0; ei < report.hists().size(); ++ei) {
    const Hists& h = report.hists()[ei];
    if (h.nr_samples == 0) continue;  // perf's report.skip-empty
    auto fields_or = BuildOutputFields(o.fields, h.keys(), children, o.show_nr_samples);
    if (!fields_or) return fields_or.error();
    std::vector<OutputField> fields = std::move(*fields_or);
    fmt::format_to(std::back_inserter(*out), "# Samples: {} of event '{}'\n", SamplesWithUnit(h.nr_samples),
                   evsels[ei].name);
    fmt::format_to(std::back_inserter(*out), "# Event count (approx.): {}\n#\n", h.total_period);

    std::vector<const HistEntry*> rows = h.Sorted(report.sort_by_children());
    // Text column widths over every row (perf's hists__calc_col_len).
    for (auto& f : fields) {
      if (f.numeric()) continue;
      f.width = std::max(f.header.size(), f.key->min_width);
      if (f.key->fixed_width) continue;
      for (const HistEntry* e : rows) {
        cell.clear();
        size_t w;
        if (f.key->col_len) {
          w = f.key->col_len(*e);
        } else {
          f.key->print(*e, &cell);
          w = cell.size();
        }
        // perf's symlen is namelen + 4: an inlined symbol's " (inlined)" is printed
        // past the width it sets.
        if (f.key->name == "sym" && e->sym && e->sym->inlined && w >= kInlinedSuffix.size()) w -= kInlinedSuffix.size();
        f.width = std::max(f.width, w);
      }
      // perf's hists__set_unres_dso_col_len: a row without a symbol widens the
      // Shared Object column to 16 (BITS_PER_LONG / 4), except with -t or --dsos.
      if (f.key->name == "dso" && !use_sep && o.dsos.empty() &&
          std::any_of(rows.begin(), rows.end(), [](const HistEntry* e) { return e->sym == nullptr; }))
        f.width = std::max<size_t>(f.width, 16);
    }

    // Header.
    out->append("# ");
    for (size_t i = 0; i < fields.size(); ++i) {
      const auto& f = fields[i];
      if (i) out->append(use_sep ? sep : "  ");
      if (f.numeric()) fmt::format_to(std::back_inserter(*out), "{:>{}}", f.header, f.width);
      else fmt::format_to(std::back_inserter(*out), "{:<{}}", f.header, f.width);
    }
    out->push_back('\n');
    if (!use_sep) {
      out->append("# ");
      for (size_t i = 0; i < fields.size(); ++i) {
        if (i) out->append("  ");
        out->append(fields[i].width, '.');
      }
      out->append("\n#\n");
    }

    std::vector<const HistEntry*> printed;
    for (const HistEntry* e : rows) {
      uint64_t limit_period = report.sort_by_children() ? e->acc.period : e->self.period;
      if (o.percent_limit > 0 && Percent(limit_period, h.total_period) < o.percent_limit) continue;
      printed.push_back(e);
    }
    const bool graph = report.call_graph().mode != CallGraphMode::kNone;
    std::vector<std::string> graphs;
    // Rows in chunks: the call graphs of a chunk are made on both cores, then the chunk
    // is printed in order (chunks bound the memory held by finished graph texts).
    constexpr size_t kChunk = 256;
    for (size_t chunk = 0; chunk < printed.size(); chunk += kChunk) {
      std::span<const HistEntry* const> part(printed.data() + chunk, std::min(kChunk, printed.size() - chunk));
      if (graph) CallGraphTexts(report, h, part, &graphs);
      for (size_t pi = 0; pi < part.size(); ++pi) {
        const HistEntry* e = part[pi];
        if (!use_sep) out->append("  ");
        for (size_t i = 0; i < fields.size(); ++i) {
          const auto& f = fields[i];
          if (i) out->append(use_sep ? sep : "  ");
          cell.clear();
          bool percent = true;
          switch (f.kind) {
            case FieldKind::kOverhead: fmt::format_to(std::back_inserter(cell), "{:.2f}%", Percent(e->self.period, h.total_period)); break;
            case FieldKind::kOverheadSys: fmt::format_to(std::back_inserter(cell), "{:.2f}%", Percent(e->self.period_sys, h.total_period)); break;
            case FieldKind::kOverheadUs: fmt::format_to(std::back_inserter(cell), "{:.2f}%", Percent(e->self.period_us, h.total_period)); break;
            case FieldKind::kChildren: fmt::format_to(std::back_inserter(cell), "{:.2f}%", Percent(e->acc.period, h.total_period)); break;
            case FieldKind::kSamples: percent = false; fmt::format_to(std::back_inserter(cell), "{}", e->self.nr_samples); break;
            case FieldKind::kPeriod: percent = false; fmt::format_to(std::back_inserter(cell), "{}", e->self.period); break;
            case FieldKind::kSortKey:
            f.key->print(*e, &cell);
            // perf's repsep_snprintf: the separator's first character inside a value
            // becomes '.', so "-t ," output stays parseable (C++ names have commas).
            if (use_sep) std::replace(cell.begin(), cell.end(), sep[0], '.');
            else if (f.key->truncate && cell.size() > f.width) cell.resize(f.width);
            break;
          }
          if (f.numeric()) {
            (void)percent;
            if (use_sep) {
              // perf prints " %-*s" in separator mode: a space, then left-aligned.
              out->push_back(' ');
              out->append(cell);
              if (cell.size() + 1 < f.width) Pad(out, f.width - 1 - cell.size());
            } else {
              if (cell.size() < f.width) Pad(out, f.width - cell.size());
              out->append(cell);
            }
          } else {
            out->append(cell);
            bool last = i + 1 == fields.size();
            if ((!last || f.key->pad_last) && cell.size() < f.width) Pad(out, f.width - cell.size());
          }
        }
        out->push_back('\n');
        if (graph) out->append(graphs[pi]);
      }
    }
    out->append("\n\n");
  }
  // perf prints the branch statistics after its tip, which perflens does not print,
  // and ends them without a newline; perflens ends the line.
  if (const BranchTypeStat* stat = report.branch_types()) {
    const size_t before = out->size();
    stat->Print(out);
    if (out->size() != before) out->push_back('\n');
  }
  return Status::Ok();
}

}  // namespace perflens
