// Invariants the fuzz entries (fuzz_entries.h) check on what perflens delivers and
// prints, so that an entry can fail in a normal build, not only under a sanitizer:
// an entry returns 0 when every invariant held and 1 otherwise, with the first broken
// one in LastFailure(). The libFuzzer targets trap on 1 (PERFLENS_FUZZ_TARGET); the
// regression replay (tests/hardening/fuzz_regression_test.cc) asserts 0.
//
// The text checks rely only on what perflens guarantees for any input: names from a
// recording are printed with control bytes as "\xNN" (base/text_escape.h), a value
// never contains the -t separator (it becomes '.'), JSON output is valid UTF-8 JSON,
// and every number a printer computes is finite.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace perflens::fuzz {

// The first broken invariant of the last entry that returned 1 (this thread).
inline std::string& LastFailure() {
  static thread_local std::string failure;
  return failure;
}

// Collects the first broken invariant of one entry call.
class Invariants {
 public:
  template <typename... Args>
  bool Expect(bool ok, fmt::format_string<Args...> f, Args&&... args) {
    if (!ok && failure_.empty()) failure_ = fmt::format(f, std::forward<Args>(args)...);
    return ok;
  }
  bool ok() const { return failure_.empty(); }
  const std::string& failure() const { return failure_; }
  // The entry's return value: 0 when every check held, else 1 (LastFailure() set).
  int Finish() const {
    if (ok()) return 0;
    LastFailure() = failure_;
    return 1;
  }

 private:
  std::string failure_;
};

inline std::string_view Context(std::string_view text, size_t at) {
  size_t b = at > 40 ? at - 40 : 0;
  return text.substr(b, 80);
}

// No byte < 0x20 or 0x7f but '\n' (and '\t' when `tabs`): perflens prints names read
// from a recording through EscapeControl.
inline bool CheckNoControlBytes(std::string_view what, std::string_view text, bool tabs, Invariants* inv) {
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\n' && !(tabs && c == '\t')) || c == 0x7f)
      return inv->Expect(false, "{}: control byte {:#04x} at offset {} in output: {:?}", what, c, i,
                         std::string(Context(text, i)));
  }
  return true;
}

inline std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

inline bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// "43.12%": a finite percentage as the printers write it ("{:.2f}%"; NaN would print
// "nan%", infinity "inf%").
inline bool IsPrintedPercent(std::string_view s) {
  if (s.size() < 5 || s.back() != '%') return false;
  s.remove_suffix(1);
  size_t dot = s.find('.');
  return dot != std::string_view::npos && s.size() - dot == 3 && AllDigits(s.substr(0, dot)) &&
         AllDigits(s.substr(dot + 1));
}

// A call-graph value: a percentage, or a period / sample count (-g ...,period/count).
inline bool IsPrintedValue(std::string_view s) { return IsPrintedPercent(s) || AllDigits(s); }

inline bool ParseU64(std::string_view s, uint64_t* v) {
  if (!AllDigits(s) || s.size() > 20) return false;
  *v = 0;
  for (char c : s) *v = *v * 10 + static_cast<uint64_t>(c - '0');
  return true;
}

