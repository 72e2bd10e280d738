// PerfFile: a perf.data file (file mode PERFILE2, legacy PERFFILE, or pipe mode), read
// in place from an mmap or an in-memory buffer, or streamed from a pipe, in either byte
// order.
//
// Ownership: a RecordView into the file's bytes (RecordView::chunk == 0) stays valid
// until the PerfFile is destroyed, so records read on one thread can be processed on
// another. A view into bytes the reader owns (chunk != 0: records decompressed from
// COMPRESSED/COMPRESSED2 data, or read from a pipe) is valid only during the callback
// that receives it; a consumer that keeps it copies the bytes. The reader frees those
// bytes as soon as their records are delivered, so memory follows the ordering queue,
// not the input's length.
//
// PerfFile is the facade over the reader's parts, each with one job:
//   PerfHeader (perf_header.h)   file/pipe header, attrs → Evlist, features → HeaderEnv,
//                                in-band header records
//   Evlist (evlist.h)            evsels, id → evsel, each evsel's SampleLayout
//   RecordCursor (record_cursor.h)  framing records over a byte range
//   Decompressor (decompressor.h)   COMPRESSED/COMPRESSED2 windows into a ChunkPool
//   RecordOrdering (record_ordering.h)  OrderedQueue, FINISHED_ROUND, early flush
// PerfFile itself opens the input (mapping, ownership check, pipe streaming) and runs
// ReadRecords, which composes the last three, and ReadRecordsParallel
// (perf_file_parallel.cc), which frames and decodes ranges of a mapped file on a
// WorkerPool and orders them with the same RecordOrdering.
// Layouts: tools/perf/util/header.c (perf_file_header, attrs, feature index),
// tools/perf/util/session.c (record framing, ordering, compression). Spec part A.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/mapped_file.h"
#include "base/result.h"
#include "perfdata/event_attr.h"
#include "perfdata/evlist.h"
#include "perfdata/features.h"
#include "perfdata/perf_header.h"
#include "perfdata/reader_options.h"
#include "perfdata/record.h"
#include "perfdata/sample.h"

namespace perflens {

class WorkerPool;

class PerfFile {
 public:
  // Opens `path` ("-" reads standard input). Errors: I/O, bad magic, bad header,
  // attrs that do not fit the file (each message names the file offset); a file not
  // owned by the effective user or root without options.force.
  // A directory is a `perf record --threads` recording (perf's data.c): `path/data` is
  // the header file (with HEADER_DIR_FORMAT; its data section holds the synthesized
  // records) and `path/data.N` hold the records of each writer thread, headerless; they
  // are read as one recording, ordered by time (ReadRecords). Errors also: a directory
  // whose `data` lacks HEADER_DIR_FORMAT.
  static Result<std::unique_ptr<PerfFile>> Open(const std::string& path,
                                                const ReaderOptions& options = {});
  // Parses bytes already in memory (tests, fuzzers).
  static Result<std::unique_ptr<PerfFile>> FromBytes(MappedFile bytes,
                                                     const ReaderOptions& options = {});
  // Streams a pipe-mode recording from `fd` (not owned; a pipe or socket): the header
  // records before the first kernel record (attrs, features, event names) are read
  // now, the rest by ReadRecords, in chunks freed as they are delivered. Build-ids
  // (HEADER_BUILD_ID, which perf writes at the end of a stream) reach env().build_ids
  // only when ReadRecords gets there, so they do not change how earlier samples
  // resolve, as in perf. `name` is used in messages. Errors: read errors, bad magic
  // (checked as soon as 8 bytes arrive), a file-mode header, no HEADER_ATTR.
  static Result<std::unique_ptr<PerfFile>> FromStream(int fd, const std::string& name,
                                                      const ReaderOptions& options = {});

