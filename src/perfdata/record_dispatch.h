// PerfFile::Dispatcher: what ReadRecords does with each record it frames, shared with
// ReadRecordsParallel (its user records and the contents of COMPRESSED records) so that
// both deliver the same records in the same order. Internal to perf_file*.cc.
#pragma once

#include <utility>

#include "perfdata/chunk_pool.h"
#include "perfdata/decompressor.h"
#include "perfdata/perf_file.h"

namespace perflens {

// `Deliver` is called as deliver(const RecordView&); `Ordering` is a RecordOrdering
// (nullptr: records are delivered in file order).
template <typename Deliver, typename Ordering>
class PerfFile::Dispatcher {
 public:
  // `rounds_flush`: a FINISHED_ROUND flushes the ordering (false for a directory's
  // data.N files, whose rounds are per file).
  Dispatcher(const PerfFile& file, Deliver deliver, Ordering* ordering, bool rounds_flush, Decompressor* decompressor,
             ChunkPool* pool, ReadStats* stats)
      : file_(file), deliver_(std::move(deliver)), ordering_(ordering), rounds_flush_(rounds_flush),
        decompressor_(decompressor), pool_(pool), stats_(stats), single_time_off_(file.SingleTimeOffset()) {}

  // Counts `r` (CountRecord) and dispatches it.
  void operator()(const RecordView& r) {
    CountRecord(r, stats_);
    if (r.type >= 64) return User(r);
    if (!ordering_) return deliver_(r);
    const uint64_t t = file_.OrderingTime(r, single_time_off_);
    if (t == 0 || t == UINT64_MAX) return deliver_(r);
    ordering_->Push(t, r);
  }
  // A user record (type >= 64), counted already: delivered at once; then a
  // FINISHED_ROUND flushes the round, and a COMPRESSED record's contents are
  // dispatched (counted, ordered) one by one.
  void User(const RecordView& r) {
    deliver_(r);
    if (r.type == kRecordFinishedRound) {
      if (ordering_ && rounds_flush_) ordering_->FinishedRound();
    } else if (r.type == kRecordCompressed || r.type == kRecordCompressed2) {
      decompressor_->Decompress(r, pool_, stats_, [this](const RecordView& in) { (*this)(in); });
    }
  }

 private:
  const PerfFile& file_;
  Deliver deliver_;
  Ordering* ordering_;
  bool rounds_flush_;
  Decompressor* decompressor_;
  ChunkPool* pool_;
  ReadStats* stats_;
  uint32_t single_time_off_;
};

}  // namespace perflens
