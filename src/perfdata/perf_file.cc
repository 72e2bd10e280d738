#include "perfdata/perf_file.h"

#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <bit>
#include <deque>

#include "base/text_escape.h"
#include "perfdata/ordered_queue.h"
#include "perfdata/perf_event.h"

namespace perflens {
namespace {

constexpr uint64_t kMagic2 = 0x32454c4946524550ULL;        // "PERFILE2" read as LE u64
constexpr uint64_t kMagic2Swapped = 0x50455246494c4532ULL;
constexpr uint64_t kMagic1 = 0x454c494646524550ULL;        // "PERFFILE"
constexpr uint64_t kFileHeaderSize = 104;
constexpr uint64_t kPipeHeaderSize = 16;
constexpr size_t kMaxWarnings = 8;

void Warn(ReadStats* st, std::string msg) {
  if (st->warnings.size() < kMaxWarnings) st->warnings.push_back(std::move(msg));
}

std::string TypeLabel(uint32_t type) {
  return fmt::format("{} (type {})", RecordTypeName(type), type);
}

}  // namespace

bool HeaderEnv::Has(int feature) const {
  return std::find(features_present.begin(), features_present.end(), feature) != features_present.end();
}

Result<std::unique_ptr<PerfFile>> PerfFile::Open(const std::string& path, const ReaderOptions& options) {
  if (path == "-") {
    // The magic is checked as soon as it arrives: garbage is refused before it is read.
    auto magic_ok = [](std::span<const uint8_t> head) -> Status {
      if (head.size() < 8) return Status::Ok();  // FromBytes says it is too short
      uint64_t magic;
      std::memcpy(&magic, head.data(), 8);
      if (magic == kMagic2 || magic == kMagic2Swapped || magic == kMagic1) return Status::Ok();
      return Err("<stdin>: not a perf.data file (bad magic at offset 0)");
    };
    auto bytes = MappedFile::ReadAll(STDIN_FILENO, "<stdin>", options.max_pipe_bytes, 8, magic_ok);
    if (!bytes) return bytes.error();
    return FromBytes(std::move(*bytes), options);
  }
  auto bytes = MappedFile::Open(path);
  if (!bytes) return bytes.error();
  // perf's open_file_read: only files of the current user or root, unless forced.
  if (!options.force && bytes->owner_uid() != 0 && bytes->owner_uid() != static_cast<int64_t>(geteuid()))
    return Err("{}: not owned by the current user or root (owner uid {}); use -f/--force to read it anyway", path,
               bytes->owner_uid());
  return FromBytes(std::move(*bytes), options);
}

Result<std::unique_ptr<PerfFile>> PerfFile::FromBytes(MappedFile bytes, const ReaderOptions& options) {
  std::unique_ptr<PerfFile> f(new PerfFile());
  f->file_ = std::move(bytes);
  f->options_ = options;
  if (f->options_.max_decompressed_bytes == 0)
    f->options_.max_decompressed_bytes = std::max<uint64_t>(1ULL << 30, 64 * f->file_.size());
  const uint8_t* p = f->file_.data();
  const size_t n = f->file_.size();
  if (n < kPipeHeaderSize)
    return Err("{}: not a perf.data file: {} bytes, shorter than any perf header", f->path(), n);
  uint64_t magic;
  std::memcpy(&magic, p, 8);
  if (magic == kMagic2) {
    f->loader_.swap = false;
  } else if (magic == kMagic2Swapped) {
    f->loader_.swap = true;
  } else if (magic == kMagic1) {
    f->legacy_v1_ = true;
  } else {
    return Err("{}: not a perf.data file (bad magic at offset 0)", f->path());
  }
  uint64_t hsize = Loader{f->loader_.swap}.U64(p + 8);
  if (f->legacy_v1_) {
    // PERFFILE carries no byte order: infer it from attr_size (file) or size (pipe) as
    // perf's try_all_file_abis / try_all_pipe_abis do.
    uint64_t raw = Loader{false}.U64(p + 8);
    if (raw == kPipeHeaderSize || __builtin_bswap64(raw) == kPipeHeaderSize) {
      f->loader_.swap = raw != kPipeHeaderSize;
    } else {
      if (n < 24) return Err("{}: legacy PERFFILE header truncated", f->path());
      uint64_t asz = Loader{false}.U64(p + 16);
      bool found = false;
      for (uint64_t s : {64, 72, 80, 96, 104, 112, 120, 128, 136}) {
        if (asz == s + 16) { f->loader_.swap = false; found = true; break; }
        if (__builtin_bswap64(asz) == s + 16) { f->loader_.swap = true; found = true; break; }
      }
      if (!found) return Err("{}: legacy PERFFILE with unknown attr size {}", f->path(), asz);
    }
    hsize = f->loader_.U64(p + 8);
  }
  if (hsize == kPipeHeaderSize) {
    f->pipe_mode_ = true;
    f->header_size_ = kPipeHeaderSize;
    PERFLENS_RETURN_IF_ERROR(f->ParsePipeHeader());
  } else {
    f->header_size_ = hsize;
    PERFLENS_RETURN_IF_ERROR(f->ParseFileHeader());
  }
  f->FinishEvsels();
  return f;
}

Status PerfFile::ParseFileHeader() {
  const uint8_t* p = file_.data();
  const uint64_t n = file_.size();
  const Loader& ld = loader_;
  if (header_size_ != kFileHeaderSize && header_size_ != 72)
    return Err("{}: bad header size {} at offset 0x8 (expected 104)", path(), header_size_);
  if (n < header_size_)
    return Err("{}: file truncated inside the {}-byte header ({} bytes)", path(), header_size_, n);
  attr_size_ = ld.U64(p + 16);
  uint64_t attrs_off = ld.U64(p + 24), attrs_size = ld.U64(p + 32);
  data_offset_ = ld.U64(p + 40);
  data_size_ = ld.U64(p + 48);
  if (attr_size_ == 0) return Err("{}: attr_size is 0 at offset 0x10", path());
  if (attr_size_ < 64 + 16)
    return Err("{}: attr_size {} at offset 0x10 is smaller than the minimum 80", path(), attr_size_);
  if (!FitsIn(attrs_off, attrs_size, n))
    return Err("{}: attrs section [{:#x}, +{:#x}) lies outside the {}-byte file", path(), attrs_off,
               attrs_size, n);
  if (attrs_size && attrs_off < header_size_)
    return Err("{}: attrs section at {:#x} overlaps the file header", path(), attrs_off);
  if (data_offset_ > n) return Err("{}: data section offset {:#x} is past the end of the file ({} bytes)", path(), data_offset_, n);
  if (data_offset_ < header_size_)
    return Err("{}: data section at {:#x} overlaps the file header", path(), data_offset_);
  if (data_size_ > n - data_offset_) {
    // Truncated recording: read what is there (perf warns and reads up to EOF too).
    env_.warnings.push_back(fmt::format("data section [{:#x}, +{:#x}) extends past the end of the file ({} bytes); reading what is there",
                                        data_offset_, data_size_, n));
    data_size_ = n - data_offset_;
  }
  if (data_size_ == 0) {
    // perf record writes data_size and the feature sections when it finishes: a file
    // it is still writing, or that it left when killed, has 0 here and records up to
    // the end of the file. Read those; the feature bits were set at the start but no
    // index was written (it would be read from the first records).
    unfinished_ = true;
    data_size_ = n - data_offset_;
    env_.warnings.push_back(fmt::format("data size is 0 in the header: the recording was not finished (perf record "
                                        "still running or killed); reading the {} bytes after offset {:#x} as "
                                        "records, without header features",
                                        data_size_, data_offset_));
  }

  uint64_t nr_attrs = attrs_size / attr_size_;
  // perf writes one disjoint ids section per attr; bound their sum by the file so that
  // attrs sharing one section cannot multiply it (memory quadratic in the file size).
  uint64_t total_ids_size = 0;
  for (uint64_t i = 0; i < nr_attrs; ++i) {
    uint64_t off = attrs_off + i * attr_size_;
    auto attr = ParseEventAttr({p + off, static_cast<size_t>(attr_size_ - 16)}, ld);
    if (!attr) return Err("{}: attr {} at offset {:#x}: {}", path(), i, off, attr.error().message);
    Evsel ev;
    ev.index = static_cast<int>(i);
    ev.attr = *attr;
    uint64_t ids_at = off + AttrDiskSize(attr->size);
    if (ids_at + 16 > off + attr_size_) ids_at = off + attr_size_ - 16;
    uint64_t ids_off = ld.U64(p + ids_at), ids_size = ld.U64(p + ids_at + 8);
    if (!FitsIn(ids_off, ids_size, n))
      return Err("{}: attr {} at offset {:#x}: ids [{:#x}, +{:#x}) outside the file", path(), i, off,
                 ids_off, ids_size);
    total_ids_size += ids_size;  // each ids_size <= n: no overflow
    if (total_ids_size > n)
      return Err("{}: attr {} at offset {:#x}: ids sections of all attrs add up to more than the {}-byte file", path(),
                 i, off, n);
    uint64_t nr_ids = ids_size / 8;
    ev.ids.reserve(nr_ids);
    for (uint64_t k = 0; k < nr_ids; ++k) ev.ids.push_back(ld.U64(p + ids_off + 8 * k));
    evsels_.push_back(std::move(ev));
  }

  // Feature bitmap (4×u64 after the legacy event_types section).
  std::vector<uint8_t> bits;
  if (header_size_ >= kFileHeaderSize && !unfinished_) {
    uint64_t w[4];
    for (int i = 0; i < 4; ++i) w[i] = ld.U64(p + 72 + 8 * i);
    if (ld.swap && !((w[0] >> kFeatHostname) & 1)) {
      // Written by a 32-bit perf: the bitmap is 8×u32 (perf_file_header__read).
      uint32_t v[8];
      for (int i = 0; i < 8; ++i) v[i] = ld.U32(p + 72 + 4 * i);
      for (int i = 0; i < 4; ++i) w[i] = static_cast<uint64_t>(v[2 * i + 1]) << 32 | v[2 * i];
      if (!((w[0] >> kFeatHostname) & 1)) {
        w[0] = 1ULL << kFeatBuildId;
        w[1] = w[2] = w[3] = 0;
      }
    }
    for (int bit = 0; bit < kFeatMaxBits; ++bit)
      if ((w[bit / 64] >> (bit % 64)) & 1) bits.push_back(static_cast<uint8_t>(bit));
  }
  return ParseFeatures(bits);
}

Status PerfFile::ParseFeatures(const std::vector<uint8_t>& bits) {
  if (bits.empty()) return Status::Ok();
  const uint8_t* p = file_.data();
  const uint64_t n = file_.size();
  uint64_t index_off = data_offset_ + data_size_;
  uint64_t index_size = bits.size() * 16;
  if (!FitsIn(index_off, index_size, n)) {
    env_.warnings.push_back(fmt::format("feature index at {:#x} ({} entries) is past the end of the file; header features ignored",
                                        index_off, bits.size()));
    return Status::Ok();
  }
  for (size_t i = 0; i < bits.size(); ++i) {
    int feat = bits[i];
    uint64_t off = loader_.U64(p + index_off + 16 * i);
    uint64_t size = loader_.U64(p + index_off + 16 * i + 8);
    env_.features_present.push_back(feat);
    if (!FitsIn(off, size, n)) {
      env_.warnings.push_back(fmt::format("feature {} section [{:#x}, +{:#x}) is outside the file; skipped",
                                          FeatureName(feat), off, size));
      continue;
    }
    Status s = ParseFeature(feat, {p + off, static_cast<size_t>(size)}, loader_, &env_);
    if (!s) env_.warnings.push_back(fmt::format("feature {} at offset {:#x}: {}", FeatureName(feat), off, s.error().message));
  }
  return Status::Ok();
}

Status PerfFile::ParsePipeHeader() {
  // Pipe mode: attrs, features and build ids arrive in-band. Pre-scan the top-level
  // records for them so that the rest of perflens sees the same PerfFile in both modes.
  data_offset_ = kPipeHeaderSize;
  data_size_ = file_.size() - kPipeHeaderSize;
  const uint8_t* p = file_.data();
  uint64_t pos = data_offset_, end = file_.size();
  while (pos + 8 <= end) {
    RecordView r;
    r.type = loader_.U32(p + pos);
    r.misc = loader_.U16(p + pos + 4);
    r.size = loader_.U16(p + pos + 6);
    r.data = p + pos;
    r.file_offset = pos;
    if (r.size < 8 || r.size > end - pos) break;  // ReadRecords reports it
    uint64_t extra = 0;
    switch (r.type) {
      case kRecordHeaderAttr: AddHeaderAttr(r); break;
      case kRecordHeaderFeature:
        if (r.size >= 16) {
          uint64_t feat = loader_.U64(p + pos + 8);
          if (feat < kFeatMaxBits) {
            env_.features_present.push_back(static_cast<int>(feat));
            Status s = ParseFeature(static_cast<int>(feat), {p + pos + 16, r.size - 16u}, loader_, &env_);
            if (!s) env_.warnings.push_back(fmt::format("feature {} at offset {:#x}: {}", FeatureName(static_cast<int>(feat)), pos, s.error().message));
          }
        }
        break;
      case kRecordHeaderBuildId: {
        BuildIdEvent b;
        size_t sz;
        if (DecodeBuildIdEntry(r.data, r.size, loader_, &b, &sz))
          env_.build_ids.push_back({b.misc, b.pid, b.build_id, std::string(b.filename)});
        break;
      }
      case kRecordHeaderTracingData:
        if (r.size >= 12) extra = loader_.U32(p + pos + 8);
        break;
      case kRecordAuxtrace:
        if (r.size >= 16) extra = loader_.U64(p + pos + 8);
        break;
      default: break;
    }
    if (extra > end - pos - r.size) break;
    pos += r.size + extra;
  }
  // EVENT_UPDATE and ID_INDEX need the attrs (and their id index) first.
  IndexIds();
  pos = data_offset_;
  while (pos + 8 <= end) {
    RecordView r;
    r.type = loader_.U32(p + pos);
    r.misc = loader_.U16(p + pos + 4);
    r.size = loader_.U16(p + pos + 6);
    r.data = p + pos;
    r.file_offset = pos;
    if (r.size < 8 || r.size > end - pos) break;
    uint64_t extra = 0;
    if (r.type == kRecordEventUpdate) ApplyEventUpdate(r);
    else if (r.type == kRecordIdIndex) ApplyIdIndex(r);
    else if (r.type == kRecordHeaderTracingData && r.size >= 12) extra = loader_.U32(p + pos + 8);
    else if (r.type == kRecordAuxtrace && r.size >= 16) extra = loader_.U64(p + pos + 8);
    if (extra > end - pos - r.size) break;
    pos += r.size + extra;
  }
  if (evsels_.empty()) return Err("{}: pipe-mode file has no HEADER_ATTR record", path());
  return Status::Ok();
}

void PerfFile::AddHeaderAttr(const RecordView& r) {
  if (r.size < 8 + 64) return;
  auto attr = ParseEventAttr({r.body(), r.body_size()}, loader_);
  if (!attr) {
    env_.warnings.push_back(fmt::format("ATTR record at offset {:#x}: {}", r.file_offset, attr.error().message));
    return;
  }
  Evsel ev;
  ev.index = static_cast<int>(evsels_.size());
  ev.attr = *attr;
  uint32_t asz = AttrDiskSize(attr->size);
  for (size_t off = asz; off + 8 <= r.body_size(); off += 8) ev.ids.push_back(loader_.U64(r.body() + off));
  evsels_.push_back(std::move(ev));
}

void PerfFile::ApplyEventUpdate(const RecordView& r) {
  // struct perf_record_event_update { header; u64 type; u64 id; data }
  if (r.size < 24) return;
  uint64_t type = loader_.U64(r.data + 8);
  uint64_t id = loader_.U64(r.data + 16);
  if (type != 2) return;  // PERF_EVENT_UPDATE__NAME
  std::string_view name;
  if (!BoundedString(r.data + 24, r.size - 24u, &name)) return;
  // Through the id index: scanning every id of every attr per record is quadratic.
  auto it = id_to_evsel_.find(id);
  if (it != id_to_evsel_.end()) evsels_[it->second].name = std::string(name);
}

void PerfFile::ApplyIdIndex(const RecordView& r) {
  // PERF_RECORD_ID_INDEX entries are {id, idx, cpu, tid}: `idx` is the mmap (cpu/thread)
  // index, not the evsel index. perf_event__process_id_index only annotates ids that the
  // attrs already map to an evsel, so it never changes the id -> evsel table.
  (void)r;
}

void PerfFile::FinishEvsels() {
  // Names: EVENT_DESC (file mode) pairs by index, else EVENT_UPDATE, else synthesized.
  for (size_t i = 0; i < evsels_.size(); ++i) {
    if (evsels_[i].name.empty() && i < env_.event_desc.size()) evsels_[i].name = env_.event_desc[i].name;
    if (evsels_[i].name.empty()) evsels_[i].name = SynthesizeEvselName(evsels_[i].attr);
    if (HasControlChars(evsels_[i].name)) evsels_[i].name = EscapeControl(evsels_[i].name);
  }
  IndexIds();
  sample_time_offsets_.clear();
  basics_layouts_.clear();
  for (const Evsel& ev : evsels_) {
    basics_layouts_.push_back(MakeSampleBasicsLayout(ev.attr));
    const uint64_t st = ev.attr.sample_type;
    sample_time_offsets_.push_back(
        (st & kSampleTime) ? 8u + 8u * static_cast<uint32_t>(std::popcount(st & (kSampleIdentifier | kSampleIp | kSampleTid))) : 0u);
  }
  if (!evsels_.empty()) {
    const uint64_t st = evsels_[0].attr.sample_type;
    sample_id_all_ = evsels_[0].attr.sample_id_all();
    if (st & kSampleIdentifier) {
      id_pos_ = 0;
      is_pos_ = 1;
    } else if (st & kSampleId) {
      id_pos_ = std::popcount(st & (kSampleIp | kSampleTid | kSampleTime | kSampleAddr));
      is_pos_ = 1 + ((st & kSampleCpu) ? 1 : 0) + ((st & kSampleStreamId) ? 1 : 0);
    }
  }
}

void PerfFile::IndexIds() {
  id_to_evsel_.clear();
  for (const auto& ev : evsels_)
    for (uint64_t id : ev.ids) id_to_evsel_.emplace(id, ev.index);
}

const Evsel* PerfFile::EvselForSample(const RecordView& r) const {
  if (evsels_.size() == 1) return &evsels_[0];
  if (evsels_.empty() || id_pos_ < 0) return evsels_.empty() ? nullptr : &evsels_[0];
  uint64_t off = 8 + 8ull * id_pos_;
  if (off + 8 > r.size) return nullptr;
  auto it = id_to_evsel_.find(loader_.U64(r.data + off));
  return it == id_to_evsel_.end() ? nullptr : &evsels_[it->second];
}

const Evsel* PerfFile::EvselForRecord(const RecordView& r) const {
  if (evsels_.size() == 1) return &evsels_[0];
  if (evsels_.empty()) return nullptr;
  if (!sample_id_all_ || is_pos_ < 0) return &evsels_[0];
  if (r.size < 8 + 8u * is_pos_) return nullptr;
  auto it = id_to_evsel_.find(loader_.U64(r.data + r.size - 8u * is_pos_));
  return it == id_to_evsel_.end() ? &evsels_[0] : &evsels_[it->second];
}

uint64_t PerfFile::RecordTime(const RecordView& r) const {
  if (r.type == kRecordSample) {
    const Evsel* ev = EvselForSample(r);
    if (!ev || static_cast<size_t>(ev->index) >= sample_time_offsets_.size()) return 0;
    const uint32_t off = sample_time_offsets_[static_cast<size_t>(ev->index)];
    return off && off + 8u <= r.size ? loader_.U64(r.data + off) : 0;
  }
  if (r.type >= 64 || !sample_id_all_) return 0;
  const Evsel* ev = EvselForRecord(r);
  if (!ev || !(ev->attr.sample_type & kSampleTime)) return 0;
  SampleId sid;
  if (!DecodeSampleIdTrailer(r, ev->attr.sample_type, loader_, &sid)) return 0;
  return sid.time;
}

SampleError PerfFile::ParseSample(const RecordView& r, Sample* out, const Evsel** evsel) const {
  const Evsel* ev = EvselForSample(r);
  *evsel = ev;
  if (!ev) return SampleError::kNone;
  return DecodeSample(r, ev->attr, loader_, out);
}

// ---------------------------------------------------------------------------------------
// Record stream

namespace {

// Decompresses COMPRESSED/COMPRESSED2 payloads as one zstd stream and keeps the
// produced records alive (they may sit in the ordering queue) in stable chunks.
class Decompressor {
 public:
  explicit Decompressor(uint64_t cap) : cap_(cap) {}
  ~Decompressor() {
    if (ds_) ZSTD_freeDStream(ds_);
  }
  // Appends the decompressed bytes of `in` to the pending buffer. Returns false with
  // *error set on zstd failure or when the cap is reached.
  bool Feed(const uint8_t* in, size_t n, uint64_t* total_out, std::string* error) {
    if (!ds_) {
      ds_ = ZSTD_createDStream();
      ZSTD_initDStream(ds_);
    }
    ZSTD_inBuffer ib{in, n, 0};
    while (ib.pos < ib.size) {
      if (pending_.capacity() - pending_.size() < 65536) pending_.reserve(pending_.size() * 2 + (1 << 20));
      size_t old = pending_.size();
      pending_.resize(pending_.capacity());
      ZSTD_outBuffer ob{pending_.data() + old, pending_.size() - old, 0};
      size_t rc = ZSTD_decompressStream(ds_, &ob, &ib);
      pending_.resize(old + ob.pos);
      *total_out += ob.pos;
      if (ZSTD_isError(rc)) {
        *error = fmt::format("zstd: {}", ZSTD_getErrorName(rc));
        return false;
      }
      if (*total_out > cap_) {
        *error = fmt::format("decompressed data exceeds the {}-byte cap", cap_);
        return false;
      }
      if (ob.pos == 0 && ib.pos < ib.size && rc != 0) continue;
      if (ob.pos == 0 && rc == 0 && ib.pos < ib.size) {
        // A new frame follows in the same payload.
        continue;
      }
    }
    return true;
  }
  std::vector<uint8_t>& pending() { return pending_; }
  // Moves the first `n` pending bytes into a stable chunk of `chunks` and returns it.
  const std::vector<uint8_t>& Commit(size_t n, std::deque<std::vector<uint8_t>>* chunks) {
    chunks->emplace_back(pending_.begin(), pending_.begin() + static_cast<long>(n));
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<long>(n));
    return chunks->back();
  }

