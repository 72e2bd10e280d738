// The `export` fuzz target (perflens export on an untrusted perf.data), kept apart from
// fuzz_entries.h because it needs pprof's generated profile.pb.h and libdeflate.
#pragma once

#include <libdeflate.h>

#include <cstdint>
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

// perflens export of the input: pprof (read back and checked, CheckPprof), or folded
// stacks for odd sizes (sorted unique lines whose weights add up to the samples).
inline int FuzzExport(const uint8_t* data, size_t size) {
  Invariants inv;
  auto f = FuzzOpen(data, size);
  if (!f) return 0;
  ExportOptions o;
  o.symbolize = FuzzReportOptions().symbolize;
  o.format = (size & 1) ? ExportFormat::kFolded : ExportFormat::kPprof;
  o.inline_frames = (size & 2) == 0;
  auto ex = Export::Create(f.get(), o);
  if (!ex.ok() || !(*ex)->Process().ok()) return 0;
  auto out = (*ex)->Output();
  if (!out.ok()) return 0;
  if (o.format == ExportFormat::kFolded) {
    CheckNoControlBytes("export --format folded", *out, false, &inv);
  } else if (const PprofConsumer* c = (*ex)->pprof()) {
    CheckPprof(*out, *c, f->evsels().size(), &inv);
  }
  return inv.Finish();
}

}  // namespace perflens::fuzz
