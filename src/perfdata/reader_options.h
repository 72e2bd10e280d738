// ReaderOptions (what PerfFile::ReadRecords may spend and how it orders) and
// ReadStats (what it read, skipped and warned about), shared by the reader's parts:
// framing, decompression and ordering all count into one ReadStats.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"

namespace perflens {

// At most this many warnings are kept in ReadStats::warnings.
constexpr size_t kMaxReadWarnings = 8;

struct ReaderOptions {
  // Deliver records < 64 in time order using the FINISHED_ROUND rules (spec A13).
  bool ordered = true;
  // Cap on bytes produced by COMPRESSED records (bounds the time a zstd bomb costs; the
  // memory is bounded by max_queued_bytes). 0: max(256 MiB, 100 × the compressed bytes
  // read so far), from bytes really read, never from a (sparse) file's apparent size.
  uint64_t max_decompressed_bytes = 0;
  // Bytes the ordering queue may pin (its entries and the owned chunks they point
  // into) before it is flushed early, as perf's ordered_events does when it reaches
  // its allocation limit. Only a stream without FINISHED_ROUND records for that long,
  // or a decompression bomb, gets there; delivery then goes on in arrival order for the
  // records still pending, and one warning says so.
  uint64_t max_queued_bytes = 256ULL << 20;
  // Read a file owned by someone other than the current user or root (perf's -f). Off:
  // Open refuses it, as perf does, since such a file can name paths for perflens to
  // open and was written by another user.
  bool force = false;
};

struct ReadStats {
  uint64_t nr_records[128] = {};  // by type; types >= 128 are counted in nr_unknown_type
  uint64_t nr_unknown_type = 0;
  // Records of a type this reader does not know (RecordTypeName "UNKNOWN": 0, gaps,
  // types past perf's), skipped; the first one's type and position in perf.data.
  uint64_t nr_unknown_records = 0;
  uint32_t first_unknown_type = 0;
  uint64_t first_unknown_offset = 0;
  uint64_t nr_records_total = 0;
  uint64_t nr_unordered = 0;      // records older than the last flush bound
  uint64_t compressed_bytes = 0;  // zstd payload bytes
  uint64_t decompressed_bytes = 0;
  uint64_t nr_bad_records = 0;    // records skipped because they were malformed
  std::vector<std::string> warnings;  // at most a few, each naming offset and type
  // Set when reading stopped before the end (truncation, bad header.size, ...). What was
  // read before it has been delivered.
  std::optional<Error> stopped;
};

// Appends `msg` to st->warnings unless kMaxReadWarnings are already there.
inline void AddReadWarning(ReadStats* st, std::string msg) {
  if (st->warnings.size() < kMaxReadWarnings) st->warnings.push_back(std::move(msg));
}

}  // namespace perflens
