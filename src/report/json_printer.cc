#include <nlohmann/json.hpp>

#include "report/json_printer.h"

namespace perflens {

Status PrintReportJson(const HistsOutput& report, std::string* out) {
  using nlohmann::json;
  json doc;
  doc["file"] = report.path();
  doc["total_lost_samples"] = report.total_lost_samples();
  json sections = json::array();
  std::string cell;
  const auto& evsels = report.evsels();
  for (size_t ei = 0; ei < report.hists().size(); ++ei) {
    const Hists& h = report.hists()[ei];
    if (h.nr_samples == 0) continue;
    json sec;
    sec["event"] = evsels[ei].name;
    sec["samples"] = h.nr_samples;
    sec["event_count"] = h.total_period;
    json rows = json::array();
    const double limit = report.options().percent_limit;
    for (const HistEntry* e : h.Sorted(report.sort_by_children())) {
      uint64_t limit_period = report.sort_by_children() ? e->acc.period : e->self.period;
      if (limit > 0 && h.total_period &&
          100.0 * static_cast<double>(limit_period) / static_cast<double>(h.total_period) < limit)
        continue;
      json row;
      row["period"] = e->self.period;
      row["samples"] = e->self.nr_samples;
      row["period_sys"] = e->self.period_sys;
      row["period_us"] = e->self.period_us;
      if (report.children()) row["children_period"] = e->acc.period;
      row["overhead"] = h.total_period ? 100.0 * static_cast<double>(e->self.period) / static_cast<double>(h.total_period) : 0.0;
      if (report.children())
        row["children"] = h.total_period ? 100.0 * static_cast<double>(e->acc.period) / static_cast<double>(h.total_period) : 0.0;
      for (const SortKey* k : h.keys()) k->json(*e, &row);
      rows.push_back(std::move(row));
    }
    sec["rows"] = std::move(rows);
    sections.push_back(std::move(sec));
  }
  doc["events"] = std::move(sections);
  doc["warnings"] = report.warnings();
  // Names come from the recording and need not be UTF-8: invalid bytes become U+FFFD
  // (nlohmann throws type_error.316 otherwise), so the output is always valid JSON.
  *out += doc.dump(2, ' ', false, json::error_handler_t::replace);
  out->push_back('\n');
  return Status::Ok();
}

}  // namespace perflens
