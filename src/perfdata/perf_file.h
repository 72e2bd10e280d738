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
// Layouts: tools/perf/util/header.c (perf_file_header, attrs, feature index),
// tools/perf/util/session.c (record framing, ordering, compression). Spec part A.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/mapped_file.h"
#include "base/result.h"
#include "perfdata/event_attr.h"
#include "perfdata/features.h"
#include "perfdata/record.h"
#include "perfdata/sample.h"

namespace perflens {

// One event selector: an attr, its name and its sample ids.
struct Evsel {
  int index = 0;
  EventAttr attr;
  std::string name;  // "cycles:u", from EVENT_DESC / EVENT_UPDATE or synthesized
  std::vector<uint64_t> ids;
};

// perf's name for an attr when the file carries none ("cycles", "cpu-clock:u", ...),
// following evsel__name / evsel__add_modifiers.
std::string SynthesizeEvselName(const EventAttr& attr);

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

class PerfFile {
 public:
  // Opens `path` ("-" reads standard input). Errors: I/O, bad magic, bad header,
  // attrs that do not fit the file (each message names the file offset); a file not
  // owned by the effective user or root without options.force.
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

  bool pipe_mode() const { return pipe_mode_; }
  // Read from a pipe as it arrives (FromStream): env() grows while ReadRecords runs.
  bool streaming() const { return stream_fd_ >= 0; }
  bool cross_endian() const { return loader_.swap; }
  bool legacy_v1() const { return legacy_v1_; }
  const Loader& loader() const { return loader_; }
  const std::string& path() const { return file_.name(); }
  // Bytes of the file (for a stream: read so far).
  uint64_t file_size() const { return streaming() ? stream_size_ : file_.size(); }
  uint64_t data_offset() const { return data_offset_; }
  uint64_t data_size() const { return data_size_; }
  uint64_t header_size() const { return header_size_; }
  uint64_t attr_size() const { return attr_size_; }
  // True when the header's data_size was 0 (perf record still running or killed): the
  // data section was taken to run to the end of the file and no features were read.
  bool unfinished() const { return unfinished_; }
  const std::vector<Evsel>& evsels() const { return evsels_; }
  // True when some evsel samples the kernel (attr.exclude_kernel clear), so kernel
  // symbols will be needed.
  bool SamplesKernel() const {
    for (const Evsel& ev : evsels_)
      if (!ev.attr.exclude_kernel()) return true;
    return false;
  }
  const HeaderEnv& env() const { return env_; }
  // Raw feature bitmap bit test (file mode); pipe mode reports features seen in-band.
  bool HasFeature(int feature) const { return env_.Has(feature); }

  // The evsel a SAMPLE belongs to (by id when several), or nullptr for an unknown id.
  const Evsel* EvselForSample(const RecordView& r) const;
  // The evsel whose sample_id trailer layout applies to a non-sample record.
  const Evsel* EvselForRecord(const RecordView& r) const;
  // Timestamp of any record: sample time, or the sample_id trailer's time; 0 if none.
  uint64_t RecordTime(const RecordView& r) const;
  // Decodes a sample record with its evsel; sets *evsel (nullptr for unknown id).
  SampleError ParseSample(const RecordView& r, Sample* out, const Evsel** evsel) const;
  // The same with DecodeSampleBasics (*scratch: see there), with each evsel's layout
  // computed once.
  SampleError ParseSampleBasics(const RecordView& r, SampleBasics* out, const Evsel** evsel, Sample* scratch) const {
    const Evsel* ev = evsels_.size() == 1 ? &evsels_[0] : EvselForSample(r);
    *evsel = ev;
    if (!ev) return SampleError::kNone;
    const size_t i = static_cast<size_t>(ev->index);
    if (i >= basics_layouts_.size()) return DecodeSampleBasicsSlow(r, ev->attr, loader_, out, scratch);
    return DecodeSampleBasics(r, basics_layouts_[i], ev->attr, loader_, out, scratch);
  }

  // Delivers every data record (user records at once, kernel records in perf's order).
  // Returns an error only for problems that make the whole file unreadable; a stop
  // in the middle is reported in stats->stopped after what came before was delivered.
  // A streamed file can be read once.
  using RecordCallback = std::function<void(const RecordView&)>;
  Status ReadRecords(const RecordCallback& cb, ReadStats* stats);

 private:
  PerfFile() = default;
  Status ParseFileHeader();
  Status ParsePipeHeader();
  Status ParseLegacyAttrs();
  Status ParseFeatures(const std::vector<uint8_t>& bits_present);
  // Whether `nr` feature index entries at file offset `at` all name sections after the
  // index and inside the file (tells a finished empty recording from an unfinished one).
  bool IsFeatureIndexAt(uint64_t at, size_t nr) const;
  void IndexIds();
  void AddHeaderAttr(const RecordView& r);
  void ApplyEventUpdate(const RecordView& r);
  void ApplyIdIndex(const RecordView& r);
  void FinishEvsels();

  // A pipe-mode header record (HEADER_ATTR, FEATURE, BUILD_ID, EVENT_UPDATE), applied
  // by the pre-scan of a pipe-format file and as a stream delivers it. After a
  // stream's first kernel record (`after_header`), a new attr is refused with a
  // warning (consumers size their tables by evsels()).
  void ApplyHeaderRecord(const RecordView& r, bool after_header, ReadStats* stats);

  MappedFile file_;
  ReaderOptions options_;
  int stream_fd_ = -1;                 // FromStream: the pipe
  std::vector<uint8_t> stream_head_;   // bytes FromStream read (header records, maybe more)
  uint64_t stream_header_end_ = 0;     // stream offset of the first kernel record
  bool stream_read_ = false;
  uint64_t stream_size_ = 0;
  Loader loader_;
  bool pipe_mode_ = false;
  bool legacy_v1_ = false;
  bool unfinished_ = false;
  bool too_many_attrs_ = false;
  uint64_t header_size_ = 0;
  uint64_t attr_size_ = 0;
  uint64_t data_offset_ = 0;
  uint64_t data_size_ = 0;
  std::vector<Evsel> evsels_;
  std::unordered_map<uint64_t, int> id_to_evsel_;
  HeaderEnv env_;
  // sample id positions (spec A7), common to all evsels as perf requires.
  int id_pos_ = -1;
  int is_pos_ = -1;
  bool sample_id_all_ = false;
  uint64_t comp_mmap_len_ = 0;
  // Per evsel: byte offset of PERF_SAMPLE_TIME in its samples (header included), 0 when
  // it has none. RecordTime runs for every record.
  std::vector<uint32_t> sample_time_offsets_;
  std::vector<SampleBasicsLayout> basics_layouts_;  // per evsel, for ParseSampleBasics
};

}  // namespace perflens
