#include "perfdata/perf_file.h"

#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
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
constexpr uint64_t kMaxEvsels = 1 << 16;

void Warn(ReadStats* st, std::string msg) {
  if (st->warnings.size() < kMaxWarnings) st->warnings.push_back(std::move(msg));
}

std::string TypeLabel(uint32_t type) {
  return fmt::format("{} (type {})", RecordTypeName(type), type);
}

// The record whose 8-byte header is at `p`, found at `perf_data_offset`.
RecordView ViewAt(const Loader& ld, const uint8_t* p, uint64_t perf_data_offset) {
  RecordView r;
  r.type = ld.U32(p);
  r.misc = ld.U16(p + 4);
  r.size = ld.U16(p + 6);
  r.data = p;
  r.perf_data_offset = perf_data_offset;
  return r;
}

// Payload bytes that follow `r` outside header.size: AUXTRACE data, and in pipe mode
// the tracing data of HEADER_TRACING_DATA.
uint64_t TrailingBytes(const Loader& ld, const RecordView& r, bool pipe) {
  if (r.type == kRecordAuxtrace && r.size >= 16) return ld.U64(r.data + 8);
  if (r.type == kRecordHeaderTracingData && pipe && r.size >= 12) return ld.U32(r.data + 8);
  return 0;
}

}  // namespace

bool HeaderEnv::Has(int feature) const {
  return std::find(features_present.begin(), features_present.end(), feature) != features_present.end();
}

Result<std::unique_ptr<PerfFile>> PerfFile::Open(const std::string& path, const ReaderOptions& options) {
  if (path == "-") {
    // Standard input redirected from a file is mapped like one; a pipe is streamed.
    struct stat st;
    if (fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode)) {
      auto bytes = MappedFile::MapFd(STDIN_FILENO, "<stdin>");
      if (!bytes) return bytes.error();
      return FromBytes(std::move(*bytes), options);
    }
    return FromStream(STDIN_FILENO, "<stdin>", options);
  }
  auto bytes = MappedFile::Open(path);
  if (!bytes) return bytes.error();
  // perf's open_file_read: only files of the current user or root, unless forced.
  if (!options.force && bytes->owner_uid() != 0 && bytes->owner_uid() != static_cast<int64_t>(geteuid()))
    return Err("{}: not owned by the current user or root (owner uid {}); use -f/--force to read it anyway", path,
               bytes->owner_uid());
  return FromBytes(std::move(*bytes), options);
}

namespace {

// Reads up to `n` bytes from `fd` into `out` (EINTR retried). Returns the count, 0 at
// end of input, or an error.
Result<size_t> ReadSome(int fd, uint8_t* out, size_t n, const std::string& name) {
  for (;;) {
    ssize_t got = ::read(fd, out, n);
    if (got >= 0) return static_cast<size_t>(got);
    if (errno == EINTR) continue;
    return Err("{}: read: {}", name, strerror(errno));
  }
}

// Reads from `fd` until `buf` holds at least `want` bytes or input ends; false at end.
Result<bool> FillTo(int fd, std::vector<uint8_t>* buf, size_t want, const std::string& name) {
  while (buf->size() < want) {
    size_t old = buf->size();
    buf->resize(std::max(want, old + (64 << 10)));
    auto got = ReadSome(fd, buf->data() + old, buf->size() - old, name);
    if (!got) {
      buf->resize(old);
      return got.error();
    }
    buf->resize(old + *got);
    if (*got == 0) return false;
  }
  return true;
}

bool IsStreamHeaderType(uint32_t type) {
  return type == kRecordHeaderAttr || type == kRecordHeaderEventType || type == kRecordHeaderTracingData ||
         type == kRecordHeaderBuildId || type == kRecordHeaderFeature || type == kRecordEventUpdate ||
         type == kRecordIdIndex || type == kRecordFinishedRound || type == kRecordTimeConv ||
         type == kRecordStatConfig || type == kRecordThreadMap || type == kRecordCpuMap;
}

}  // namespace

