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

// Appends the header lines and rows of one evsel's histogram `h`. `fields`: the value
// columns (Overhead, Samples, Period) then one sort key per level, with the widths the
// flat layout gives them (perf sizes the columns over every row alike).
void AppendHierarchy(const HistsOutput& report, const Hists& h, const std::vector<OutputField>& fields,
                     std::string* out);

}  // namespace perflens
