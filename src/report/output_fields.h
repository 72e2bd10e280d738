// Output columns of a report (perf's hpp formats plus sort-key columns), parsed from
// -F/--fields or derived from the sort keys, children mode and -n.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "report/hist_entry.h"
#include "report/hists.h"
#include "report/sort_key.h"

namespace perflens {

enum class FieldKind { kOverhead, kOverheadSys, kOverheadUs, kChildren, kSamples, kPeriod, kSortKey };

struct OutputField {
  FieldKind kind;
  const SortKey* key = nullptr;  // for kSortKey
  std::string header;
  size_t width = 0;              // fixed for numeric columns, computed for text columns
  bool numeric() const { return kind != FieldKind::kSortKey; }
};

// `fields` is the -F list (empty → defaults: [Children,] Overhead/Self, [Samples,]
// [Period,] sort keys). Sort keys named in -F but not in --sort are allowed (as perf).
// Errors name the unknown field.
Result<std::vector<OutputField>> BuildOutputFields(std::string_view fields, const std::vector<const SortKey*>& sort_keys,
                                                   bool children, bool show_nr_samples, bool show_total_period = false);

}  // namespace perflens
