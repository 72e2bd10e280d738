// Prints a Report the way `perf report --stdio` lays it out: the
// "# Samples: N  of event 'X'" and "# Event count (approx.)" lines, the column header and
// dots, [.]/[k] symbols, the same rounding and ordering, one section per evsel with
// samples. Output goes into one string (the caller writes it once).
#pragma once

#include <string>

#include "report/hists_output.h"
#include "report/report.h"

namespace perflens {

// Errors: bad -F fields.
Status PrintReportStdio(const HistsOutput& report, std::string* out);
inline Status PrintReportStdio(const Report& report, std::string* out) { return PrintReportStdio(report.Output(), out); }

}  // namespace perflens
