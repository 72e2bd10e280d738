// The `export` fuzz target (perflens export on an untrusted perf.data), kept apart from
// fuzz_entries.h because it needs pprof's generated profile.pb.h and libdeflate.
#pragma once

#include <libdeflate.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "export/export.h"
#include "export/pprof.h"
#include "fuzz/fuzz_entries.h"
#include "fuzz/fuzz_invariants.h"
#include "profile.pb.h"

namespace perflens::fuzz {

// A gzip member's bytes, inflated (its ISIZE trailer gives the size; the exporter wrote
// one member). False when it does not inflate to that size.
inline bool Gunzip(const std::string& gz, std::string* raw) {
  if (gz.size() < 18) return false;
  const auto* t = reinterpret_cast<const uint8_t*>(gz.data() + gz.size() - 4);
  const size_t isize = t[0] | (t[1] << 8) | (t[2] << 16) | (static_cast<size_t>(t[3]) << 24);
  raw->assign(isize, '\0');
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  size_t n = 0;
  const libdeflate_result r = libdeflate_gzip_decompress(d, gz.data(), gz.size(), raw->data(), raw->size(), &n);
  libdeflate_free_decompressor(d);
  return r == LIBDEFLATE_SUCCESS && n == isize;
}

// The profile read back as pprof reads it: two sample types per evsel; every sample's
// values, one per type, adding up per evsel to the samples and periods the consumer took
// (sums wrap alike); every id a sample, location or line names exists; every string
// index is inside the string table, whose entry 0 is "".
inline void CheckPprof(const std::string& gz, const PprofConsumer& c, size_t nr_evsels, Invariants* inv) {
  std::string raw;
  if (!inv->Expect(Gunzip(gz, &raw), "pprof export: {} bytes that do not gunzip", gz.size())) return;
  perftools::profiles::Profile p;
  if (!inv->Expect(p.ParseFromString(raw), "pprof export: {} bytes pprof cannot parse", raw.size())) return;
  const int64_t nr_strings = p.string_table_size();
  if (!inv->Expect(nr_strings > 0 && p.string_table(0).empty(), "pprof string table without \"\" first")) return;
  auto str_ok = [&](int64_t i) { return i >= 0 && i < nr_strings; };
  if (!inv->Expect(static_cast<size_t>(p.sample_type_size()) == 2 * nr_evsels, "{} sample types for {} evsels",
                   p.sample_type_size(), nr_evsels))
    return;
  for (const auto& vt : p.sample_type())
    if (!inv->Expect(str_ok(vt.type()) && str_ok(vt.unit()), "sample type string out of range")) return;
  std::vector<uint64_t> sums(2 * nr_evsels, 0);
  const uint64_t nr_locations = static_cast<uint64_t>(p.location_size());
  for (const auto& s : p.sample()) {
    if (!inv->Expect(static_cast<size_t>(s.value_size()) == sums.size(), "sample with {} values, {} types",
                     s.value_size(), sums.size()))
      return;
    for (int i = 0; i < s.value_size(); ++i) sums[i] += static_cast<uint64_t>(s.value(i));
    for (uint64_t id : s.location_id())
      if (!inv->Expect(id >= 1 && id <= nr_locations, "sample names location {} of {}", id, nr_locations)) return;
    for (const auto& l : s.label())
      if (!inv->Expect(str_ok(l.key()) && str_ok(l.str()), "label string out of range")) return;
  }
  const uint64_t nr_mappings = static_cast<uint64_t>(p.mapping_size());
  const uint64_t nr_functions = static_cast<uint64_t>(p.function_size());
  for (const auto& loc : p.location()) {
    if (!inv->Expect(loc.mapping_id() <= nr_mappings, "location names mapping {} of {}", loc.mapping_id(), nr_mappings))
      return;
    for (const auto& line : loc.line())
      if (!inv->Expect(line.function_id() >= 1 && line.function_id() <= nr_functions, "line names function {} of {}",
                       line.function_id(), nr_functions))
        return;
  }
  for (const auto& f : p.function())
    if (!inv->Expect(str_ok(f.name()) && str_ok(f.system_name()) && str_ok(f.filename()), "function string out of range"))
      return;
  for (const auto& m : p.mapping())
    if (!inv->Expect(str_ok(m.filename()) && str_ok(m.build_id()), "mapping string out of range")) return;
  for (size_t e = 0; e < nr_evsels; ++e) {
    const uint64_t samples = e < c.total_samples().size() ? c.total_samples()[e] : 0;
    const uint64_t period = e < c.total_period().size() ? c.total_period()[e] : 0;
    if (!inv->Expect(sums[2 * e] == samples && sums[2 * e + 1] == period,
                     "evsel {}: profile values {} samples / {} period, the consumer took {} / {}", e, sums[2 * e],
                     sums[2 * e + 1], samples, period))
      return;
  }
}

// The speedscope document read back: it parses as JSON (strict UTF-8), every sample's
// frame indexes are in the frame table, each profile's weights add up to its endValue
// and all of them to what the consumer took (sums wrap alike).
inline void CheckSpeedscopeDoc(const std::string& text, uint64_t total_weight, Invariants* inv) {
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (!inv->Expect(!doc.is_discarded() && doc.is_object(), "speedscope export: not JSON")) return;
  if (!inv->Expect(doc.contains("shared") && doc["shared"].contains("frames") && doc.contains("profiles") &&
                       doc["shared"]["frames"].is_array() && doc["profiles"].is_array(),
                   "speedscope export without shared.frames or profiles"))
    return;
  const size_t nr_frames = doc["shared"]["frames"].size();
  for (const auto& f : doc["shared"]["frames"])
    if (!inv->Expect(f.contains("name") && f["name"].is_string(), "speedscope frame without a name")) return;
  uint64_t total = 0;
  for (const auto& p : doc["profiles"]) {
    const auto& samples = p["samples"];
    const auto& weights = p["weights"];
    if (!inv->Expect(samples.is_array() && weights.is_array() && samples.size() == weights.size(),
                     "speedscope profile: samples and weights differ in length"))
      return;
    uint64_t sum = 0;
    for (size_t i = 0; i < samples.size(); ++i) {
      if (!inv->Expect(samples[i].is_array() && !samples[i].empty() && weights[i].is_number_unsigned(),
                       "speedscope sample {}: no stack or weight", i))
        return;
      for (const auto& f : samples[i])
        if (!inv->Expect(f.is_number_unsigned() && f.get<uint64_t>() < nr_frames, "speedscope frame index out of range"))
          return;
      sum += weights[i].get<uint64_t>();
    }
    if (!inv->Expect(p["endValue"].is_number_unsigned() && p["endValue"].get<uint64_t>() == sum,
                     "speedscope endValue is not the sum of the weights {}", sum))
      return;
    total += sum;
  }
  inv->Expect(total == total_weight, "speedscope weights {}, the consumer took {}", total, total_weight);
}

// The Firefox Profiler profile read back: it parses as JSON, every thread table's
// columns have `length` entries, every index is in range (stack prefix below its own
// index), sample times do not go back, and the samples are those the consumer took.
inline void CheckFirefoxDoc(const std::string& text, uint64_t nr_samples, Invariants* inv) {
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (!inv->Expect(!doc.is_discarded() && doc.is_object() && doc.contains("threads") && doc["threads"].is_array(),
                   "firefox export: not JSON with threads"))
    return;
  uint64_t total = 0;
  for (const auto& t : doc["threads"]) {
    for (const char* table : {"samples", "stackTable", "frameTable", "funcTable", "resourceTable", "markers"}) {
      if (!inv->Expect(t.contains(table) && t[table].contains("length"), "firefox thread without {}", table)) return;
      const size_t n = t[table]["length"].get<size_t>();
      for (const auto& [column, values] : t[table].items())
        if (values.is_array() && !inv->Expect(values.size() == n, "firefox {}.{}: {} entries, length {}", table, column,
                                               values.size(), n))
          return;
    }
    const size_t nr_strings = t["stringArray"].size(), nr_stacks = t["stackTable"]["length"].get<size_t>(),
                 nr_frames = t["frameTable"]["length"].get<size_t>(), nr_funcs = t["funcTable"]["length"].get<size_t>();
    for (size_t i = 0; i < nr_stacks; ++i) {
      const auto& prefix = t["stackTable"]["prefix"][i];
      if (!inv->Expect(prefix.is_null() || prefix.get<size_t>() < i, "firefox stack {}: prefix not below it", i) ||
          !inv->Expect(t["stackTable"]["frame"][i].get<size_t>() < nr_frames, "firefox stack {}: frame out of range", i))
        return;
    }
    for (size_t i = 0; i < nr_frames; ++i)
      if (!inv->Expect(t["frameTable"]["func"][i].get<size_t>() < nr_funcs, "firefox frame {}: func out of range", i))
        return;
    for (size_t i = 0; i < nr_funcs; ++i)
      if (!inv->Expect(t["funcTable"]["name"][i].get<size_t>() < nr_strings, "firefox func {}: name out of range", i))
        return;
    const auto& samples = t["samples"];
    double last = 0;
    for (size_t i = 0; i < samples["length"].get<size_t>(); ++i) {
      const auto& stack = samples["stack"][i];
      const double time = samples["time"][i].get<double>();
      if (!inv->Expect(stack.is_number_unsigned() && stack.get<size_t>() < nr_stacks, "firefox sample {}: bad stack", i) ||
          !inv->Expect(i == 0 || time >= last, "firefox sample {}: time {} before {}", i, time, last))
        return;
      last = time;
      total += samples["weight"].is_null() ? 1 : samples["weight"][i].get<uint64_t>();
    }
  }
  inv->Expect(total == nr_samples, "firefox samples {}, the consumer took {}", total, nr_samples);
}

// The HTML page (export/html.h): one data element whose JSON (gunzipped) has no '<',
// '>' or '&' and parses; every stack's parent comes before it, every frame, name, thread, event and
// leaf stack index is in range, and the leaf counts add up per event to the totals,
// which add up to the samples the consumer took.
inline void CheckHtmlDoc(const std::string& page, const HtmlConsumer& c, size_t nr_evsels, Invariants* inv) {
  // The element holds base64 of gzip (export/html.h); ReadHtmlReportData undoes both.
  const Result<std::string> json = ReadHtmlReportData(page);
  if (!inv->Expect(json.ok(), "html export: {}", json.ok() ? "" : json.error().message)) return;
  const std::string_view data = *json;
  if (!inv->Expect(data.find_first_of("<>&") == std::string_view::npos, "html export: '<', '>' or '&' in the data"))
    return;
  const nlohmann::json j = nlohmann::json::parse(data, nullptr, false);
  if (!inv->Expect(!j.is_discarded() && j.is_object(), "html export: data is not a JSON object")) return;
  const auto& names = j["names"];
  const auto& frames = j["frames"];
  if (!inv->Expect(j["stacks"].is_string(), "html export: stacks is not a string")) return;
  // The stack string: base-32 numbers, a digit's index in kStackDigits holding 32 when
  // more follow (export/html.h).
  std::vector<uint64_t> stacks;
  {
    const std::string text = j["stacks"].get<std::string>();
    uint64_t v = 0;
    int shift = 0;
    for (char ch : text) {
      const char* at = std::strchr(kStackDigits, ch);
      if (!inv->Expect(ch != '\0' && at, "html export: {:?} in the stack string", ch)) return;
      const uint64_t d = static_cast<uint64_t>(at - kStackDigits);
      if (!inv->Expect(shift < 64, "html export: a stack number over 64 bits")) return;
      v |= (d & 31) << shift;
      shift += 5;
      if (d < 32) {
        stacks.push_back(v);
        v = 0;
        shift = 0;
      }
    }
    if (!inv->Expect(shift == 0, "html export: the stack string ends inside a number")) return;
  }
  const auto& threads = j["threads"];
  const auto& totals = j["totals"];
  if (!inv->Expect(frames.size() % 3 == 0 && stacks.size() % 2 == 0 && threads.size() % 3 == 0 &&
                       totals.size() == nr_evsels && j["events"].size() == nr_evsels,
                   "html export: table sizes"))
    return;
  for (size_t i = 0; i < frames.size(); i += 3)
    if (!inv->Expect(frames[i].get<uint64_t>() < names.size() && frames[i + 1].get<uint64_t>() < names.size(),
                     "html export: frame {} names a string out of range", i / 3))
      return;
  const uint64_t nr_stacks = stacks.size() / 2;
  // Preorder: a stack's first number is how many levels it is above the previous
  // stack's child (0: its child); it never climbs above a root.
  uint64_t depth_plus_1 = 0;  // of the previous stack; 0 before the first
  for (uint64_t i = 0; i < nr_stacks; ++i) {
    if (!inv->Expect(stacks[2 * i] <= depth_plus_1 && stacks[2 * i + 1] < frames.size() / 3,
                     "html export: stack {} out of range", i))
      return;
    depth_plus_1 = depth_plus_1 + 1 - stacks[2 * i];
  }
  std::vector<uint64_t> sums(nr_evsels, 0);
  for (const auto& series : j["counts"]) {
    const uint64_t thread = series[0].get<uint64_t>(), event = series[1].get<uint64_t>();
    if (!inv->Expect(thread < threads.size() / 3 && event < nr_evsels, "html export: series out of range")) return;
    uint64_t stack = 0;
    const auto& pairs = series[2];
    for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
      stack += pairs[i].get<uint64_t>();
      if (!inv->Expect(stack < nr_stacks && (i == 0 || pairs[i].get<uint64_t>() > 0), "html export: leaf stack {}", stack))
        return;
      sums[event] += pairs[i + 1].get<uint64_t>();
    }
  }
  uint64_t total = 0;
  for (size_t e = 0; e < nr_evsels; ++e) {
    total += totals[e].get<uint64_t>();
    if (!inv->Expect(sums[e] == totals[e].get<uint64_t>(), "html export: event {} counts {} != total {}", e, sums[e],
                     totals[e].get<uint64_t>()))
      return;
  }
  inv->Expect(total == c.total_samples(), "html export: totals {} != samples taken {}", total, c.total_samples());
}