inline std::string_view TrimSpaces(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

inline std::vector<std::string_view> SplitOn(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (size_t start = 0;;) {
    size_t p = s.find(sep, start);
    out.push_back(s.substr(start, p == std::string_view::npos ? p : p - start));
    if (p == std::string_view::npos) break;
    start = p + 1;
  }
  return out;
}

// `perflens report --stdio -t '|' -n -g none` text: per "# Samples:" section, every row
// line is "<overhead>%|...| <samples>|key|key..." with `nr_percent` percentage columns
// (2 with Children: Children, Self) and `nr_fields` fields; `expected[i]` is the sample
// count section i must add up to (the hists' nr_samples).
inline bool CheckSeparatedReport(std::string_view text, size_t nr_percent, size_t nr_fields,
                                 const std::vector<uint64_t>& expected, Invariants* inv) {
  if (!CheckNoControlBytes("report --stdio", text, false, inv)) return false;
  std::vector<uint64_t> sums;
  for (std::string_view line : Lines(text)) {
    if (line.rfind("# Samples: ", 0) == 0) {
      sums.push_back(0);
      continue;
    }
    // Branch mode closes with its statistics ("CROSS_2M: 100.0%"): no rows after them.
    if (line.rfind("# Branch Statistics:", 0) == 0) break;
    if (line.empty() || line[0] == '#') continue;
    if (!inv->Expect(!sums.empty(), "report row before any '# Samples:' line: {:?}", std::string(line))) return false;
    std::vector<std::string_view> f = SplitOn(line, '|');
    if (!inv->Expect(f.size() == nr_fields, "report row with {} fields, expected {}: {:?}", f.size(), nr_fields,
                     std::string(line)))
      return false;
    for (size_t i = 0; i < nr_percent; ++i)
      if (!inv->Expect(IsPrintedPercent(TrimSpaces(f[i])), "overhead {:?} is not a finite percentage in {:?}",
                       std::string(f[i]), std::string(line)))
        return false;
    uint64_t n = 0;
    if (!inv->Expect(ParseU64(TrimSpaces(f[nr_percent]), &n), "sample count {:?} is not a number in {:?}",
                     std::string(f[nr_percent]), std::string(line)))
      return false;
    sums.back() += n;
  }
  if (!inv->Expect(sums.size() == expected.size(), "{} '# Samples:' sections, {} hists with samples", sums.size(),
                   expected.size()))
    return false;
  for (size_t i = 0; i < sums.size(); ++i)
    if (!inv->Expect(sums[i] == expected[i], "section {}: the rows' samples add up to {}, the hists have {}", i,
                     sums[i], expected[i]))
      return false;
  return true;
}

// Call-graph report text (no -t, -n, Children on or off, -g graph/fractal/folded):
//  * entry lines ("  " + the numeric columns right-aligned, fewer than 11 leading
//    spaces): `nr_percent` percentages, then the sample count; per section they add up
//    to `expected[i]`;
//  * graph lines (12-space margin, then 11-column groups "|          "): the first
//    "--" that follows the tree drawing at a value column (11k + 1 past the margin, or
//    11k + 4 below a "---" root chain) opens "--VALUE--";
//  * folded lines (column 0): "VALUE frame;frame".
inline bool CheckCallGraphReport(std::string_view text, size_t nr_percent, const std::vector<uint64_t>& expected,
                                 Invariants* inv) {
  if (!CheckNoControlBytes("report -g", text, false, inv)) return false;
  constexpr size_t kMargin = 12;
  std::vector<uint64_t> sums;
  for (std::string_view line : Lines(text)) {
    if (line.rfind("# Samples: ", 0) == 0) {
      sums.push_back(0);
      continue;
    }
    // Branch mode closes with its statistics ("COND_FWD:  11.8%"), printed by perf under
    // every -g mode: no entries after them.
    if (line.rfind("# Branch Statistics:", 0) == 0) break;
    if (line.empty() || line[0] == '#') continue;
    size_t lead = line.find_first_not_of(' ');
    if (lead == std::string_view::npos) continue;
    if (!inv->Expect(!sums.empty(), "report line before any '# Samples:' line: {:?}", std::string(line))) return false;
    if (lead == 0) {  // folded: "VALUE stack"
      size_t sp = line.find(' ');
      if (!inv->Expect(sp != std::string_view::npos && IsPrintedValue(line.substr(0, sp)),
                       "folded line without a value: {:?}", std::string(line)))
        return false;
      continue;
    }
    if (lead < 11) {  // an entry line
      std::vector<std::string_view> tok;
      for (std::string_view t : SplitOn(line, ' '))
        if (!t.empty()) tok.push_back(t);
      uint64_t n = 0;
      if (!inv->Expect(tok.size() > nr_percent, "short entry line {:?}", std::string(line))) return false;
      for (size_t i = 0; i < nr_percent; ++i)
        if (!inv->Expect(IsPrintedPercent(tok[i]), "entry column {} {:?} is not a finite percentage in {:?}", i,
                         std::string(tok[i]), std::string(line)))
          return false;
      if (!inv->Expect(ParseU64(tok[nr_percent], &n), "entry sample count {:?} is not a number in {:?}",
                       std::string(tok[nr_percent]), std::string(line)))
        return false;
      sums.back() += n;
      continue;
    }
    if (lead < kMargin) continue;
    size_t p = kMargin;
    while (p < line.size() && (line[p] == ' ' || line[p] == '|')) ++p;
    if (line.compare(p, 2, "--") != 0 || line.compare(p, 3, "---") == 0) continue;
    if ((p - kMargin) % 11 != 1 && (p - kMargin) % 11 != 4) continue;  // a name starting "--"
    size_t end = line.find("--", p + 2);
    std::string_view value = line.substr(p + 2, end == std::string_view::npos ? end : end - p - 2);
    if (!inv->Expect(end != std::string_view::npos && IsPrintedValue(value),
                     "call-graph branch value {:?} is not a finite number in {:?}", std::string(value),
                     std::string(line)))
      return false;
  }
  if (!inv->Expect(sums.size() == expected.size(), "{} '# Samples:' sections, {} hists with samples", sums.size(),
                   expected.size()))
    return false;
  for (size_t i = 0; i < sums.size(); ++i)
    if (!inv->Expect(sums[i] == expected[i], "section {}: the entries' samples add up to {}, the hists have {}", i,
                     sums[i], expected[i]))
      return false;
  return true;
}

// A row's "callchain" (PrintReportJson): nodes whose periods and samples are unsigned
// numbers and percentages finite, with frames that have a name and dso; graph children
// have at most their parent's samples between them (periods are not compared: sums of
// fuzzed periods wrap). Flat/folded chains are checked alike, each within the row.
inline bool CheckJsonCallchain(const nlohmann::json& nodes, uint64_t parent_samples, Invariants* inv) {
  using nlohmann::json;
  if (!inv->Expect(nodes.is_array(), "JSON callchain is not an array")) return false;
  uint64_t samples = 0;
  bool graph = false;
  for (const json& n : nodes) {
    const bool valid = n.is_object() && n.contains("period") && n["period"].is_number_unsigned() &&
                       n.contains("samples") && n["samples"].is_number_unsigned() && n.contains("percent") &&
                       n["percent"].is_number() && std::isfinite(n["percent"].get<double>()) && n.contains("frames") &&
                       n["frames"].is_array();
    if (!inv->Expect(valid, "JSON callchain node lacks period/samples/percent/frames: {}",
                     n.dump(-1, ' ', false, json::error_handler_t::replace).substr(0, 300)))
      return false;
    for (const json& f : n["frames"])
      if (!inv->Expect(f.is_object() && f.contains("name") && f["name"].is_string() && f.contains("dso") &&
                           f["dso"].is_string(),
                       "JSON callchain frame lacks name/dso"))
        return false;
    const uint64_t s = n["samples"].get<uint64_t>();
    if (!inv->Expect(s <= parent_samples, "JSON callchain node has {} samples, its parent {}", s, parent_samples))
      return false;
    samples += s;
    if (n.contains("children")) {
      graph = true;
      if (!CheckJsonCallchain(n["children"], s, inv)) return false;
    }
  }
  return inv->Expect(!graph || samples <= parent_samples, "JSON callchain siblings have {} samples, the parent {}",
                     samples, parent_samples);
}

// PrintReportJson output: parses (nlohmann::json::parse rejects invalid UTF-8 too), one
// section per hists with samples, each section's rows add up to its samples and event
// count, every percentage a finite number; rows' "callchain" pass CheckJsonCallchain.
inline bool CheckReportJson(std::string_view text, bool children, const std::vector<uint64_t>& expected,
                            Invariants* inv) {
  using nlohmann::json;
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!inv->Expect(!doc.is_discarded(), "JSON output does not parse: {:?}", std::string(text.substr(0, 200))))
    return false;
  if (!inv->Expect(doc.is_object() && doc.contains("events") && doc["events"].is_array() &&
                       doc.contains("warnings") && doc["warnings"].is_array(),
                   "JSON output lacks events/warnings arrays"))
    return false;
  const json& events = doc["events"];
  if (!inv->Expect(events.size() == expected.size(), "JSON has {} events, {} hists with samples", events.size(),
                   expected.size()))
    return false;
  for (size_t i = 0; i < events.size(); ++i) {
    const json& ev = events[i];
    if (!inv->Expect(ev.is_object() && ev.contains("samples") && ev["samples"].is_number_unsigned() &&
                         ev.contains("event_count") && ev["event_count"].is_number_unsigned() && ev.contains("rows") &&
                         ev["rows"].is_array() && ev.contains("event") && ev["event"].is_string(),
                     "JSON event {} lacks samples/event_count/rows/event", i))
      return false;
    uint64_t samples = 0, period = 0;
    for (const json& row : ev["rows"]) {
      if (!inv->Expect(row.is_object() && row.contains("samples") && row["samples"].is_number_unsigned() &&
                           row.contains("period") && row["period"].is_number_unsigned(),
                       "JSON row without samples/period: {}", row.dump(-1, ' ', false, json::error_handler_t::replace)))
        return false;
      samples += row["samples"].get<uint64_t>();
      period += row["period"].get<uint64_t>();  // wraps as the hists' sums do
      if (row.contains("callchain")) {
        // The graph's root holds the row's samples; with Children the accumulated
        // ones, which the JSON does not give.
        if (!CheckJsonCallchain(row["callchain"], children ? UINT64_MAX : row["samples"].get<uint64_t>(), inv))
          return false;
      }
      for (const char* pct : {"overhead", "children"}) {
        if (std::string_view(pct) == "children" && !children) continue;
        if (!inv->Expect(row.contains(pct) && row[pct].is_number() && std::isfinite(row[pct].get<double>()),
                         "JSON row's {} is not a finite number: {}", pct,
                         row.dump(-1, ' ', false, json::error_handler_t::replace)))
          return false;
      }
    }
    if (!inv->Expect(samples == ev["samples"].get<uint64_t>() && samples == expected[i],
                     "JSON event {}: rows add up to {} samples, the event says {}, the hists {}", i, samples,
                     ev["samples"].get<uint64_t>(), expected[i]) ||
        !inv->Expect(period == ev["event_count"].get<uint64_t>(),
                     "JSON event {}: rows add up to period {}, event_count {}", i, period,
                     ev["event_count"].get<uint64_t>()))
      return false;
  }
  return true;
}