  bool pipe_mode() const { return header_.pipe_mode(); }
  // A `perf record --threads` directory (Open): the data.N files beside the header.
  bool directory() const { return directory_; }
  size_t directory_files() const { return dir_files_.size(); }
  // Read from a pipe as it arrives (FromStream): env() grows while ReadRecords runs.
  bool streaming() const { return stream_fd_ >= 0; }
  bool cross_endian() const { return header_.loader().swap; }
  bool legacy_v1() const { return header_.legacy_v1(); }
  const Loader& loader() const { return header_.loader(); }
  const std::string& path() const { return file_.name(); }
  // Bytes of the file (for a stream: read so far).
  uint64_t file_size() const { return streaming() ? stream_size_ : file_.size(); }
  uint64_t data_offset() const { return header_.data_offset(); }
  uint64_t data_size() const { return header_.data_size(); }
  uint64_t header_size() const { return header_.header_size(); }
  uint64_t attr_size() const { return header_.attr_size(); }
  // True when the header's data_size was 0 (perf record still running or killed): the
  // data section was taken to run to the end of the file and no features were read.
  bool unfinished() const { return header_.unfinished(); }
  const std::vector<Evsel>& evsels() const { return header_.evlist().evsels(); }
  // True when some evsel samples the kernel (attr.exclude_kernel clear), so kernel
  // symbols will be needed.
  bool SamplesKernel() const {
    for (const Evsel& ev : evsels())
      if (!ev.attr.exclude_kernel()) return true;
    return false;
  }
  const HeaderEnv& env() const { return header_.env(); }
  // Raw feature bitmap bit test (file mode); pipe mode reports features seen in-band.
  bool HasFeature(int feature) const { return header_.env().Has(feature); }

  // The evsel a SAMPLE belongs to (by id when several), or nullptr for an unknown id.
  const Evsel* EvselForSample(const RecordView& r) const { return header_.evlist().ForSample(r); }
  // The evsel owning sample id `id` (a PERF_SAMPLE_READ value's id), or nullptr.
  const Evsel* EvselForId(uint64_t id) const { return header_.evlist().FindById(id); }
  // The evsel whose sample_id trailer layout applies to a non-sample record.
  const Evsel* EvselForRecord(const RecordView& r) const { return header_.evlist().ForRecord(r); }
  // Timestamp of any record in ns: sample time, or the sample_id trailer's time; 0 if
  // none.
  uint64_t RecordTime(const RecordView& r) const { return header_.evlist().RecordTime(r); }
  // Decodes a sample record with its evsel's layout; sets *evsel (nullptr for an
  // unknown id, then kNone and *out untouched). Errors: DecodeSample's.
  SampleError ParseSample(const RecordView& r, Sample* out, const Evsel** evsel) const {
    const Evsel* ev = EvselForSample(r);
    *evsel = ev;
    if (!ev) return SampleError::kNone;
    return DecodeSample(r, ev->layout, ev->attr, loader(), out);
  }
  // The same with DecodeSampleBasics (*scratch: see there). The hot path of a flat
  // report: inline, and the layout is the evsel's, computed once.
  SampleError ParseSampleBasics(const RecordView& r, SampleBasics* out, const Evsel** evsel, Sample* scratch) const {
    const Evsel* ev = EvselForSample(r);
    *evsel = ev;
    if (!ev) return SampleError::kNone;
    return DecodeSampleBasics(r, ev->layout, ev->attr, loader(), out, scratch);
  }

  // Delivers every data record (user records at once, kernel records in perf's order).
  // For a directory: the header file's records, then each data.N file's, all kernel
  // records ordered by time across the files (FINISHED_ROUND does not flush there, as
  // a round of one file says nothing of the others; the queue's memory cap still holds).
  // A RecordView's perf_data_offset is then the offset in its own file.
  // Returns an error only for problems that make the whole file unreadable; a stop
  // in the middle is reported in stats->stopped after what came before was delivered.
  // A streamed file can be read once.
  using RecordCallback = std::function<void(const RecordView&)>;
  Status ReadRecords(const RecordCallback& cb, ReadStats* stats);

