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

// `part` as a percentage of `total` (0 for no total), as perf's hpp formats compute it.
inline double Percent(uint64_t part, uint64_t total) {
  return total ? 100.0 * static_cast<double>(part) / static_cast<double>(total) : 0.0;
}

// One member's value of a numeric field (`self` and the Children period `acc_period` of
// an entry, percentages of `total`), as perf's hpp formats print it.
struct FieldValue {
  const HistStat* self = nullptr;  // nullptr: the member has no entry (zeros)
  uint64_t acc_period = 0;
  uint64_t total = 0;
};

// Appends numeric field `f`'s cell for `values` (one per group member), without the
// column separator before it: each value right-aligned in `member_len` columns and the
// whole in `f.width` (perf's __hpp__fmt), percentages in perf's colours with `color`;
// with a separator `sep` (-t), perf's " %-*s" of the values joined by spaces, never
// coloured.
void AppendNumericCell(const OutputField& f, const std::vector<FieldValue>& values, size_t member_len,
                       std::string_view sep, bool color, std::string* out);

}  // namespace perflens