// The checks above with a value of the wrong type (nlohmann's type_error) as a failure.
inline void CheckSpeedscope(const std::string& text, uint64_t total_weight, Invariants* inv) {
  try {
    CheckSpeedscopeDoc(text, total_weight, inv);
  } catch (const nlohmann::json::exception& e) {
    inv->Expect(false, "speedscope export: {}", e.what());
  }
}
inline void CheckFirefox(const std::string& text, uint64_t nr_samples, Invariants* inv) {
  try {
    CheckFirefoxDoc(text, nr_samples, inv);
  } catch (const nlohmann::json::exception& e) {
    inv->Expect(false, "firefox export: {}", e.what());
  }
}

inline void CheckHtml(const std::string& page, const HtmlConsumer& c, size_t nr_evsels, Invariants* inv) {
  try {
    CheckHtmlDoc(page, c, nr_evsels, inv);
  } catch (const nlohmann::json::exception& e) {
    inv->Expect(false, "html export: {}", e.what());
  }
}

// perflens export of the input: pprof (read back and checked, CheckPprof), or folded
// stacks for odd sizes (no control bytes); with size bit 2 also a JSON export, parsed
// back: speedscope (CheckSpeedscope) without bit 3, Firefox (CheckFirefox) with it;
// for sizes 3 mod 4 also the HTML page (CheckHtml).
inline int FuzzExport(const uint8_t* data, size_t size) {
  Invariants inv;
  auto run = [&](ExportFormat format) {
    auto f = FuzzOpen(data, size);
    if (!f) return;
    ExportOptions o;
    o.symbolize = FuzzReportOptions().symbolize;
    o.format = format;
    o.inline_frames = (size & 2) == 0;
    auto ex = Export::Create(f.get(), o);
    if (!ex.ok() || !(*ex)->Process().ok()) return;
    auto out = (*ex)->Output();
    if (!out.ok()) return;
    if (format == ExportFormat::kFolded) {
      CheckNoControlBytes("export --format folded", *out, false, &inv);
    } else if (const PprofConsumer* c = (*ex)->pprof()) {
      CheckPprof(*out, *c, f->evsels().size(), &inv);
    } else if (const SpeedscopeConsumer* c = (*ex)->speedscope()) {
      CheckSpeedscope(*out, c->total_weight(), &inv);
    } else if (const FirefoxConsumer* c = (*ex)->firefox()) {
      CheckFirefox(*out, c->nr_samples(), &inv);
    } else if (const HtmlConsumer* c = (*ex)->html()) {
      CheckHtml(*out, *c, f->evsels().size(), &inv);
    }
  };
  run((size & 1) ? ExportFormat::kFolded : ExportFormat::kPprof);
  if (size & 4) run((size & 8) ? ExportFormat::kFirefox : ExportFormat::kSpeedscope);
  if ((size & 3) == 3) run(ExportFormat::kHtml);
  return inv.Finish();
}

}  // namespace perflens::fuzz