 private:
  ZSTD_DStream* ds_ = nullptr;
  uint64_t cap_;
  std::vector<uint8_t> pending_;
};

}  // namespace

Status PerfFile::ReadRecords(const RecordCallback& cb, ReadStats* stats) {
  const Loader& ld = loader_;
  OrderedQueue queue;
  const bool ordered = options_.ordered;
  Decompressor decomp(options_.max_decompressed_bytes);
  decompressed_chunks_.clear();  // the last call's records are no longer valid
  bool decomp_failed = false;

  auto count = [&](const RecordView& r) {
    ++stats->nr_records_total;
    if (r.type < 128) ++stats->nr_records[r.type];
    else ++stats->nr_unknown_type;
  };
  auto deliver = [&](const RecordView& r) { cb(r); };

  // Handles one well-framed record (from the file or from decompressed data). A
  // generic lambda given itself (not a std::function: an indirect call per record).
  auto handle_compressed = [&](const RecordView& r, auto& dispatch) {
    if (decomp_failed) return;
    const uint8_t* payload;
    size_t n;
    if (r.type == kRecordCompressed) {
      payload = r.data + 8;
      n = r.size - 8u;
    } else {
      if (r.size < 16) {
        ++stats->nr_bad_records;
        Warn(stats, fmt::format("{} at offset {:#x}: record too short ({} bytes)", TypeLabel(r.type), r.file_offset, r.size));
        return;
      }
      uint64_t data_size = ld.U64(r.data + 8);
      if (data_size > r.size - 16u) {
        ++stats->nr_bad_records;
        Warn(stats, fmt::format("{} at offset {:#x}: data_size {} exceeds the record size {}", TypeLabel(r.type),
                                r.file_offset, data_size, r.size));
        return;
      }
      payload = r.data + 16;
      n = data_size;
    }
    stats->compressed_bytes += n;
    std::string err;
    if (!decomp.Feed(payload, n, &stats->decompressed_bytes, &err)) {
      decomp_failed = true;
      Warn(stats, fmt::format("{} at offset {:#x}: {}; compressed data after it ignored", TypeLabel(r.type),
                              r.file_offset, err));
      ++stats->nr_bad_records;
      return;
    }
    // Parse the complete records at the front of the pending buffer.
    auto& pend = decomp.pending();
    size_t pos = 0;
    while (pos + 8 <= pend.size()) {
      uint16_t sz = ld.U16(pend.data() + pos + 6);
      if (sz < 8) {
        decomp_failed = true;
        ++stats->nr_bad_records;
        Warn(stats, fmt::format("record of size {} inside {} at offset {:#x}; compressed data after it ignored", sz,
                                TypeLabel(r.type), r.file_offset));
        pend.clear();
        return;
      }
      if (pos + sz > pend.size()) break;
      pos += sz;
    }
    if (pos == 0) return;
    const auto& chunk = decomp.Commit(pos, &decompressed_chunks_);
    size_t q = 0;
    while (q < chunk.size()) {
      RecordView in;
      in.type = ld.U32(chunk.data() + q);
      in.misc = ld.U16(chunk.data() + q + 4);
      in.size = ld.U16(chunk.data() + q + 6);
      in.data = chunk.data() + q;
      in.file_offset = r.file_offset;
      in.compressed = true;
      q += in.size;
      if (in.type == kRecordCompressed || in.type == kRecordCompressed2) {
        ++stats->nr_bad_records;
        Warn(stats, fmt::format("nested {} inside the compressed record at offset {:#x}; skipped", TypeLabel(in.type), r.file_offset));
        continue;
      }
      dispatch(in, dispatch);
    }
  };

  const uint32_t single_time_off = evsels_.size() == 1 && !sample_time_offsets_.empty() ? sample_time_offsets_[0] : 0;
  auto dispatch_impl = [&](const RecordView& r, auto& self) -> void {
    count(r);
    if (r.type >= 64) {
      if (r.type == kRecordFinishedRound) {
        deliver(r);
        if (ordered) queue.FlushRound(deliver);
        return;
      }
      if (r.type == kRecordCompressed || r.type == kRecordCompressed2) {
        deliver(r);
        handle_compressed(r, self);
        return;
      }
      deliver(r);
      return;
    }
    if (!ordered) return deliver(r);
    // RecordTime, with the common case (a sample of the only evsel) inline.
    uint64_t t;
    if (r.type == kRecordSample && single_time_off != 0) {
      t = single_time_off + 8u <= r.size ? ld.U64(r.data + single_time_off) : 0;
    } else {
      t = RecordTime(r);
    }
    if (t == 0 || t == UINT64_MAX) return deliver(r);
    if (queue.Push(t, r)) ++stats->nr_unordered;
  };
  auto dispatch = [&](const RecordView& r) { dispatch_impl(r, dispatch_impl); };

  const uint8_t* p = file_.data();
  uint64_t pos = data_offset_;
  const uint64_t end = data_offset_ + data_size_;
  while (pos < end) {
    if (end - pos < 8) {
      stats->stopped = Err("{} trailing bytes at offset {:#x} do not hold a record header", end - pos, pos);
      break;
    }
    RecordView r;
    r.type = ld.U32(p + pos);
    r.misc = ld.U16(p + pos + 4);
    r.size = ld.U16(p + pos + 6);
    r.data = p + pos;
    r.file_offset = pos;
    if (r.size < 8) {
      stats->stopped = Err("bad record size {} at offset {:#x} ({}); stopped reading", r.size, pos, TypeLabel(r.type));
      break;
    }
    if (r.size > end - pos) {
      stats->stopped = Err("{} at offset {:#x} has size {} but only {} bytes remain: file truncated", TypeLabel(r.type),
                           pos, r.size, end - pos);
      break;
    }
    uint64_t extra = 0;  // payload that follows the record outside header.size
    if (r.type == kRecordAuxtrace && r.size >= 16) extra = ld.U64(p + pos + 8);
    if (r.type == kRecordHeaderTracingData && pipe_mode_ && r.size >= 12) extra = ld.U32(p + pos + 8);
    if (extra > end - pos - r.size) {
      stats->stopped = Err("{} at offset {:#x} announces {} bytes of trailing data past the end of the file",
                           TypeLabel(r.type), pos, extra);
      dispatch(r);
      break;
    }
    dispatch(r);
    pos += r.size + extra;
  }
  if (ordered) queue.FlushAll(deliver);
  return Status::Ok();
}

}  // namespace perflens
