// perf's --time and -C/--cpu sample filters (report and script): parsing their
// arguments as perf 6.1 does (util/time-utils.c, perf_cpu_map__new) and deciding per
// sample. Unlike --comms/--dsos/--symbols, perf drops the samples they exclude before
// anything counts them: they are in no total.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "perfdata/perf_file.h"

namespace perflens {

// One --time interval in perf's clock (ns, the recording's PERF_SAMPLE_TIME). 0 means
// open: start 0 has no lower bound, end 0 no upper one. Both ends are inclusive.
struct TimeRange {
  uint64_t start = 0;
  uint64_t end = 0;
  bool operator==(const TimeRange&) const = default;
};

// The recording's first and last sample times (HEADER_SAMPLE_TIME), which the percent
// forms and --reltime need.
struct SampleTimeBounds {
  std::optional<uint64_t> first, last;  // ns
};

// Parses a --time argument into its intervals, as perf_time__parse_for_ranges_reltime:
//   "S,E"                 one interval, seconds with up to 9 decimals ("123.456,124"),
//                         either side may be empty ("S," / ",E")
//   "S1,E1 S2,E2 ..."     several intervals (space separated, in order, not overlapping)
//   "10%/2"               the 2nd 10% slice of [first, last]; "10%/1,10%/3" several
//   "0%-10%,30%-40%"      percent ranges of [first, last]
//   "25%"                 the first 25%
// `reltime` (script --reltime): the explicit times count from the first sample.
// Errors: a malformed argument ("invalid time string ..."), an end before its start,
// overlapping intervals, and percent/reltime forms on a file without HEADER_SAMPLE_TIME.
Result<std::vector<TimeRange>> ParseTimeRanges(std::string_view arg, const SampleTimeBounds& bounds,
                                               bool reltime = false);

// Whether a sample at `time` (ns) is outside every interval (perf_time__ranges_skip_sample:
// a sample without a time (0) is never skipped; one interval is checked with its open ends).
bool SkipsTime(const std::vector<TimeRange>& ranges, uint64_t time);

// Parses a -C/--cpu list ("0-3,6,8-9") into a bitmap indexed by cpu number. Errors: not
// a list of numbers and ranges, a range that ends before it starts, a cpu above 4095.
Result<std::vector<bool>> ParseCpuList(std::string_view arg);
// Whether some evsel's samples carry `sample_type_bit` (e.g. kSampleCpu).
inline bool AnySampleHas(const PerfFile& file, uint64_t sample_type_bit) {
  for (const Evsel& ev : file.evsels())
    if (ev.attr.sample_type & sample_type_bit) return true;
  return false;
}
// The --time and -C arguments of report and script, parsed for `file` into *ranges and
// *cpus (left empty for an empty argument). `reltime`: script's --reltime. Errors:
// ParseTimeRanges', ParseCpuList's, kNoCpuEvents when the samples lack the cpu.
Status ParseTimeCpuFilters(const PerfFile& file, std::string_view time, std::string_view cpu_list, bool reltime,
                           std::vector<TimeRange>* ranges, std::vector<bool>* cpus);
// -C on a file whose samples do not record the cpu: perf's message (then the why).
inline constexpr const char* kNoCpuEvents =
    "File does not contain CPU events. Remove -C option to proceed. (its samples do not record PERF_SAMPLE_CPU)";

}  // namespace perflens
