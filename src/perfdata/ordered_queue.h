// OrderedQueue: perf's ordered-events rule (tools/perf/util/ordered-events.c; spec A13).
// Kernel records are queued by timestamp; each FINISHED_ROUND delivers every queued
// record with time <= the largest timestamp seen before the *previous* round, in time
// order (stable for equal times), so delivery lags one round behind. The queue never
// copies records: a record of the mapped file is queued as its position alone (a
// 16-byte entry with the time) and framed again on delivery; any other (decompressed,
// piped, a directory part) as its whole view, kept aside. On recordings with few
// FINISHED_ROUNDs the queue holds most of the file's records at once (libm.data: 18
// rounds for 297K samples), so the entry size is most of the reader's memory.
// RecordOrdering (record_ordering.h) drives it for ReadRecords and bounds its memory.
// BasicOrderedQueue<Payload> queues a payload with each record (the parallel reader's
// decoded samples and record headers, PerfFile::ReadRecordsParallel); both readers use
// the one ordering code, so their orders cannot drift apart.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "base/byte_order.h"
#include "perfdata/record.h"
#include "perfdata/record_cursor.h"

namespace perflens {

// No payload: OrderedQueue.
struct NoQueuePayload {};

// Payload: copied into the queue with each record and handed back with it on delivery
// (deliver(const RecordView&, const Payload&); deliver(const RecordView&) for
// NoQueuePayload); trivially copyable.
template <typename Payload>
class BasicOrderedQueue {
 public:
  // Every record queued aside (tests).
  BasicOrderedQueue() = default;
  // `file`: the mapped perf.data (byte i at perf.data offset i) whose records can be
  // queued by position, their headers read with `ld` on delivery; nullptr for none.
  BasicOrderedQueue(const uint8_t* file, const Loader& ld) : file_(file), ld_(ld) {}

  // Queues `r` with timestamp `t` (ns). Returns true when `t` is older than the last
  // delivered record (perf's "unordered" count); it is still delivered, late.
  bool Push(uint64_t t, const RecordView& r, const Payload& payload = Payload{}) {
    if (file_ && r.chunk == 0 && !r.compressed && r.data == file_ + r.perf_data_offset &&
        r.perf_data_offset < kAside) [[likely]] {
      q_.push_back({t, r.perf_data_offset, payload});
    } else {
      uint64_t slot;
      if (free_aside_.empty()) {
        slot = aside_.size();
        aside_.push_back(r);
      } else {
        slot = free_aside_.back();
        free_aside_.pop_back();
        aside_[slot] = r;
      }
      q_.push_back({t, kAside | slot, payload});
    }
    if (t > max_timestamp_) max_timestamp_ = t;
    return t < last_flush_;
  }

  // The FINISHED_ROUND flush.
  template <typename Deliver>
  void FlushRound(Deliver&& deliver) {
    Flush(next_flush_, deliver);
    next_flush_ = max_timestamp_;
  }

  // End of input: deliver everything.
  template <typename Deliver>
  void FlushAll(Deliver&& deliver) {
    Flush(UINT64_MAX, deliver);
  }

  size_t size() const { return q_.size() - head_; }

 private:
  static constexpr uint64_t kAside = uint64_t{1} << 63;

 public:
  struct Entry {
    uint64_t time;
    uint64_t ref;  // perf.data offset of a record of file_, or kAside | slot in aside_
    [[no_unique_address]] Payload payload;
  };

 private:
  // The view queued as `ref`; an aside slot is free again afterwards.
  RecordView Take(uint64_t ref, [[maybe_unused]] const Payload& payload) {
    if (!(ref & kAside)) {
      // A payload that says it holds the header (`has_header(payload)` true, with
      // `type`, `misc`, `size`): the record's bytes are not read again.
      if constexpr (requires { payload.has_header(); }) {
        if (payload.has_header()) {
          RecordView r;
          r.type = payload.type();
          r.misc = payload.misc;
          r.size = payload.size;
          r.data = file_ + ref;
          r.perf_data_offset = ref;
          return r;
        }
      }
      return ViewAt(ld_, file_ + ref, ref);
    }
    const size_t slot = static_cast<size_t>(ref & ~kAside);
    free_aside_.push_back(slot);
    return aside_[slot];
  }

