// Decompressor: the records inside PERF_RECORD_COMPRESSED (81) and COMPRESSED2 (83),
// one zstd stream across all of them, as perf record writes it. Source:
// tools/perf/util/session.c (perf_session__process_compressed_event; COMPRESSED2 adds
// a u64 data_size before the payload), tools/perf/util/zstd.c; spec A12.
//
// A payload (at most 64 KiB) can expand to gigabytes, so it is decompressed a 1 MiB
// output window at a time; the whole records of each window go into a ChunkPool chunk
// and are handed to `emit` at once, and a record cut at the window's end is carried
// into the next one. Decompressed views carry the COMPRESSED record's
// perf_data_offset, compressed = true and their chunk id (valid while `emit` runs, or
// while the ordering queue holds the chunk). One per ReadRecords call; not
// thread-safe.
#pragma once

#include <zstd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "base/byte_order.h"
#include "perfdata/chunk_pool.h"
#include "perfdata/reader_options.h"
#include "perfdata/record.h"
#include "perfdata/record_cursor.h"

namespace perflens {

class Decompressor {
 public:
  // Output window of one decompression step.
  static constexpr size_t kWindow = 1 << 20;
  // Floor and ratio of the default cap (ReaderOptions::max_decompressed_bytes == 0).
  static constexpr uint64_t kCapFloor = 256ULL << 20;
  static constexpr uint64_t kCapRatio = 100;

  // `max_decompressed_bytes`: ReaderOptions' cap (0: max(kCapFloor, kCapRatio × the
  // compressed bytes read so far)).
  Decompressor(const Loader& ld, uint64_t max_decompressed_bytes) : ld_(ld), cap_fixed_(max_decompressed_bytes) {}
  ~Decompressor() {
    if (ds_) ZSTD_freeDStream(ds_);
  }
  Decompressor(const Decompressor&) = delete;
  Decompressor& operator=(const Decompressor&) = delete;

  // Decompresses `r` (a COMPRESSED or COMPRESSED2 record) and calls emit(view) for each
  // record in it, in order, with chunks from `pool`. Problems are counted in
  // stats->nr_bad_records with a warning naming r's offset: a COMPRESSED2 too short or
  // whose data_size exceeds it (r skipped); a nested COMPRESSED (skipped); a zstd
  // error, a record of size < 8 or the cap exceeded (this and every later compressed
  // record ignored). Bytes are counted in stats->compressed_bytes/decompressed_bytes.
  template <typename Emit>
  void Decompress(const RecordView& r, ChunkPool* pool, ReadStats* stats, Emit&& emit);

 private:
  // Marks the stream failed and warns with `what`.
  void Fail(const RecordView& r, ReadStats* stats, const std::string& what);
  std::string CapMessage(uint64_t cap, const ReadStats& stats) const;

  Loader ld_;
  uint64_t cap_fixed_;
  ZSTD_DStream* ds_ = nullptr;
  std::vector<uint8_t> pending_;  // decompressed bytes after the last whole record
  bool failed_ = false;
};

template <typename Emit>
void Decompressor::Decompress(const RecordView& r, ChunkPool* pool, ReadStats* stats, Emit&& emit) {
  if (failed_) return;
  const uint8_t* payload;
  size_t n;
  if (r.type == kRecordCompressed) {
    payload = r.data + 8;
    n = r.size - 8u;
  } else {
    if (r.size < 16) {
      ++stats->nr_bad_records;
      AddReadWarning(stats, fmt::format("{} at offset {:#x}: record too short ({} bytes)", RecordTypeLabel(r.type),
                                        r.perf_data_offset, r.size));
      return;
    }
    uint64_t data_size = ld_.U64(r.data + 8);
    if (data_size > r.size - 16u) {
      ++stats->nr_bad_records;
      AddReadWarning(stats, fmt::format("{} at offset {:#x}: data_size {} exceeds the record size {}",
                                        RecordTypeLabel(r.type), r.perf_data_offset, data_size, r.size));
      return;
    }
    payload = r.data + 16;
    n = data_size;
  }
  stats->compressed_bytes += n;
  const uint64_t cap = cap_fixed_ ? cap_fixed_ : std::max(kCapFloor, kCapRatio * stats->compressed_bytes);
  if (!ds_) {
    ds_ = ZSTD_createDStream();
    ZSTD_initDStream(ds_);
  }
  ZSTD_inBuffer ib{payload, n, 0};
  for (;;) {
    const size_t carried = pending_.size();
    const size_t capacity = carried + kWindow;
    auto window = std::make_unique_for_overwrite<uint8_t[]>(capacity);
    if (carried) std::memcpy(window.get(), pending_.data(), carried);
    ZSTD_outBuffer ob{window.get(), capacity, carried};
    const size_t in_before = ib.pos;
    size_t rc = ZSTD_decompressStream(ds_, &ob, &ib);
    if (ZSTD_isError(rc)) return Fail(r, stats, fmt::format("zstd: {}", ZSTD_getErrorName(rc)));
    stats->decompressed_bytes += ob.pos - carried;
    if (stats->decompressed_bytes > cap) return Fail(r, stats, CapMessage(cap, *stats));
    // The whole records at the front of the window; the tail is carried over.
    size_t pos = 0;
    while (pos + 8 <= ob.pos) {
      uint16_t sz = ld_.U16(window.get() + pos + 6);
      if (sz < 8)
        return Fail(r, stats, fmt::format("record of size {} at byte {} of its decompressed data", sz,
                                          stats->decompressed_bytes - (ob.pos - pos)));
      if (pos + sz > ob.pos) break;
      pos += sz;
    }
    pending_.assign(window.get() + pos, window.get() + ob.pos);
    if (pos) {
      const uint32_t id = pool->Add(std::move(window), capacity);
      const uint8_t* chunk = pool->data(id);
      size_t q = 0;
      while (q < pos) {
        RecordView in = ViewAt(ld_, chunk + q, r.perf_data_offset);
        in.compressed = true;
        in.chunk = id;
        q += in.size;
        if (in.type == kRecordCompressed || in.type == kRecordCompressed2) {
          ++stats->nr_bad_records;
          AddReadWarning(stats, fmt::format("nested {} inside the compressed record at offset {:#x}; skipped",
                                            RecordTypeLabel(in.type), r.perf_data_offset));
          continue;
        }
        emit(in);
      }
      pool->Seal(id);
    }
    const bool progress = ob.pos > carried || ib.pos > in_before;
    if ((ib.pos == ib.size && ob.pos < ob.size) || !progress) break;
  }
}

}  // namespace perflens
