#include "perfdata/perf_header.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "base/text_escape.h"
#include "perfdata/perf_event.h"
#include "perfdata/record_cursor.h"

namespace perflens {
namespace {

constexpr uint64_t kMagic2 = 0x32454c4946524550ULL;        // "PERFILE2" read as LE u64
constexpr uint64_t kMagic2Swapped = 0x50455246494c4532ULL;
constexpr uint64_t kMagic1 = 0x454c494646524550ULL;        // "PERFFILE"
constexpr uint64_t kFileHeaderSize = 104;
constexpr uint64_t kMaxWarnings = 8;
constexpr uint64_t kMaxEvsels = Evlist::kMaxEvsels;

}  // namespace

bool HeaderEnv::Has(int feature) const {
  return std::find(features_present.begin(), features_present.end(), feature) != features_present.end();
}

Status PerfHeader::ReadMagic(const uint8_t* p, const std::string& name) {
  uint64_t magic;
  std::memcpy(&magic, p, 8);
  if (magic == kMagic2) loader_.swap = false;
  else if (magic == kMagic2Swapped) loader_.swap = true;
  else if (magic == kMagic1) legacy_v1_ = true;
  else return Err("{}: not a perf.data file (bad magic at offset 0)", name);
  return Status::Ok();
}

Status PerfHeader::ParsePipeHeaderStart(const uint8_t* p, const std::string& name) {
  uint64_t raw = Loader{false}.U64(p + 8);
  if (legacy_v1_) loader_.swap = raw != kPipeHeaderSize;
  if (loader_.U64(p + 8) != kPipeHeaderSize)
    return Err("{}: a stream must be a pipe-mode recording (header size {} at offset 0x8, expected 16); record "
               "with -o - or pass the file with -i",
               name, loader_.U64(p + 8));
  pipe_mode_ = true;
  header_size_ = kPipeHeaderSize;
  data_offset_ = kPipeHeaderSize;
  evlist_.set_loader(loader_);
  return Status::Ok();
}

void PerfHeader::ApplyHeaderRecord(const RecordView& r, bool after_header, std::vector<std::string>* warnings) {
  switch (r.type) {
    case kRecordHeaderAttr:
      if (after_header) {
        if (warnings->size() < kMaxWarnings)
          warnings->push_back(fmt::format("HEADER_ATTR at offset {:#x} comes after the stream's first kernel "
                                                "record; its event is not reported",
                                                r.perf_data_offset));
        return;
      }
      AddHeaderAttr(r);  // Evlist::Add indexes its ids
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

Status PerfHeader::ParseBytes(const uint8_t* bytes, uint64_t size, const std::string& name) {
  bytes_ = bytes;
  size_ = size;
  name_ = name;
  const uint8_t* p = bytes;
  const uint64_t n = size;
  if (n < kPipeHeaderSize)
    return Err("{}: not a perf.data file: {} bytes, shorter than any perf header", name_, n);
  PERFLENS_RETURN_IF_ERROR(ReadMagic(p, name));
  uint64_t hsize = Loader{loader_.swap}.U64(p + 8);
  if (legacy_v1_) {
    // PERFFILE carries no byte order: infer it from attr_size (file) or size (pipe) as
    // perf's try_all_file_abis / try_all_pipe_abis do.
    uint64_t raw = Loader{false}.U64(p + 8);
    if (raw == kPipeHeaderSize || __builtin_bswap64(raw) == kPipeHeaderSize) {
      loader_.swap = raw != kPipeHeaderSize;
    } else {
      if (n < 24) return Err("{}: legacy PERFFILE header truncated", name_);
      uint64_t asz = Loader{false}.U64(p + 16);
      bool found = false;
      for (uint64_t s : {64, 72, 80, 96, 104, 112, 120, 128, 136}) {
        if (asz == s + 16) { loader_.swap = false; found = true; break; }
        if (__builtin_bswap64(asz) == s + 16) { loader_.swap = true; found = true; break; }
      }
      if (!found) return Err("{}: legacy PERFFILE with unknown attr size {}", name_, asz);
    }
    hsize = loader_.U64(p + 8);
  }
  evlist_.set_loader(loader_);
  if (hsize == kPipeHeaderSize) {
    pipe_mode_ = true;
    header_size_ = kPipeHeaderSize;
    PERFLENS_RETURN_IF_ERROR(ParsePipeHeader());
  } else {
    header_size_ = hsize;
    PERFLENS_RETURN_IF_ERROR(ParseFileHeader());
  }
  Finish();
  bytes_ = nullptr;
  size_ = 0;
  return Status::Ok();
}

Status PerfHeader::ParseFileHeader() {
  const uint8_t* p = bytes_;
  const uint64_t n = size_;
  const Loader& ld = loader_;
  if (header_size_ != kFileHeaderSize && header_size_ != 72)
    return Err("{}: bad header size {} at offset 0x8 (expected 104)", name_, header_size_);
  if (n < header_size_)
    return Err("{}: file truncated inside the {}-byte header ({} bytes)", name_, header_size_, n);
  attr_size_ = ld.U64(p + 16);
  uint64_t attrs_off = ld.U64(p + 24), attrs_size = ld.U64(p + 32);
  data_offset_ = ld.U64(p + 40);
  data_size_ = ld.U64(p + 48);
  feature_index_offset_ = data_size_ > UINT64_MAX - data_offset_ ? UINT64_MAX : data_offset_ + data_size_;
  if (attr_size_ == 0) return Err("{}: attr_size is 0 at offset 0x10", name_);
  if (attr_size_ < 64 + 16)
    return Err("{}: attr_size {} at offset 0x10 is smaller than the minimum 80", name_, attr_size_);
  if (!FitsIn(attrs_off, attrs_size, n))
    return Err("{}: attrs section [{:#x}, +{:#x}) lies outside the {}-byte file", name_, attrs_off,
               attrs_size, n);
  if (attrs_size && attrs_off < header_size_)
    return Err("{}: attrs section at {:#x} overlaps the file header", name_, attrs_off);
  if (data_offset_ > n) return Err("{}: data section offset {:#x} is past the end of the file ({} bytes)", name_, data_offset_, n);
  if (data_offset_ < header_size_)
    return Err("{}: data section at {:#x} overlaps the file header", name_, data_offset_);
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
    return Err("{}: attrs section at {:#x} holds {} attrs, more than the {} events perflens reads", name_, attrs_off,
               nr_attrs, kMaxEvsels);
  // perf writes one disjoint ids section per attr; bound their sum by the file so that
  // attrs sharing one section cannot multiply it (memory quadratic in the file size).
  uint64_t total_ids_size = 0;
  for (uint64_t i = 0; i < nr_attrs; ++i) {
    uint64_t off = attrs_off + i * attr_size_;
    auto attr = ParseEventAttr({p + off, static_cast<size_t>(attr_size_ - 16)}, ld);
    if (!attr) return Err("{}: attr {} at offset {:#x}: {}", name_, i, off, attr.error().message);
    uint64_t ids_at = off + AttrDiskSize(attr->size);
    if (ids_at + 16 > off + attr_size_) ids_at = off + attr_size_ - 16;
    uint64_t ids_off = ld.U64(p + ids_at), ids_size = ld.U64(p + ids_at + 8);
    if (!FitsIn(ids_off, ids_size, n))
      return Err("{}: attr {} at offset {:#x}: ids [{:#x}, +{:#x}) outside the file", name_, i, off,
                 ids_off, ids_size);
    total_ids_size += ids_size;  // each ids_size <= n: no overflow
    if (total_ids_size > n)
      return Err("{}: attr {} at offset {:#x}: ids sections of all attrs add up to more than the {}-byte file", name_,
                 i, off, n);
    uint64_t nr_ids = ids_size / 8;
    std::vector<uint64_t> ids;
    ids.reserve(nr_ids);
    for (uint64_t k = 0; k < nr_ids; ++k) ids.push_back(ld.U64(p + ids_off + 8 * k));
    evlist_.Add(*attr, std::move(ids));
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

bool PerfHeader::IsFeatureIndexAt(uint64_t at, size_t nr) const {
  const uint64_t n = size_;
  if (nr == 0 || !FitsIn(at, nr * 16, n)) return false;
  for (size_t i = 0; i < nr; ++i) {
    const uint64_t off = loader_.U64(bytes_ + at + 16 * i), size = loader_.U64(bytes_ + at + 16 * i + 8);
    if (off < at + nr * 16 || !FitsIn(off, size, n)) return false;
  }
  return true;
}

Status PerfHeader::ParseFeatures(const std::vector<uint8_t>& bits) {
  if (bits.empty()) return Status::Ok();
  const uint8_t* p = bytes_;
  const uint64_t n = size_;
  uint64_t index_off = feature_index_offset_;
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
    if (feat == kFeatTracingData) {
      ApplyTracingData({p + off, static_cast<size_t>(size)}, off);
      continue;
    }
    Status s = ParseFeature(feat, {p + off, static_cast<size_t>(size)}, loader_, &env_);
    if (!s) env_.warnings.push_back(fmt::format("feature {} at offset {:#x}: {}", FeatureName(feat), off, s.error().message));
  }
  return Status::Ok();
}

Status PerfHeader::ParsePipeHeader() {
  // Pipe mode: attrs, features and build ids arrive in-band. Pre-scan the top-level
  // records for them so that the rest of perflens sees the same PerfFile in both modes.
  data_offset_ = kPipeHeaderSize;
  data_size_ = size_ - kPipeHeaderSize;
  const uint8_t* p = bytes_;
  const uint64_t end = size_;
  std::vector<std::string> ignored;
  RecordView r;
  // Framing errors are ReadRecords' to report.
  for (RecordCursor c(loader_, p, data_offset_, end, true); c.Next(&r);) {
    if (r.type == kRecordHeaderAttr || r.type == kRecordHeaderFeature || r.type == kRecordHeaderBuildId)
      ApplyHeaderRecord(r, false, &ignored);
    // The tracing data follows the record (the cursor skips it): at most its announced
    // size, at most what the file holds.
    if (r.type == kRecordHeaderTracingData) {
      const uint64_t at = r.perf_data_offset + r.size;
      const uint64_t announced = TrailingBytes(loader_, r, true);
      if (at <= end) ApplyTracingData({p + at, static_cast<size_t>(std::min(announced, end - at))}, at);
    }
  }
  // EVENT_UPDATE and ID_INDEX need the attrs (and their id index) first.
  for (RecordCursor c(loader_, p, data_offset_, end, true); c.Next(&r);) {
    if (r.type == kRecordEventUpdate) ApplyEventUpdate(r);
    else if (r.type == kRecordIdIndex) ApplyIdIndex(r);
  }
  if (evlist_.empty()) return Err("{}: pipe-mode file has no HEADER_ATTR record", name_);
  return Status::Ok();
}

void PerfHeader::ApplyTracingData(std::span<const uint8_t> bytes, uint64_t file_offset) {
  if (env_.tracing_data) return;  // perf reads one; later ones would re-register the same events
  auto td = ParseTracingData(bytes, file_offset);
  if (!td) {
    env_.warnings.push_back(td.error().message + "; tracepoint events print without names and payloads");
    return;
  }
  env_.tracing_data = std::make_shared<const TracingData>(std::move(*td));
}

void PerfHeader::AddHeaderAttr(const RecordView& r) {
  if (r.size < 8 + 64) return;
  if (evlist_.size() >= kMaxEvsels) {
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
  std::vector<uint64_t> ids;
  uint32_t asz = AttrDiskSize(attr->size);
  for (size_t off = asz; off + 8 <= r.body_size(); off += 8) ids.push_back(loader_.U64(r.body() + off));
  evlist_.Add(*attr, std::move(ids));
}

void PerfHeader::ApplyEventUpdate(const RecordView& r) {
  // struct perf_record_event_update { header; u64 type; u64 id; data }
  if (r.size < 24) return;
  uint64_t type = loader_.U64(r.data + 8);
  uint64_t id = loader_.U64(r.data + 16);
  if (type != 2) return;  // PERF_EVENT_UPDATE__NAME
  std::string_view name;
  if (!BoundedString(r.data + 24, r.size - 24u, &name)) return;
  // Through the id index: scanning every id of every attr per record is quadratic.
  evlist_.SetNameById(id, name);
}

void PerfHeader::ApplyIdIndex(const RecordView& r) {
  // PERF_RECORD_ID_INDEX entries are {id, idx, cpu, tid}: `idx` is the mmap (cpu/thread)
  // index, not the evsel index. perf_event__process_id_index only annotates ids that the
  // attrs already map to an evsel, so it never changes the id -> evsel table.
  (void)r;
}

}  // namespace perflens
