#include "session/time_cpu_filter.h"

#include <charconv>
#include <cmath>
#include <string>

namespace perflens {
namespace {

constexpr uint64_t kNsPerSec = 1000000000;

Error InvalidTime(std::string_view arg, std::string_view why) {
  return Error{"invalid time string '" + std::string(arg) + "': " + std::string(why)};
}

// "SEC[.FRACTION]" with at most 9 fraction digits → ns (perf's parse_nsec_time).
bool ParseNsecTime(std::string_view s, uint64_t* ns) {
  const size_t dot = s.find('.');
  std::string_view sec = s.substr(0, dot), frac = dot == std::string_view::npos ? "" : s.substr(dot + 1);
  uint64_t secs = 0, fraction = 0;
  if (sec.empty() && frac.empty()) return false;
  if (!sec.empty()) {
    auto [p, ec] = std::from_chars(sec.data(), sec.data() + sec.size(), secs);
    if (ec != std::errc() || p != sec.data() + sec.size()) return false;
  }
  if (frac.size() > 9) return false;
  for (char c : frac) {
    if (c < '0' || c > '9') return false;
    fraction = fraction * 10 + static_cast<uint64_t>(c - '0');
  }
  for (size_t i = frac.size(); i < 9; ++i) fraction *= 10;
  if (secs > (UINT64_MAX - fraction) / kNsPerSec) return false;
  *ns = secs * kNsPerSec + fraction;
  return true;
}

// "S,E" with either side possibly empty.
bool ParseInterval(std::string_view s, TimeRange* r) {
  const size_t comma = s.find(',');
  if (comma == std::string_view::npos) return false;
  std::string_view a = s.substr(0, comma), b = s.substr(comma + 1);
  *r = {};
  if (!a.empty() && !ParseNsecTime(a, &r->start)) return false;
  if (!b.empty() && !ParseNsecTime(b, &r->end)) return false;
  return true;
}

bool ParsePercent(std::string_view s, double* fraction) {
  if (s.empty() || s.back() != '%') return false;
  std::string num(s.substr(0, s.size() - 1));
  if (num.empty()) return false;
  char* end = nullptr;
  const double d = std::strtod(num.c_str(), &end);
  if (end != num.c_str() + num.size()) return false;
  *fraction = d / 100.0;
  return true;
}

bool SetPercentTime(double start_pct, double end_pct, uint64_t first, uint64_t last, TimeRange* r) {
  if (!(start_pct >= 0.0 && start_pct <= 1.0 && end_pct >= 0.0 && end_pct <= 1.0)) return false;
  const uint64_t total = last - first;
  r->start = first + static_cast<uint64_t>(std::llround(start_pct * static_cast<double>(total)));
  r->end = first + static_cast<uint64_t>(std::llround(end_pct * static_cast<double>(total)));
  // perf: a slice ends 1 ns before the next one starts, except the last.
  if (r->end > r->start && r->end != last) r->end -= 1;
  return true;
}

// "P%/N": the N-th slice of width P.
bool PercentSlash(std::string_view s, uint64_t first, uint64_t last, TimeRange* r) {
  const size_t slash = s.find('/');
  if (slash == std::string_view::npos) return false;
  double pct;
  if (!ParsePercent(s.substr(0, slash), &pct) || pct <= 0.0) return false;
  std::string_view n = s.substr(slash + 1);
  long index = 0;
  auto [p, ec] = std::from_chars(n.data(), n.data() + n.size(), index);
  if (ec != std::errc() || p != n.data() + n.size()) return false;
  return SetPercentTime(pct * static_cast<double>(index - 1), pct * static_cast<double>(index), first, last, r);
}

// "A%-B%".
bool PercentDash(std::string_view s, uint64_t first, uint64_t last, TimeRange* r) {
  const size_t dash = s.find('-');
  if (dash == std::string_view::npos) return false;
  double a, b;
  if (!ParsePercent(s.substr(0, dash), &a) || !ParsePercent(s.substr(dash + 1), &b)) return false;
  return SetPercentTime(a, b, first, last, r);
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n'; }

}  // namespace

Result<std::vector<TimeRange>> ParseTimeRanges(std::string_view arg, const SampleTimeBounds& bounds, bool reltime) {
  const bool percent = arg.find('%') != std::string_view::npos;
  if ((percent || reltime) && !(bounds.first && bounds.last))
    return Error{"--time " + std::string(percent ? "with percentages" : "with --reltime") +
                 " needs the first and last sample times, which this file does not record "
                 "(perf record writes them unless --buildid-all is given without --timestamp-boundary)"};
  std::vector<TimeRange> ranges;
  if (percent) {
    const uint64_t first = *bounds.first, last = *bounds.last;
    if (last < first) return InvalidTime(arg, "the file's last sample time is before its first");
    std::string_view rest = arg;
    const bool slash = arg.find('/') != std::string_view::npos;
    const bool dash = !slash && arg.find('-') != std::string_view::npos;
    if (!slash && !dash) {  // "P%": the first slice
      TimeRange r;
      if (!PercentSlash(std::string(arg) + "/1", first, last, &r)) return InvalidTime(arg, "expected P%");
      ranges.push_back(r);
    } else {
      while (!rest.empty()) {
        const size_t comma = rest.find(',');
        std::string_view piece = rest.substr(0, comma);
        TimeRange r;
        if (!(slash ? PercentSlash(piece, first, last, &r) : PercentDash(piece, first, last, &r)))
          return InvalidTime(arg, slash ? "expected P%/N[,P%/N...]" : "expected A%-B%[,A%-B%...]");
        ranges.push_back(r);
        if (comma == std::string_view::npos) break;
        rest = rest.substr(comma + 1);
      }
    }
  } else {
    // Intervals "S,E" separated by white space.
    std::string_view rest = arg;
    while (true) {
      while (!rest.empty() && IsSpace(rest.front())) rest.remove_prefix(1);
      if (rest.empty()) break;
      const size_t comma = rest.find(',');
      if (comma == std::string_view::npos) return InvalidTime(arg, "expected START,END");
      size_t end = comma + 1;
      while (end < rest.size() && IsSpace(rest[end])) ++end;  // perf skips spaces after the comma
      while (end < rest.size() && !IsSpace(rest[end])) {
        if (rest[end] == ',') return InvalidTime(arg, "expected START,END");
        ++end;
      }
      std::string piece(rest.substr(0, end));
      std::erase_if(piece, IsSpace);
      TimeRange r;
      if (!ParseInterval(piece, &r)) return InvalidTime(arg, "times are seconds with up to 9 decimals");
      if (r.end && r.end < r.start) return InvalidTime(arg, "an interval ends before it starts");
      ranges.push_back(r);
      rest = rest.substr(end);
    }
    if (ranges.empty()) return InvalidTime(arg, "expected START,END");
    for (size_t i = 0; i + 1 < ranges.size(); ++i)
      if (ranges[i].end >= ranges[i + 1].start) return InvalidTime(arg, "intervals overlap or are out of order");
    if (reltime)
      for (TimeRange& r : ranges) {
        r.start += *bounds.first;
        r.end += *bounds.first;
      }
  }
  return ranges;
}

bool SkipsTime(const std::vector<TimeRange>& ranges, uint64_t time) {
  if (ranges.empty() || time == 0) return false;
  if (ranges.size() == 1) {
    const TimeRange& r = ranges[0];
    return (r.start && time < r.start) || (r.end && time > r.end);
  }
  for (const TimeRange& r : ranges)
    if (time >= r.start && (time <= r.end || !r.end)) return false;
  return true;
}

Result<std::vector<bool>> ParseCpuList(std::string_view arg) {
  constexpr uint32_t kMaxCpu = 4095;
  std::vector<bool> cpus;
  auto bad = [&](std::string_view why) {
    return Error{"invalid cpu list '" + std::string(arg) + "': " + std::string(why)};
  };
  auto number = [](std::string_view s, uint32_t* v) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
    return ec == std::errc() && p == s.data() + s.size();
  };
  std::string_view rest = arg;
  if (rest.empty()) return bad("empty");
  while (true) {
    const size_t comma = rest.find(',');
    std::string_view piece = rest.substr(0, comma);
    const size_t dash = piece.find('-');
    uint32_t lo, hi;
    if (!number(piece.substr(0, dash), &lo)) return bad("expected N or N-M items separated by commas");
    hi = lo;
    if (dash != std::string_view::npos && !number(piece.substr(dash + 1), &hi))
      return bad("expected N or N-M items separated by commas");
    if (hi < lo) return bad("a range ends before it starts");
    if (hi > kMaxCpu) return bad("cpu numbers go up to 4095");
    if (cpus.size() <= hi) cpus.resize(hi + 1, false);
    for (uint32_t c = lo; c <= hi; ++c) cpus[c] = true;
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return cpus;
}

Status ParseTimeCpuFilters(const PerfFile& file, std::string_view time, std::string_view cpu_list, bool reltime,
                           std::vector<TimeRange>* ranges, std::vector<bool>* cpus) {
  if (!time.empty()) {
    const HeaderEnv& env = file.env();
    auto r = ParseTimeRanges(time, {env.first_sample_time, env.last_sample_time}, reltime);
    if (!r) return r.error();
    *ranges = std::move(*r);
  }
  if (!cpu_list.empty()) {
    if (!AnySampleHas(file, kSampleCpu)) return Error{kNoCpuEvents};
    auto c = ParseCpuList(cpu_list);
    if (!c) return c.error();
    *cpus = std::move(*c);
  }
  return Status::Ok();
}

}  // namespace perflens
