#include "report/output_fields.h"

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

}  // namespace perflens
