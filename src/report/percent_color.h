// perf's percentage colours (tools/perf/util/color.{h,c}: get_percent_color,
// PERF_COLOR_RED/GREEN/RESET, MIN_RED 5.0, MIN_GREEN 0.5): a percentage of at least 5 is
// red, one above 0.5 green, the rest uncoloured. perf colours the overhead columns
// (overhead, overhead_sys/us, children; not in -t mode) and every call-graph value
// printed as a percentage.
#pragma once

#include <cmath>
#include <string>
#include <string_view>

namespace perflens {

// The escape sequence that starts `percent`'s colour, "" for none.
inline std::string_view PercentColor(double percent) {
  const double a = std::fabs(percent);
  if (a >= 5.0) return "\033[31m";
  if (a > 0.5) return "\033[32m";
  return "";
}

// Appends `text` (already formatted and padded) in `percent`'s colour; plain without
// `color` or when the percentage has none (as perf's color_snprintf).
inline void AppendPercentColored(bool color, double percent, std::string_view text, std::string* out) {
  const std::string_view c = color ? PercentColor(percent) : std::string_view();
  if (c.empty()) {
    out->append(text);
    return;
  }
  out->append(c);
  out->append(text);
  out->append("\033[m");
}

}  // namespace perflens
