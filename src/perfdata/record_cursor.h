// Record framing: the 8-byte perf_event_header at the front of every record, the
// payload some records carry outside header.size, and RecordCursor, which frames the
// records of one byte range (the data section of a mapped file, or the pre-scan of a
// pipe-format file). Source: include/uapi/linux/perf_event.h (struct
// perf_event_header), tools/perf/util/session.c (reader__read_event,
// perf_session__process_user_event: AUXTRACE and pipe TRACING_DATA skip their
// payload); spec A3. Offsets are positions in perf.data (RecordView::perf_data_offset).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>

#include "base/byte_order.h"
#include "base/result.h"
#include "perfdata/perf_event.h"
#include "perfdata/record.h"

namespace perflens {

// The record whose 8-byte header is at `p`, found at perf.data offset
// `perf_data_offset`. Reads the header only: the caller checks that `size` bytes are
// there.
inline RecordView ViewAt(const Loader& ld, const uint8_t* p, uint64_t perf_data_offset) {
  RecordView r;
  r.type = ld.U32(p);
  r.misc = ld.U16(p + 4);
  r.size = ld.U16(p + 6);
  r.data = p;
  r.perf_data_offset = perf_data_offset;
  return r;
}

// Payload bytes that follow `r` outside header.size: AUXTRACE data (its u64 size at
// byte 8), and in pipe mode the tracing data of HEADER_TRACING_DATA (u32 size at 8).
inline uint64_t TrailingBytes(const Loader& ld, const RecordView& r, bool pipe_mode) {
  if (r.type == kRecordAuxtrace && r.size >= 16) return ld.U64(r.data + 8);
  if (r.type == kRecordHeaderTracingData && pipe_mode && r.size >= 12) return ld.U32(r.data + 8);
  return 0;
}

// "SAMPLE (type 9)", as framing and decompression messages name a record.
std::string RecordTypeLabel(uint32_t type);

// Frames the records in bytes [pos, end) of `bytes` (byte i at perf.data offset i),
// one at a time, skipping trailing payloads. The views point into `bytes`.
class RecordCursor {
 public:
  RecordCursor(const Loader& ld, const uint8_t* bytes, uint64_t pos, uint64_t end, bool pipe_mode)
      : ld_(ld), bytes_(bytes), begin_(pos), pos_(pos), end_(end), pipe_mode_(pipe_mode) {}

  // Frames the next record into *r: true when there is one. False at the end of the
  // range, or when the bytes there are no whole record; error() then says why (a
  // header cut off, header.size < 8, a record past the end), naming offset and type.
  // A record whose trailing payload runs past the end is returned with error() set,
  // and is the last.
  bool Next(RecordView* r) {
    if (pos_ >= end_ || error_) return false;
    if (end_ - pos_ < 8) return Stop(nullptr, 0);
    *r = ViewAt(ld_, bytes_ + pos_, pos_);
    if (r->size < 8 || r->size > end_ - pos_) return Stop(r, 0);
    const uint64_t extra = TrailingBytes(ld_, *r, pipe_mode_);
    if (extra > end_ - pos_ - r->size) {
      Stop(r, extra);
      return true;
    }
    pos_ += r->size + extra;
    // Every cache line up to kPrefetchAhead bytes on is fetched before its header is
    // read: record sizes vary, so where the next headers are is not known sooner, and
    // the hardware prefetcher stops at each page. Large records (deep callchains) made
    // reading each header a wait on memory.
    // Lines behind pos_ (a large record, a skipped AUX payload) are never read.
    prefetched_ = std::max(prefetched_, pos_ & ~uint64_t{63});
    const uint64_t ahead = std::min(end_, pos_ + kPrefetchAhead);
    for (; prefetched_ < ahead; prefetched_ += 64) __builtin_prefetch(bytes_ + prefetched_);
    return true;
  }
  const std::optional<Error>& error() const { return error_; }
  // Frames on from `pos` (a record boundary in [begin, end]) instead; messages still
  // measure what is left from the range's begin. For a reader that starts in the middle
  // of the data section.
  void Seek(uint64_t pos) {
    pos_ = pos;
    prefetched_ = pos & ~uint64_t{63};
  }
  // Where the next record would start.
  uint64_t pos() const { return pos_; }

 private:
  // Sets error_ for the framing problem at pos_ (r: the record there, if its header
  // fits; extra: its trailing bytes when those are what runs past the end).
  bool Stop(const RecordView* r, uint64_t extra);

  static constexpr uint64_t kPrefetchAhead = 4096;
  Loader ld_;
  const uint8_t* bytes_;
  uint64_t begin_, pos_, end_;
  uint64_t prefetched_ = begin_ & ~uint64_t{63};  // lines below this one were prefetched
  bool pipe_mode_;
  std::optional<Error> error_;
};

}  // namespace perflens