// `perf script -F folded` output: "stack weight" lines sorted by stack (each once),
// `nr_stacks` of them, the weights adding up to `total_weight`.
inline bool CheckFolded(std::string_view text, size_t nr_stacks, uint64_t total_weight, Invariants* inv) {
  if (!CheckNoControlBytes("script -F folded", text, false, inv)) return false;
  std::vector<std::string_view> lines = Lines(text);
  if (!inv->Expect(lines.size() == nr_stacks, "{} folded lines for {} stacks", lines.size(), nr_stacks)) return false;
  uint64_t sum = 0;
  std::string_view prev;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view l = lines[i];
    size_t sp = l.rfind(' ');
    uint64_t w = 0;
    if (!inv->Expect(sp != std::string_view::npos && sp > 0 && ParseU64(l.substr(sp + 1), &w),
                     "folded line without a weight: {:?}", std::string(l)))
      return false;
    std::string_view stack = l.substr(0, sp);
    if (!inv->Expect(i == 0 || prev < stack, "folded stacks not sorted or repeated: {:?} then {:?}",
                     std::string(prev), std::string(stack)))
      return false;
    prev = stack;
    sum += w;
  }
  return inv->Expect(sum == total_weight, "folded weights add up to {}, expected {}", sum, total_weight);
}

