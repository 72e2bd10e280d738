// `perflens report --json`: the rows of every Hists with raw numbers (periods, sample
// counts, the sort keys' values through SortKey::json), the lost-sample count and the
// summary warnings. Output is one JSON document; invalid UTF-8 in names becomes U+FFFD.
//
// {"file", "total_lost_samples",
//  "call_graph": {"mode": none|graph|fractal|flat|folded, "order": caller|callee,
//                 "threshold" (percent), "print_limit" (0 = all), "key": function|address},
//  "events": [{"event", "samples", "event_count",
//              "rows": [{"period", "samples", "period_sys", "period_us", "overhead" (%),
//                        ["children_period", "children" (%) with Children,]
//                        <sort keys' fields>,
//                        ["callchain": see below, when the row has a call graph]}]}],
//  "warnings": [string]}
//
// "callchain" is what the stdio printer prints under the row for the same -g options
// (MakeCallchainView). graph/fractal: [node], node = {"period", "samples" (absolute, the
// chains through it), "percent" (as printed: of the total, fractal of the parent),
// "frames": [frame] (the run printed under one value line), "children": [node] (print
// order; each child's period <= its parent's)}. flat/folded: [{"period", "samples",
// "percent", "frames"}] in print order (flat: chains through the last frame, folded:
// chains ending there). frame = {"name" (as printed), "symbol" (null when unresolved,
// then "ip"), "dso", ["inlined": true], ["srcline" with -g ...,address]}.
#pragma once

#include <string>

#include "base/result.h"
#include "report/hists_output.h"
#include "report/report.h"

namespace perflens {

Status PrintReportJson(const HistsOutput& report, std::string* out);
inline Status PrintReportJson(const Report& report, std::string* out) { return PrintReportJson(report.Output(), out); }

}  // namespace perflens