  // ReadRecords on every core: the data section is read in windows of
  // ParallelRead::window_bytes, each cut into byte ranges that start at FINISHED_ROUND
  // records; the ranges are framed and their SAMPLEs decoded by `decode` on the pool's
  // workers (the next window's while the caller orders and delivers this one's), and
  // the records are then ordered and delivered on the calling thread by the same code
  // and in the same order as ReadRecords, each sample with its decoding. A range start
  // is a guess (the FINISHED_ROUND header's 8 bytes found in the data) until the range
  // before it ends exactly there; a wrong guess is framed again from the true boundary,
  // so the records, their order, the ReadStats and a stop in the middle are
  // ReadRecords'. Only for what CanReadInParallel accepts.
  //
  // DecodedSample: 32 bytes the caller's decoder fills, opaque to the reader.
  struct DecodedSample {
    alignas(8) uint8_t bytes[32];
  };
  struct ParallelRead {
    WorkerPool* pool = nullptr;  // the helpers (not owned); nullptr: all on the caller
    // Called on any worker (`worker` < pool->workers()) for each SAMPLE record: true
    // when *out holds its decoding, which is delivered with it; false delivers it
    // undecoded (e.g. a malformed one, which the caller then counts in order).
    std::function<bool(size_t worker, const RecordView& r, DecodedSample* out)> decode;
    // Bytes framed ahead of delivery per window (at least 64), cut into up to two
    // ranges per worker of at least range_bytes (at least 64) each.
    uint64_t window_bytes = 16u << 20;
    uint64_t range_bytes = 64u << 10;
    // Records framed per window, about this many at most (32 bytes each are kept until
    // delivered): after a window that held more, the next one's bytes are what this
    // many records took there. The first window is a quarter of window_bytes.
    uint64_t window_records = 256u << 10;
  };
  // `decoded`: the sample's decoding, or nullptr. A decoded sample's RecordView has its
  // header fields and position but its bytes were not read again.
  using DecodedRecordCallback = std::function<void(const RecordView& r, const DecodedSample* decoded)>;
  // A mapped file in file mode (not a pipe-format file, not a directory, not a
  // stream) read in time order: what ReadRecordsParallel reads.
  bool CanReadInParallel() const {
    return !streaming() && !pipe_mode() && !directory_ && options_.ordered && file_.data() != nullptr;
  }
  // Errors: ReadRecords'; "not readable in parallel" when !CanReadInParallel().
  Status ReadRecordsParallel(const DecodedRecordCallback& cb, const ParallelRead& pr, ReadStats* stats);
  // The mean size in bytes of the SAMPLE records in the first 4 MiB of the data section
  // (0: none there, or not a file ReadRecordsParallel reads): how much of a read is
  // framing, which reading in parallel spreads over the cores. (Not the first few
  // samples only: a program's first samples, before its work starts, are often small.)
  uint64_t MeanSampleBytes() const;

  // Tells the reader that the records before file offset `perf_data_offset` have been
  // processed: the resident pages of a mapped file's bytes before it are given back
  // (MappedFile::DropPages) in steps of at least kDropStep bytes, so the RSS of reading
  // a large file stays near what the ordering queue and the caller hold. A view into
  // those bytes stays valid (it reads them back from the page cache). Call from one
  // thread; a no-op for buffers and pipes.
  static constexpr uint64_t kDropStep = 8u << 20;
  void DropProcessedBytes(uint64_t perf_data_offset);

 private:
  PerfFile() = default;
  // ReadRecords' handling of one framed record (record_dispatch.h).
  template <typename Deliver, typename Ordering>
  class Dispatcher;
  // Counts `r` in stats (by type; unknown types).
  static void CountRecord(const RecordView& r, ReadStats* stats);
  // The time a kernel record (type < 64) is ordered by: RecordTime, read inline for a
  // sample of the only evsel (`single_time_off`: that evsel's time offset, else 0).
  uint64_t OrderingTime(const RecordView& r, uint32_t single_time_off) const {
    if (r.type == kRecordSample && single_time_off != 0)
      return single_time_off + 8u <= r.size ? loader().U64(r.data + single_time_off) : 0;
    return header_.evlist().RecordTime(r);
  }
  uint32_t SingleTimeOffset() const {
    const Evlist& evlist = header_.evlist();
    return evlist.size() == 1 ? evlist.evsels()[0].layout.time : 0;
  }
  static Result<MappedFile> OpenOwned(const std::string& path, const ReaderOptions& options);
  static Result<std::unique_ptr<PerfFile>> OpenDirectory(const std::string& dir, const ReaderOptions& options);

  MappedFile file_;
  bool directory_ = false;
  std::vector<MappedFile> dir_files_;  // data.N, in N order, the empty ones left out
  uint64_t dropped_below_ = 0;  // DropProcessedBytes: bytes before it were given back
  ReaderOptions options_;
  PerfHeader header_;
  int stream_fd_ = -1;                 // FromStream: the pipe
  std::vector<uint8_t> stream_head_;   // bytes FromStream read (header records, maybe more)
  uint64_t stream_header_end_ = 0;     // stream offset of the first kernel record
  bool stream_read_ = false;
  uint64_t stream_size_ = 0;
};

}  // namespace perflens