// `perflens dump` text: every line is a record line ("<time> 0x<offset> [0x<size>]:
// PERF_RECORD_<TYPE>..."), a callchain line of the sample above ("... FP chain: nr:N",
// ".....  i: <hex>"), or "# stopped: ..." / "# warning: ..."; counts the record lines.
class DumpTextChecker {
 public:
  explicit DumpTextChecker(Invariants* inv) : inv_(inv) {}
  void Feed(std::string_view text) {
    if (!inv_->ok()) return;
    if (!CheckNoControlBytes("dump", text, false, inv_)) return;
    if (!inv_->Expect(text.empty() || text.back() == '\n', "dump chunk does not end a line")) return;
    for (std::string_view l : Lines(text)) {
      if (l.rfind("# stopped: ", 0) == 0 || l.rfind("# warning: ", 0) == 0) {
        trailer_ = true;
        continue;
      }
      if (!inv_->Expect(!trailer_, "dump line after the trailer: {:?}", std::string(l))) return;
      if (l.rfind("... FP chain: nr:", 0) == 0 || l.rfind(".....  ", 0) == 0) {
        if (!inv_->Expect(records_ > 0, "callchain line before any record: {:?}", std::string(l))) return;
        continue;
      }
      size_t sp = l.find(' ');
      bool record = sp != std::string_view::npos && AllDigits(l.substr(0, sp)) && l.compare(sp, 3, " 0x") == 0 &&
                    l.find("]: PERF_RECORD_") != std::string_view::npos;
      if (!inv_->Expect(record, "dump line is not a record line: {:?}", std::string(l))) return;
      ++records_;
    }
  }
  uint64_t records() const { return records_; }

 private:
  Invariants* inv_;
  uint64_t records_ = 0;
  bool trailer_ = false;
};

}  // namespace perflens::fuzz
