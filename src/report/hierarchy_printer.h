// perf report --hierarchy in --stdio: one level per sort key, each entry indented under
// the one above it with its own overhead (the sum of the rows below it), call graphs
// under the last level (perf's hist_entry__hierarchy_fprintf, print_hierarchy_header).
#pragma once

#include <string>
#include <vector>

#include "report/hists.h"
#include "report/hists_output.h"
#include "report/output_fields.h"

namespace perflens {

// One flat row of a section: the key values (`e`) and, per member of the section (the
// evsel, or a group's leader then its members), that Hists' row or nullptr.
struct HierarchyRow {
  const HistEntry* e = nullptr;
  std::vector<const HistEntry*> vals;
};

// Appends the header lines and entries of one section. `hists`: the section's Hists (the
// leader's first), `rows` its flat rows. `fields`: the value columns (Overhead,
// Samples, Period) then one sort key per level, with the widths the flat layout gives
// them (perf sizes the columns over every row alike); `member_len`, parallel to
// `fields`, a value column's width for one member (group view).
void AppendHierarchy(const HistsOutput& report, const std::vector<const Hists*>& hists,
                     const std::vector<HierarchyRow>& rows, const std::vector<OutputField>& fields,
                     const std::vector<size_t>& member_len, std::string* out);

}  // namespace perflens
