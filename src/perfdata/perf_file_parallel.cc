// PerfFile::ReadRecordsParallel: ReadRecords with the framing and sample decoding of a
// mapped file spread over a WorkerPool. Ordering and delivery stay on the caller's
// thread and share their code with ReadRecords (RecordOrdering, CountRecord,
// OrderingTime), so both deliver the same records in the same order.
//
// Where ranges start: a FINISHED_ROUND header (type 68, size 8, misc 0) is looked for
// at 8-byte steps from each range's nominal start. Sample payloads can hold those 8
// bytes, so a start is only a guess until the range before it, framed from a known
// boundary, ends exactly there; otherwise the range is framed again from where that one
// ended. Records are 8-byte multiples in files perf writes; in any other file guesses
// simply fail and the ranges are framed again one after the other.
#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "base/worker_pool.h"
#include "perfdata/chunk_pool.h"
#include "perfdata/decompressor.h"
#include "perfdata/perf_file.h"
#include "perfdata/record_cursor.h"
#include "perfdata/record_dispatch.h"
#include "perfdata/record_ordering.h"

namespace perflens {
namespace {

constexpr uint32_t kNotDecoded = UINT32_MAX;

// One record as a worker framed it.
struct FramedRecord {
  uint64_t offset;   // perf.data offset of its header
  uint64_t time;     // OrderingTime for a kernel record (0, UINT64_MAX: delivered at once)
  uint32_t type;
  uint16_t misc, size;
  uint32_t decoded;  // index into FramedRange::decoded, or kNotDecoded
  uint32_t unused;
};

struct FramedRange {
  uint64_t nominal = 0;     // where its start was looked for
  uint64_t round_from = 0;  // the next range's nominal start (the window's end for the last)
  // Its first record: a guess until the range before ends there; kNoStart when no
  // FINISHED_ROUND header is in [nominal, round_from) (the range before frames through).
  uint64_t start = 0;
  // Where the record after its last one starts (the data end at the end): the first
  // FINISHED_ROUND at or after round_from, or the first record at or after the window's
  // end, whichever comes first.
  uint64_t end = 0;
  std::vector<FramedRecord> records;
  std::vector<PerfFile::DecodedSample> decoded;
  std::optional<Error> error;  // framing stopped inside the range; its records are the last
  // The records counted as ReadRecords counts them (CountRecord), unless the range holds
  // COMPRESSED data, whose records are counted in order on delivery with the rest.
  ReadStats counts;
  bool compressed = false;
  // Empty, starting at `at`.
  void Reset(uint64_t at) {
    start = at;
    records.clear();
    decoded.clear();
    error.reset();
    counts = ReadStats{};
    compressed = false;
  }
};

struct Window {
  uint64_t begin = 0, end = 0;  // begin: a record boundary; the ranges frame past `end` to one
  uint64_t drop_below = 0;      // bytes before this are delivered: their pages can go
  std::vector<FramedRange> ranges;
};

// What the ordering queue keeps with a decoded sample: the rest of its header (so that
// it is delivered without touching its bytes again) and the decoding. Other records
// are framed again from the file on delivery.
struct QueuedPayload {
  uint16_t misc = 0, size = 0;
  bool decoded = false;
  PerfFile::DecodedSample sample;
  // BasicOrderedQueue's "the header is here" (only a decoded sample's is).
  bool has_header() const { return decoded; }
  uint32_t type() const { return kRecordSample; }
};
static_assert(sizeof(QueuedPayload) == 40);

// Adds a range's counts to the reader's (CountRecord's fields).
void AddCounts(const ReadStats& from, ReadStats* to) {
  for (size_t i = 0; i < std::size(from.nr_records); ++i) to->nr_records[i] += from.nr_records[i];
  to->nr_unknown_type += from.nr_unknown_type;
  to->nr_records_total += from.nr_records_total;
  if (from.nr_unknown_records && !to->nr_unknown_records) {
    to->first_unknown_type = from.first_unknown_type;
    to->first_unknown_offset = from.first_unknown_offset;
  }
  to->nr_unknown_records += from.nr_unknown_records;
}

constexpr uint64_t kNoStart = UINT64_MAX;

// The first p in [from, limit) with (p - base) % 8 == 0 whose 8 bytes (before `end`;
// limit <= end) are a FINISHED_ROUND header; kNoStart when there is none.
uint64_t FindRoundHeader(const Loader& ld, const uint8_t* bytes, uint64_t base, uint64_t from, uint64_t limit,
                         uint64_t end) {
  uint8_t pattern[8] = {};
  if (ld.swap) {
    pattern[3] = static_cast<uint8_t>(kRecordFinishedRound);
    pattern[7] = 8;
  } else {
    pattern[0] = static_cast<uint8_t>(kRecordFinishedRound);
    pattern[6] = 8;
  }
  uint64_t want;
  std::memcpy(&want, pattern, 8);
  for (uint64_t p = from + ((base - from) & 7); p < limit && end - p >= 8; p += 8) {
    uint64_t v;
    std::memcpy(&v, bytes + p, 8);
    if (v == want) return p;
  }
  return kNoStart;
}

}  // namespace

uint64_t PerfFile::MeanSampleBytes() const {
  if (!CanReadInParallel()) return 0;
  const uint64_t data_begin = data_offset(), limit = data_offset() + std::min<uint64_t>(data_size(), 4u << 20);
  RecordCursor cursor(loader(), file_.data(), data_begin, limit, false);
  RecordView r;
  uint64_t n = 0, bytes = 0;
  while (cursor.Next(&r)) {
    if (r.type != kRecordSample) continue;
    ++n;
    bytes += r.size;
  }
  return n ? bytes / n : 0;
}

Status PerfFile::ReadRecordsParallel(const DecodedRecordCallback& cb, const ParallelRead& pr, ReadStats* stats) {
  if (!CanReadInParallel()) return Err("{}: not readable in parallel", path());
  const Loader& ld = loader();
  const uint8_t* bytes = file_.data();
  const uint64_t data_begin = data_offset(), data_end = data_offset() + data_size();
  const uint32_t single_time_off = SingleTimeOffset();
  const size_t workers = pr.pool ? pr.pool->workers() : 1;
  const uint64_t window_bytes = std::max<uint64_t>(pr.window_bytes, 64);
  const uint64_t range_bytes = std::max<uint64_t>(pr.range_bytes, 64);

  // Frames the records of *r from `start` (worker `worker`) up to r->round_from's round
  // or `window_end`.
  auto frame = [&](size_t worker, uint64_t start, uint64_t window_end, FramedRange* r) {
    r->Reset(start);
    r->end = data_end;
    // Room for records of 64 bytes on average, so that most ranges never grow their
    // vectors (a copy, and fresh pages, per doubling).
    const size_t guess =
        static_cast<size_t>(std::min<uint64_t>((std::max(r->round_from, start) - start) / 64, 1u << 20));
    if (r->records.capacity() < guess) r->records.reserve(guess);
    if (r->decoded.capacity() < guess) r->decoded.reserve(guess);
    RecordCursor cursor(ld, bytes, data_begin, data_end, false);
    cursor.Seek(start);
    RecordView v;
    for (;;) {
      const uint64_t at = cursor.pos();
      if (!cursor.Next(&v)) {
        // A record that cannot be framed is the next window's if it starts there.
        if (cursor.error()) {
          if (at >= window_end) r->end = at;
          else r->error = cursor.error();
        }
        return;
      }
      if (v.perf_data_offset >= window_end ||
          (v.type == kRecordFinishedRound && v.perf_data_offset >= r->round_from)) {
        r->end = v.perf_data_offset;
        return;
      }
      FramedRecord& f = r->records.emplace_back();
      f.offset = v.perf_data_offset;
      f.type = v.type;
      f.misc = v.misc;
      f.size = v.size;
      f.time = v.type < 64 ? OrderingTime(v, single_time_off) : 0;
      f.decoded = kNotDecoded;
      f.unused = 0;
      CountRecord(v, &r->counts);
      r->compressed |= v.type == kRecordCompressed || v.type == kRecordCompressed2;
      if (v.type == kRecordSample) {
        DecodedSample d;
        if (pr.decode && pr.decode(worker, v, &d)) {
          f.decoded = static_cast<uint32_t>(r->decoded.size());
          r->decoded.push_back(d);
        }
      }
      if (cursor.error()) {  // returned with its trailing payload past the end: the last
        r->error = cursor.error();
        return;
      }
    }
  };
  auto plan = [&](Window* w, uint64_t begin, uint64_t drop_below, uint64_t bytes) {
    w->begin = begin;
    w->end = std::min(data_end, begin + std::min(bytes, data_end - begin));
    w->drop_below = drop_below;
    const uint64_t len = w->end - w->begin;
    const size_t n = static_cast<size_t>(std::clamp<uint64_t>(len / range_bytes, 1, 2 * workers));
    w->ranges.resize(n);
    for (size_t i = 0; i < n; ++i) w->ranges[i].nominal = begin + len * i / n;
    for (size_t i = 0; i < n; ++i) w->ranges[i].round_from = i + 1 < n ? w->ranges[i + 1].nominal : w->end;
  };
  // Range i of *w: find its start in its own span, frame it.
  auto job = [&](Window* w, size_t worker, size_t i) {
    if (i == 0 && w->drop_below > 0) DropProcessedBytes(w->drop_below);
    FramedRange& r = w->ranges[i];
    const uint64_t start =
        i == 0 ? w->begin : FindRoundHeader(ld, bytes, data_begin, r.nominal, r.round_from, data_end);
    if (start == kNoStart) r.Reset(kNoStart);
    else frame(worker, start, w->end, &r);
  };

  ChunkPool pool;
  Decompressor decompressor(ld, options_.max_decompressed_bytes);
  auto deliver_queued = [&cb](const RecordView& r, const QueuedPayload& p) { cb(r, p.decoded ? &p.sample : nullptr); };
  RecordOrdering<decltype(deliver_queued), QueuedPayload> ordering(deliver_queued, &pool, options_.max_queued_bytes,
                                                                   stats, bytes, ld);
  // User records and the records in COMPRESSED data: ReadRecords' dispatch (the latter
  // not decoded ahead).
  auto deliver_undecoded = [&cb](const RecordView& r) { cb(r, nullptr); };
  Dispatcher<decltype(deliver_undecoded), decltype(ordering)> dispatch(*this, deliver_undecoded, &ordering, true,
                                                                       &decompressor, &pool, stats);
  // The records of one verified range, in file order, as ReadRecords dispatches them.
  auto deliver_range = [&](const FramedRange& range) {
    if (!range.compressed) AddCounts(range.counts, stats);
    for (const FramedRecord& f : range.records) {
      RecordView r;
      r.type = f.type;
      r.misc = f.misc;
      r.size = f.size;
      r.data = bytes + f.offset;
      r.perf_data_offset = f.offset;
      if (f.type >= 64) {
        // Counted by the worker, unless the range holds COMPRESSED data: then its
        // records are counted here, in order with what decompresses.
        if (range.compressed) dispatch(r);
        else dispatch.User(r);
        continue;
      }
      if (range.compressed) CountRecord(r, stats);
      const DecodedSample* d = f.decoded != kNotDecoded ? &range.decoded[f.decoded] : nullptr;
      if (f.time == 0 || f.time == UINT64_MAX) {
        cb(r, d);
        continue;
      }
      if (!d) {
        ordering.Push(f.time, r);
        continue;
      }
      QueuedPayload p;
      p.misc = f.misc;
      p.size = f.size;
      p.decoded = true;
      p.sample = *d;
      ordering.Push(f.time, r, p);
    }
  };
  // Checks each range's start against where the one before ended, framing it again
  // from there when the guess was wrong. Returns where the window's records end, or
  // nullopt after a stop (stats->stopped is then set by the caller's delivery).
  auto verify = [&](Window* w) -> std::optional<uint64_t> {
    uint64_t expected = w->begin;
    for (FramedRange& r : w->ranges) {
      if (r.start == kNoStart) continue;
      if (r.start != expected) frame(0, expected, w->end, &r);
      expected = r.end;
      if (r.error) return std::nullopt;
    }
    return expected;
  };

  // ParallelRead::window_records: after a window of records far smaller than the usual
  // 100 bytes and up, a smaller one (two windows are framed at a time).
  const uint64_t window_records = std::max<uint64_t>(pr.window_records, 1);
  auto next_window_bytes = [&](const Window& w, uint64_t end) {
    uint64_t n = 0;
    for (const FramedRange& r : w.ranges) n += r.records.size();
    if (n <= window_records) return window_bytes;
    return std::max<uint64_t>((end - w.begin) / n * window_records, 64);
  };
  Window windows[2];
  Window* cur = &windows[0];
  Window* next = &windows[1];
  plan(cur, data_begin, 0, std::max<uint64_t>(window_bytes / 4, 64));
  auto run_all = [&](Window* w) {
    if (pr.pool) {
      pr.pool->Run(w->ranges.size(), [&, w](size_t worker, size_t i) { job(w, worker, i); });
    } else {
      for (size_t i = 0; i < w->ranges.size(); ++i) job(w, 0, i);
    }
  };
  if (data_end > data_begin) run_all(cur);
  bool more = data_end > data_begin;
  uint64_t previous_begin = 0;  // the window delivered before cur
  while (more) {
    const std::optional<uint64_t> end = verify(cur);
    more = end && *end < data_end;
    bool started = false;
    if (more) {
      // The pages of the windows before the previous one go back: records of the
      // previous one may still be queued (they would be read again from the page cache).
      plan(next, *end, previous_begin, next_window_bytes(*cur, *end));
      if (pr.pool && pr.pool->workers() > 1) {
        pr.pool->Start(next->ranges.size(), [&, w = next](size_t worker, size_t i) { job(w, worker, i); });
        started = true;
      }
    }
    for (const FramedRange& r : cur->ranges) {
      deliver_range(r);
      if (r.error) {
        stats->stopped = r.error;
        break;
      }
    }
    if (more) {
      if (started) pr.pool->Finish();
      else run_all(next);
      previous_begin = cur->begin;
      std::swap(cur, next);
    }
  }
  ordering.FlushAll();
  return Status::Ok();
}

}  // namespace perflens
