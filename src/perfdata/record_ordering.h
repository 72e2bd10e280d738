// RecordOrdering: delivers kernel records (type < 64) in perf's order. It queues each
// with its timestamp in an OrderedQueue, flushes by the FINISHED_ROUND rule, and keeps
// the queue's memory bounded: a queued record whose bytes are owned (RecordView::chunk
// != 0) pins its ChunkPool chunk until delivered, and when the pinned bytes and queue
// entries pass ReaderOptions::max_queued_bytes the whole queue is flushed early, with
// one warning, as perf's ordered_events does at its allocation limit
// (tools/perf/util/ordered-events.c: ordered_events__queue, OE_FLUSH__HALF at
// max_alloc_size; spec A13). One per ReadRecords call; not thread-safe.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include <fmt/format.h>

#include "perfdata/chunk_pool.h"
#include "perfdata/ordered_queue.h"
#include "perfdata/reader_options.h"
#include "perfdata/record.h"

namespace perflens {

// `Deliver` is called as deliver(const RecordView&) for each record leaving the queue
// (deliver(const RecordView&, const Payload&) with a Payload; see BasicOrderedQueue).
template <typename Deliver, typename Payload = NoQueuePayload>
class RecordOrdering {
 public:
  // `file`, `ld`: the mapped perf.data whose records are queued by position
  // (OrderedQueue); nullptr when reading a stream.
  RecordOrdering(Deliver deliver, ChunkPool* pool, uint64_t max_queued_bytes, ReadStats* stats,
                 const uint8_t* file = nullptr, const Loader& ld = Loader{})
      : deliver_(std::move(deliver)), pool_(pool), max_queued_bytes_(max_queued_bytes), stats_(stats),
        queue_(file, ld) {}

  // Queues `r` with timestamp `t` (ns, neither 0 nor UINT64_MAX: those are delivered at
  // once by the caller). Counts a record older than the last delivered one in
  // stats->nr_unordered (it is still delivered, late).
  void Push(uint64_t t, const RecordView& r, const Payload& payload = Payload{}) {
    if (queue_.Push(t, r, payload)) ++stats_->nr_unordered;
    if (!r.chunk) return;  // a view into the file: memory bounded by the file itself
    pool_->Hold(r.chunk);
    ++owned_queued_;
    // The limit counts the owned bytes the queue pins and the queue entries pinning them.
    if (owned_queued_ * sizeof(RecordView) * 3 / 2 + pool_->live_bytes() > max_queued_bytes_) {
      if (!forced_flush_warned_) {
        forced_flush_warned_ = true;
        AddReadWarning(stats_, fmt::format("the ordering queue reached {} MiB at the record at offset {:#x} (no "
                                           "FINISHED_ROUND for that long); records pending then were delivered "
                                           "without waiting for the round",
                                           max_queued_bytes_ >> 20, r.perf_data_offset));
      }
      FlushAll();
    }
  }
  // A FINISHED_ROUND: delivers what the previous round's bound allows.
  void FinishedRound() { queue_.FlushRound(deliver_queued()); }
  // End of input (or the early flush): delivers everything queued.
  void FlushAll() { queue_.FlushAll(deliver_queued()); }

 private:
  // Delivery out of the queue: the record no longer pins its chunk.
  auto deliver_queued() {
    if constexpr (std::is_same_v<Payload, NoQueuePayload>) {
      return [this](const RecordView& r) {
        deliver_(r);
        Delivered(r);
      };
    } else {
      return [this](const RecordView& r, const Payload& p) {
        deliver_(r, p);
        Delivered(r);
      };
    }
  }
  void Delivered(const RecordView& r) {
    if (r.chunk) {
      pool_->Release(r.chunk);
      --owned_queued_;
    }
  }

  Deliver deliver_;
  ChunkPool* pool_;
  uint64_t max_queued_bytes_;
  ReadStats* stats_;
  BasicOrderedQueue<Payload> queue_;
  uint64_t owned_queued_ = 0;  // queued records whose bytes are in the pool
  bool forced_flush_warned_ = false;
};

}  // namespace perflens
