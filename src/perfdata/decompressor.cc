#include "perfdata/decompressor.h"

namespace perflens {

void Decompressor::Fail(const RecordView& r, ReadStats* stats, const std::string& what) {
  failed_ = true;
  pending_.clear();
  ++stats->nr_bad_records;
  AddReadWarning(stats, fmt::format("{} at offset {:#x}: {}; compressed data after it ignored",
                                    RecordTypeLabel(r.type), r.perf_data_offset, what));
}

std::string Decompressor::CapMessage(uint64_t cap, const ReadStats& stats) const {
  return fmt::format("decompressed data exceeds the {}-byte cap ({} compressed bytes read){}", cap,
                     stats.compressed_bytes,
                     cap_fixed_ ? "" : fmt::format("; the cap is {}x the compressed bytes, at least {} MiB", kCapRatio,
                                                   kCapFloor >> 20));
}

}  // namespace perflens