Result<std::unique_ptr<PerfFile>> PerfFile::FromStream(int fd, const std::string& name, const ReaderOptions& options) {
  std::unique_ptr<PerfFile> f(new PerfFile());
  f->file_ = MappedFile::FromBuffer({}, name);
  f->options_ = options;
  f->stream_fd_ = fd;
  f->pipe_mode_ = true;
  f->header_size_ = kPipeHeaderSize;
  f->data_offset_ = kPipeHeaderSize;
  std::vector<uint8_t>& head = f->stream_head_;
  // The magic first, as soon as it arrives: garbage is refused before more is read.
  auto more = FillTo(fd, &head, 8, name);
  if (!more) return more.error();
  if (head.size() < 8) return Err("{}: not a perf.data file: {} bytes, shorter than any perf header", name, head.size());
  uint64_t magic;
  std::memcpy(&magic, head.data(), 8);
  if (magic == kMagic2) f->loader_.swap = false;
  else if (magic == kMagic2Swapped) f->loader_.swap = true;
  else if (magic == kMagic1) f->legacy_v1_ = true;
  else return Err("{}: not a perf.data file (bad magic at offset 0)", name);
  more = FillTo(fd, &head, kPipeHeaderSize, name);
  if (!more) return more.error();
  if (head.size() < kPipeHeaderSize) return Err("{}: stream ends inside the 16-byte pipe header", name);
  uint64_t raw = Loader{false}.U64(head.data() + 8);
  if (f->legacy_v1_) f->loader_.swap = raw != kPipeHeaderSize;
  if (f->loader_.U64(head.data() + 8) != kPipeHeaderSize)
    return Err("{}: a stream must be a pipe-mode recording (header size {} at offset 0x8, expected 16); record "
               "with -o - or pass the file with -i",
               name, f->loader_.U64(head.data() + 8));
  // Header records up to the first kernel record: attrs, features, event names.
  uint64_t pos = kPipeHeaderSize;
  ReadStats ignored;
  for (;;) {
    more = FillTo(fd, &head, pos + 8, name);
    if (!more) return more.error();
    if (!*more) break;
    const uint32_t type = f->loader_.U32(head.data() + pos);
    const uint16_t size = f->loader_.U16(head.data() + pos + 6);
    if (type < 64 || !IsStreamHeaderType(type) || size < 8) break;
    more = FillTo(fd, &head, pos + size, name);
    if (!more) return more.error();
    if (!*more) break;
    RecordView r = ViewAt(f->loader_, head.data() + pos, pos);
    if (TrailingBytes(f->loader_, r, true)) break;  // tracing data can be megabytes: ReadRecords skips it
    f->ApplyHeaderRecord(r, false, &ignored);
    pos += size;
  }
  f->stream_header_end_ = pos;
  f->stream_size_ = head.size();
  if (f->evsels_.empty()) return Err("{}: pipe-mode stream has no HEADER_ATTR record before its data", name);
  f->FinishEvsels();
  return f;
}

void PerfFile::ApplyHeaderRecord(const RecordView& r, bool after_header, ReadStats* stats) {
  switch (r.type) {
    case kRecordHeaderAttr:
      if (after_header) {
        if (stats->warnings.size() < kMaxWarnings)
          stats->warnings.push_back(fmt::format("HEADER_ATTR at offset {:#x} comes after the stream's first kernel "
                                                "record; its event is not reported",
                                                r.perf_data_offset));
        return;
      }
      AddHeaderAttr(r);
      if (!evsels_.empty())  // index the new evsel's ids (IndexIds per attr is quadratic)
        for (uint64_t id : evsels_.back().ids) id_to_evsel_.emplace(id, evsels_.back().index);
      return;
    case kRecordHeaderFeature:
      if (r.size >= 16) {
        uint64_t feat = loader_.U64(r.data + 8);
        if (feat < kFeatMaxBits) {
          env_.features_present.push_back(static_cast<int>(feat));
          Status s = ParseFeature(static_cast<int>(feat), {r.data + 16, r.size - 16u}, loader_, &env_);
          if (!s)
            env_.warnings.push_back(fmt::format("feature {} at offset {:#x}: {}", FeatureName(static_cast<int>(feat)),
                                                r.perf_data_offset, s.error().message));
        }
      }
      return;
    case kRecordHeaderBuildId: {
      BuildIdEvent b;
      size_t sz;
      if (DecodeBuildIdEntry(r.data, r.size, loader_, &b, &sz))
        env_.build_ids.push_back({b.misc, b.pid, b.build_id, std::string(b.filename)});
      return;
    }
    case kRecordEventUpdate: ApplyEventUpdate(r); return;
    default: return;
  }
}

