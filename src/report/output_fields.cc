#include "report/output_fields.h"

#include <fmt/format.h>

#include "report/percent_color.h"

namespace perflens {

Result<std::vector<OutputField>> BuildOutputFields(std::string_view fields, const std::vector<const SortKey*>& sort_keys,
                                                   bool children, bool show_nr_samples, bool show_total_period) {
  std::vector<OutputField> out;
  const bool defaults = fields.empty();
  auto add_numeric = [&](FieldKind k) {
    switch (k) {
      case FieldKind::kOverhead: out.push_back({k, nullptr, children && defaults ? "Self" : "Overhead", 8}); break;
      case FieldKind::kOverheadSys: out.push_back({k, nullptr, "sys", 8}); break;
      case FieldKind::kOverheadUs: out.push_back({k, nullptr, "usr", 8}); break;
      case FieldKind::kChildren: out.push_back({k, nullptr, "Children", 8}); break;
      case FieldKind::kSamples: out.push_back({k, nullptr, "Samples", 12}); break;
      case FieldKind::kPeriod: out.push_back({k, nullptr, "Period", 12}); break;
      case FieldKind::kSortKey: break;
    }
  };
  if (fields.empty()) {
    if (children) add_numeric(FieldKind::kChildren);
    add_numeric(FieldKind::kOverhead);
    if (show_nr_samples) add_numeric(FieldKind::kSamples);
    if (show_total_period) add_numeric(FieldKind::kPeriod);
    for (const SortKey* k : sort_keys) out.push_back({FieldKind::kSortKey, k, std::string(k->header), 0});
    return out;
  }
  while (!fields.empty()) {
    auto comma = fields.find(',');
    std::string_view f = fields.substr(0, comma);
    fields = comma == std::string_view::npos ? std::string_view() : fields.substr(comma + 1);
    if (f.empty()) continue;
    if (f == "overhead") {
      add_numeric(FieldKind::kOverhead);  // perf: -F columns are exactly the ones named
    } else if (f == "overhead_sys") {
      add_numeric(FieldKind::kOverheadSys);
    } else if (f == "overhead_us") {
      add_numeric(FieldKind::kOverheadUs);
    } else if (f == "overhead_children") {
      add_numeric(FieldKind::kChildren);
    } else if (f == "sample") {
      add_numeric(FieldKind::kSamples);
    } else if (f == "period") {
      add_numeric(FieldKind::kPeriod);
    } else if (const SortKey* k = FindSortKey(f)) {
      for (const SortKey* s : sort_keys)  // the report's variant of it (time with --ns)
        if (s->name == k->name) k = s;
      out.push_back({FieldKind::kSortKey, k, std::string(k->header), 0});
    } else {
      return Err("unknown --fields key '{}' (known: overhead, overhead_sys, overhead_us, overhead_children, "
                 "sample, period, comm, pid, dso, sym, cpu)",
                 f);
    }
  }
  // perf appends the sort keys that -F did not name.
  for (const SortKey* k : sort_keys) {
    bool present = false;
    for (const auto& o : out) present |= o.key == k;
    if (!present) out.push_back({FieldKind::kSortKey, k, std::string(k->header), 0});
  }
  return out;
}

void AppendNumericCell(const OutputField& f, const std::vector<FieldValue>& values, size_t member_len,
                       std::string_view sep, bool color, std::string* out) {
  std::string cell, one;
  size_t cell_width = 0;  // printed columns, without colour escapes
  for (size_t k = 0; k < values.size(); ++k) {
    static const HistStat kZero;
    const HistStat& st = values[k].self ? *values[k].self : kZero;
    const uint64_t total = values[k].total;
    one.clear();
    double pct = -1;  // the value's percentage, when it is one
    switch (f.kind) {
      case FieldKind::kOverhead: pct = Percent(st.period, total); break;
      case FieldKind::kOverheadSys: pct = Percent(st.period_sys, total); break;
      case FieldKind::kOverheadUs: pct = Percent(st.period_us, total); break;
      case FieldKind::kChildren: pct = Percent(values[k].self ? values[k].acc_period : 0, total); break;
      case FieldKind::kSamples: fmt::format_to(std::back_inserter(one), "{}", st.nr_samples); break;
      case FieldKind::kPeriod: fmt::format_to(std::back_inserter(one), "{}", st.period); break;
      case FieldKind::kSortKey: break;
    }
    if (pct >= 0) fmt::format_to(std::back_inserter(one), "{:.2f}%", pct);
    if (!sep.empty()) {
      if (k) cell.push_back(' ');
      cell.append(one);
      cell_width = cell.size();
      continue;
    }
    // perf's hpp__fmt: the colour spans the member's padded value.
    if (one.size() < member_len) one.insert(0, member_len - one.size(), ' ');
    cell_width += one.size();
    if (pct >= 0) AppendPercentColored(color, pct, one, &cell);
    else cell.append(one);
  }
  if (!sep.empty()) {
    out->push_back(' ');
    out->append(cell);
    if (cell_width + 1 < f.width) out->append(f.width - 1 - cell_width, ' ');
    return;
  }
  if (cell_width < f.width) out->append(f.width - cell_width, ' ');
  out->append(cell);
}

}  // namespace perflens
