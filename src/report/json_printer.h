// `perflens report --json`: the rows of every Hists with raw numbers (periods, sample
// counts, the sort keys' values through SortKey::json), the lost-sample count and the
// summary warnings. Output is one JSON document; invalid UTF-8 in names becomes U+FFFD.
#pragma once

#include <string>

#include "base/result.h"
#include "report/hists_output.h"
#include "report/report.h"

namespace perflens {

Status PrintReportJson(const HistsOutput& report, std::string* out);
inline Status PrintReportJson(const Report& report, std::string* out) { return PrintReportJson(report.Output(), out); }

}  // namespace perflens