Result<std::unique_ptr<PerfFile>> PerfFile::FromBytes(MappedFile bytes, const ReaderOptions& options) {
  std::unique_ptr<PerfFile> f(new PerfFile());
  f->file_ = std::move(bytes);
  f->options_ = options;
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
  uint64_t nr_attrs = attrs_size / attr_size_;
  // Each evsel costs a few hundred bytes here and a histogram in a report: a file of
  // two million 80-byte attrs took 2 GB. perf records far fewer.
  if (nr_attrs > kMaxEvsels)
    return Err("{}: attrs section at {:#x} holds {} attrs, more than the {} events perflens reads", path(), attrs_off,
               nr_attrs, kMaxEvsels);
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
  if (header_size_ >= kFileHeaderSize) {
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
  if (data_size_ == 0 && n > data_offset_ && !IsFeatureIndexAt(data_offset_, bits.size())) {
    // perf record writes data_size and the feature sections when it finishes: a file
    // it is still writing, or that it left when killed, has 0 here and records up to
    // the end of the file. Read those; the feature bits were set at the start but no
    // index was written (it would be read from the first records). A finished file
    // with no records has its feature index right there instead.
    unfinished_ = true;
    data_size_ = n - data_offset_;
    env_.warnings.push_back(fmt::format("data size is 0 in the header: the recording was not finished (perf record "
                                        "still running or killed); reading the {} bytes after offset {:#x} as "
                                        "records, without header features",
                                        data_size_, data_offset_));
    bits.clear();
  }

  return ParseFeatures(bits);
}

bool PerfFile::IsFeatureIndexAt(uint64_t at, size_t nr) const {
  const uint64_t n = file_.size();
  if (nr == 0 || !FitsIn(at, nr * 16, n)) return false;
  for (size_t i = 0; i < nr; ++i) {
    const uint64_t off = loader_.U64(file_.data() + at + 16 * i), size = loader_.U64(file_.data() + at + 16 * i + 8);
    if (off < at + nr * 16 || !FitsIn(off, size, n)) return false;
  }
  return true;
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
  ReadStats ignored;
  while (pos + 8 <= end) {
    RecordView r = ViewAt(loader_, p + pos, pos);
    if (r.size < 8 || r.size > end - pos) break;  // ReadRecords reports it
    if (r.type == kRecordHeaderAttr || r.type == kRecordHeaderFeature || r.type == kRecordHeaderBuildId)
      ApplyHeaderRecord(r, false, &ignored);
    const uint64_t extra = TrailingBytes(loader_, r, true);
    if (extra > end - pos - r.size) break;
    pos += r.size + extra;
  }
  // EVENT_UPDATE and ID_INDEX need the attrs (and their id index) first.
  IndexIds();
  pos = data_offset_;
  while (pos + 8 <= end) {
    RecordView r = ViewAt(loader_, p + pos, pos);
    if (r.size < 8 || r.size > end - pos) break;
    if (r.type == kRecordEventUpdate) ApplyEventUpdate(r);
    else if (r.type == kRecordIdIndex) ApplyIdIndex(r);
    const uint64_t extra = TrailingBytes(loader_, r, true);
    if (extra > end - pos - r.size) break;
    pos += r.size + extra;
  }
  if (evsels_.empty()) return Err("{}: pipe-mode file has no HEADER_ATTR record", path());
  return Status::Ok();
}

void PerfFile::AddHeaderAttr(const RecordView& r) {
  if (r.size < 8 + 64) return;
  if (evsels_.size() >= kMaxEvsels) {
    if (!too_many_attrs_)
      env_.warnings.push_back(fmt::format("ATTR record at offset {:#x}: more than {} events; the rest are ignored",
                                          r.perf_data_offset, kMaxEvsels));
    too_many_attrs_ = true;
    return;
  }
  auto attr = ParseEventAttr({r.body(), r.body_size()}, loader_);
  if (!attr) {
    env_.warnings.push_back(fmt::format("ATTR record at offset {:#x}: {}", r.perf_data_offset, attr.error().message));
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
  // Escaped here, as FinishEvsels does, since a stream applies names after it.
  if (it != id_to_evsel_.end()) evsels_[it->second].name = EscapeControl(name);
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

// Bytes the reader owns (decompressed records, pipe input), in chunks whose records may
// wait in the ordering queue. A chunk is freed once sealed (nothing more is framed from
// it) and every queued record of it has been delivered, so what is alive is what the
// queue pins, not what was read.
class ChunkPool {
 public:
  // Takes `bytes` (capacity `capacity`) as a new chunk; ids start at 1.
  uint32_t Add(std::unique_ptr<uint8_t[]> bytes, size_t capacity) {
    chunks_.push_back({std::move(bytes), capacity, 0, false});
    live_bytes_ += capacity;
    return static_cast<uint32_t>(base_ + chunks_.size() - 1);
  }
  uint8_t* data(uint32_t id) { return At(id).bytes.get(); }
  void Hold(uint32_t id) { ++At(id).refs; }
  void Release(uint32_t id) {
    Chunk& c = At(id);
    if (--c.refs == 0 && c.sealed) Free(c);
  }
  void Seal(uint32_t id) {
    Chunk& c = At(id);
    c.sealed = true;
    if (c.refs == 0) Free(c);
  }
  uint64_t live_bytes() const { return live_bytes_; }

 private:
  struct Chunk {
    std::unique_ptr<uint8_t[]> bytes;
    size_t capacity;
    uint64_t refs;
    bool sealed;
  };
  Chunk& At(uint32_t id) { return chunks_[id - base_]; }
  void Free(Chunk& c) {
    live_bytes_ -= c.capacity;
    c.bytes.reset();
    c.capacity = 0;
    while (!chunks_.empty() && chunks_.front().sealed && chunks_.front().refs == 0) {
      chunks_.pop_front();
      ++base_;
    }
  }
  std::deque<Chunk> chunks_;
  uint64_t base_ = 1;
  uint64_t live_bytes_ = 0;
};

// Output window of one decompression step: a COMPRESSED payload (at most 64 KiB) can
// expand to gigabytes, so it is decompressed, framed and delivered a window at a time.
constexpr size_t kDecompressWindow = 1 << 20;
// Floor and ratio of the default decompression cap (ReaderOptions).
constexpr uint64_t kDecompressCapFloor = 256ULL << 20;
constexpr uint64_t kDecompressCapRatio = 100;
// Pipe input is read into chunks of this size (a record is at most 64 KiB).
constexpr size_t kStreamChunk = 1 << 20;

struct ZstdStream {
  ZSTD_DStream* ds = nullptr;
  ~ZstdStream() {
    if (ds) ZSTD_freeDStream(ds);
  }
};

}  // namespace

Status PerfFile::ReadRecords(const RecordCallback& cb, ReadStats* stats) {
  const Loader& ld = loader_;
  if (streaming()) {
    if (stream_read_) return Err("{}: a stream can be read once", path());
    stream_read_ = true;
  }
  OrderedQueue queue;
  ChunkPool pool;
  const bool ordered = options_.ordered;
  ZstdStream zstd;
  std::vector<uint8_t> pending;  // decompressed bytes after the last whole record
  bool decomp_failed = false;
  bool forced_flush_warned = false;

  auto count = [&](const RecordView& r) {
    ++stats->nr_records_total;
    if (r.type < 128) ++stats->nr_records[r.type];
    else ++stats->nr_unknown_type;
  };
  auto deliver = [&](const RecordView& r) { cb(r); };
  // Delivery out of the queue: the record no longer pins its chunk.
  uint64_t owned_queued = 0;  // queued records whose bytes are in the pool
  auto deliver_queued = [&](const RecordView& r) {
    cb(r);
    if (r.chunk) {
      pool.Release(r.chunk);
      --owned_queued;
    }
  };
  auto push = [&](uint64_t t, const RecordView& r) {
    if (queue.Push(t, r)) ++stats->nr_unordered;
    if (!r.chunk) return;  // a view into the file: memory bounded by the file itself
    pool.Hold(r.chunk);
    ++owned_queued;
    // perf's ordered_events flushes when it reaches its allocation limit; here the
    // limit counts the owned bytes the queue pins and the queue entries pinning them.
    if (owned_queued * sizeof(RecordView) * 3 / 2 + pool.live_bytes() > options_.max_queued_bytes) {
      if (!forced_flush_warned) {
        forced_flush_warned = true;
        Warn(stats, fmt::format("the ordering queue reached {} MiB at the record at offset {:#x} (no FINISHED_ROUND "
                                "for that long); records pending then were delivered without waiting for the round",
                                options_.max_queued_bytes >> 20, r.perf_data_offset));
      }
      queue.FlushAll(deliver_queued);
    }
  };

  const uint64_t cap_fixed = options_.max_decompressed_bytes;
  // Decompresses one COMPRESSED/COMPRESSED2 record a window at a time and dispatches
  // the records of each window. A generic lambda given the dispatcher (not a
  // std::function: an indirect call per record).
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
        Warn(stats, fmt::format("{} at offset {:#x}: record too short ({} bytes)", TypeLabel(r.type), r.perf_data_offset, r.size));
        return;
      }
      uint64_t data_size = ld.U64(r.data + 8);
      if (data_size > r.size - 16u) {
        ++stats->nr_bad_records;
        Warn(stats, fmt::format("{} at offset {:#x}: data_size {} exceeds the record size {}", TypeLabel(r.type),
                                r.perf_data_offset, data_size, r.size));
        return;
      }
      payload = r.data + 16;
      n = data_size;
    }
    stats->compressed_bytes += n;
    const uint64_t cap =
        cap_fixed ? cap_fixed : std::max(kDecompressCapFloor, kDecompressCapRatio * stats->compressed_bytes);
    auto fail = [&](std::string what) {
      decomp_failed = true;
      pending.clear();
      ++stats->nr_bad_records;
      Warn(stats, fmt::format("{} at offset {:#x}: {}; compressed data after it ignored", TypeLabel(r.type),
                              r.perf_data_offset, what));
    };
    if (!zstd.ds) {
      zstd.ds = ZSTD_createDStream();
      ZSTD_initDStream(zstd.ds);
    }
    ZSTD_inBuffer ib{payload, n, 0};
    for (;;) {
      const size_t carried = pending.size();
      const size_t capacity = carried + kDecompressWindow;
      auto window = std::make_unique_for_overwrite<uint8_t[]>(capacity);
      if (carried) std::memcpy(window.get(), pending.data(), carried);
      ZSTD_outBuffer ob{window.get(), capacity, carried};
      const size_t in_before = ib.pos;
      size_t rc = ZSTD_decompressStream(zstd.ds, &ob, &ib);
      if (ZSTD_isError(rc)) return fail(fmt::format("zstd: {}", ZSTD_getErrorName(rc)));
      stats->decompressed_bytes += ob.pos - carried;
      if (stats->decompressed_bytes > cap)
        return fail(fmt::format("decompressed data exceeds the {}-byte cap ({} compressed bytes read){}", cap,
                                stats->compressed_bytes,
                                cap_fixed ? "" : fmt::format("; the cap is {}x the compressed bytes, at least {} MiB",
                                                             kDecompressCapRatio, kDecompressCapFloor >> 20)));
      // The whole records at the front of the window; the tail is carried over.
      size_t pos = 0;
      while (pos + 8 <= ob.pos) {
        uint16_t sz = ld.U16(window.get() + pos + 6);
        if (sz < 8) {
          return fail(fmt::format("record of size {} at byte {} of its decompressed data", sz,
                                  stats->decompressed_bytes - (ob.pos - pos)));
        }
        if (pos + sz > ob.pos) break;
        pos += sz;
      }
      pending.assign(window.get() + pos, window.get() + ob.pos);
      if (pos) {
        const uint32_t id = pool.Add(std::move(window), capacity);
        const uint8_t* chunk = pool.data(id);
        size_t q = 0;
        while (q < pos) {
          RecordView in = ViewAt(ld, chunk + q, r.perf_data_offset);
          in.compressed = true;
          in.chunk = id;
          q += in.size;
          if (in.type == kRecordCompressed || in.type == kRecordCompressed2) {
            ++stats->nr_bad_records;
            Warn(stats, fmt::format("nested {} inside the compressed record at offset {:#x}; skipped", TypeLabel(in.type),
                                    r.perf_data_offset));
            continue;
          }
          dispatch(in, dispatch);
        }
        pool.Seal(id);
      }
      const bool progress = ob.pos > carried || ib.pos > in_before;
      if ((ib.pos == ib.size && ob.pos < ob.size) || !progress) break;
    }
  };

  const uint32_t single_time_off = evsels_.size() == 1 && !sample_time_offsets_.empty() ? sample_time_offsets_[0] : 0;
  auto dispatch_impl = [&](const RecordView& r, auto& self) -> void {
    count(r);
    if (r.type >= 64) {
      if (r.type == kRecordFinishedRound) {
        deliver(r);
        if (ordered) queue.FlushRound(deliver_queued);
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
    push(t, r);
  };
  auto dispatch = [&](const RecordView& r) { dispatch_impl(r, dispatch_impl); };

  if (!streaming()) {
    const uint8_t* p = file_.data();
    uint64_t pos = data_offset_;
    const uint64_t end = data_offset_ + data_size_;
    while (pos < end) {
      if (end - pos < 8) {
        stats->stopped = Err("{} trailing bytes at offset {:#x} do not hold a record header", end - pos, pos);
        break;
      }
      RecordView r = ViewAt(ld, p + pos, pos);
      if (r.size < 8) {
        stats->stopped = Err("bad record size {} at offset {:#x} ({}); stopped reading", r.size, pos, TypeLabel(r.type));
        break;
      }
      if (r.size > end - pos) {
        stats->stopped = Err("{} at offset {:#x} has size {} but only {} bytes remain: file truncated", TypeLabel(r.type),
                             pos, r.size, end - pos);
        break;
      }
      const uint64_t extra = TrailingBytes(ld, r, pipe_mode_);
      if (extra > end - pos - r.size) {
        stats->stopped = Err("{} at offset {:#x} announces {} bytes of trailing data past the end of the file",
                             TypeLabel(r.type), pos, extra);
        dispatch(r);
        break;
      }
      dispatch(r);
      pos += r.size + extra;
    }
    if (ordered) queue.FlushAll(deliver_queued);
    return Status::Ok();
  }

  // A pipe: frame records out of chunks read as they arrive. The first chunk starts
  // with what FromStream read.
  const int fd = stream_fd_;
  size_t capacity = std::max(kStreamChunk, stream_head_.size());
  uint32_t cur;
  {
    auto first = std::make_unique_for_overwrite<uint8_t[]>(capacity);
    std::memcpy(first.get(), stream_head_.data(), stream_head_.size());
    cur = pool.Add(std::move(first), capacity);
  }
  uint8_t* buf = pool.data(cur);
  size_t filled = stream_head_.size(), pos = kPipeHeaderSize;
  uint64_t base = 0;  // stream offset of buf[0]
  std::vector<uint8_t>().swap(stream_head_);
  // At least `n` bytes at buf + pos, moving the unread tail to a new chunk when the
  // current one has no room; false when the input ends first.
  auto ensure = [&](size_t n) -> Result<bool> {
    if (filled - pos >= n) return true;
    if (capacity - pos < n) {
      const size_t tail = filled - pos, next_capacity = std::max(kStreamChunk, n);
      auto next = std::make_unique_for_overwrite<uint8_t[]>(next_capacity);
      std::memcpy(next.get(), buf + pos, tail);
      const uint32_t old = cur;
      cur = pool.Add(std::move(next), next_capacity);
      pool.Seal(old);
      buf = pool.data(cur);
      capacity = next_capacity;
      base += pos;
      filled = tail;
      pos = 0;
    }
    while (filled - pos < n) {
      auto got = ReadSome(fd, buf + filled, capacity - filled, path());
      if (!got) return got.error();
      if (*got == 0) return false;
      filled += *got;
      stream_size_ = base + filled;
    }
    return true;
  };
  for (;;) {
    auto have = ensure(8);
    if (!have) {
      stats->stopped = have.error();
      break;
    }
    if (!*have) {
      if (filled > pos)
        stats->stopped = Err("{} trailing bytes at offset {:#x} do not hold a record header", filled - pos, base + pos);
      break;
    }
    RecordView r = ViewAt(ld, buf + pos, base + pos);
    if (r.size < 8) {
      stats->stopped = Err("bad record size {} at offset {:#x} ({}); stopped reading", r.size, base + pos,
                           TypeLabel(r.type));
      break;
    }
    have = ensure(r.size);
    if (!have) {
      stats->stopped = have.error();
      break;
    }
    if (!*have) {
      stats->stopped = Err("{} at offset {:#x} has size {} but the stream ends after {} bytes: truncated",
                           TypeLabel(r.type), base + pos, r.size, filled - pos);
      break;
    }
    r.data = buf + pos;  // ensure() may have moved the bytes to a new chunk
    r.chunk = cur;
    uint64_t extra = TrailingBytes(ld, r, true);
    if (r.type >= 64 && r.perf_data_offset >= stream_header_end_) ApplyHeaderRecord(r, true, stats);
    dispatch(r);
    pos += r.size;
    // Trailing payloads (AUX data, tracing data) are not kept: skipped as they arrive.
    while (extra > 0) {
      if (pos == capacity) {
        // The chunk is used up: go on in a new, empty one.
        base += pos;
        filled = pos = 0;
        const uint32_t old = cur;
        cur = pool.Add(std::make_unique_for_overwrite<uint8_t[]>(kStreamChunk), kStreamChunk);
        pool.Seal(old);
        buf = pool.data(cur);
        capacity = kStreamChunk;
      }
      if (filled == pos) {
        auto got = ReadSome(fd, buf + pos, capacity - pos, path());
        if (!got) {
          stats->stopped = got.error();
          break;
        }
        if (*got == 0) {
          stats->stopped = Err("{} at offset {:#x} announces {} more bytes of trailing data than the stream holds",
                               TypeLabel(r.type), r.perf_data_offset, extra);
          break;
        }
        filled += *got;
        stream_size_ = base + filled;
      }
      const size_t skip = static_cast<size_t>(std::min<uint64_t>(extra, filled - pos));
      pos += skip;
      extra -= skip;
    }
    if (stats->stopped) break;
  }
  if (ordered) queue.FlushAll(deliver_queued);
  pool.Seal(cur);
  return Status::Ok();
}

}  // namespace perflens