  template <typename Deliver>
  void Flush(uint64_t limit, Deliver& deliver) {
    if (head_ == q_.size()) return;
    SortUndelivered();
    size_t i = head_;
    while (i < q_.size() && q_[i].time <= limit) {
      if constexpr (std::is_same_v<Payload, NoQueuePayload>) {
        deliver(Take(q_[i].ref, q_[i].payload));
      } else {
        deliver(Take(q_[i].ref, q_[i].payload), q_[i].payload);
      }
      last_flush_ = q_[i].time;
      ++i;
    }
    head_ = i;
    if (head_ == q_.size()) {
      q_.clear();
      head_ = 0;
    } else if (head_ > q_.size() / 2) {
      q_.erase(q_.begin(), q_.begin() + static_cast<long>(head_));
      head_ = 0;
    }
    sorted_ = q_.size();
  }

  // Sorts q_[head_, end) by time, stably. A round is a few sorted runs (one per CPU
  // buffer, and the sorted leftover of the last round): find them and merge them
  // pairwise, each pass from one of q_ and scratch_ into the other at the same indices
  // (no copy back), the two vectors trading places when the result is in scratch_.
  // Entries before head_ are delivered and never read again, so they may be garbage.
  void SortUndelivered() {
    runs_.clear();
    runs_.push_back(head_);
    for (size_t i = std::max(head_ + 1, sorted_); i < q_.size(); ++i)
      if (q_[i].time < q_[i - 1].time) runs_.push_back(i);
    runs_.push_back(q_.size());
    if (runs_.size() <= 2) return;
    scratch_.resize(q_.size());
    std::vector<Entry>* src = &q_;
    std::vector<Entry>* dst = &scratch_;
    auto by_time = [](const Entry& a, const Entry& b) { return a.time < b.time; };
    auto at = [](std::vector<Entry>* v, size_t i) { return v->begin() + static_cast<long>(i); };
    while (runs_.size() > 2) {
      size_t out = 1;
      for (size_t k = 0; k + 1 < runs_.size(); k += 2) {
        if (k + 2 < runs_.size()) {
          std::merge(at(src, runs_[k]), at(src, runs_[k + 1]), at(src, runs_[k + 1]), at(src, runs_[k + 2]),
                     at(dst, runs_[k]), by_time);
          runs_[out++] = runs_[k + 2];
        } else {  // odd run out: carried to the other buffer for the next pass
          std::copy(at(src, runs_[k]), at(src, runs_[k + 1]), at(dst, runs_[k]));
          runs_[out++] = runs_[k + 1];
        }
      }
      runs_.resize(out);
      std::swap(src, dst);
    }
    if (src != &q_) q_.swap(scratch_);
  }

  const uint8_t* file_ = nullptr;
  Loader ld_{};
  std::vector<RecordView> aside_;    // records not queued by position, by slot
  std::vector<size_t> free_aside_;   // slots of aside_ delivered
  std::vector<Entry> q_;
  std::vector<Entry> scratch_;
  std::vector<size_t> runs_;  // run starts in q_, then q_.size()
  size_t head_ = 0;    // first undelivered entry
  size_t sorted_ = 0;  // q_[head_, sorted_) is sorted by time
  uint64_t max_timestamp_ = 0;
  uint64_t next_flush_ = 0;
  uint64_t last_flush_ = 0;
};

using OrderedQueue = BasicOrderedQueue<NoQueuePayload>;
static_assert(sizeof(OrderedQueue::Entry) == 16, "the plain queue's entries stay 16 bytes");

}  // namespace perflens
