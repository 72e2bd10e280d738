#include "perfdata/record.h"

#include <cstring>

namespace perflens {

bool BoundedString(const uint8_t* p, size_t n, std::string_view* out) {
  const void* nul = std::memchr(p, 0, n);
  if (!nul) {
    // perf tolerates an unterminated name that fills the record; so do we.
    *out = std::string_view(reinterpret_cast<const char*>(p), n);
    return n > 0;
  }
  *out = std::string_view(reinterpret_cast<const char*>(p),
                          static_cast<const uint8_t*>(nul) - p);
  return true;
}

bool DecodeMmap(const RecordView& r, const Loader& ld, MmapEvent* out) {
  if (r.size < 40 + 1) return false;
  const uint8_t* p = r.data;
  out->pid = ld.U32(p + 8);
  out->tid = ld.U32(p + 12);
  out->start = ld.U64(p + 16);
  out->len = ld.U64(p + 24);
  out->pgoff = ld.U64(p + 32);
  out->is_mmap2 = false;
  return BoundedString(p + 40, r.size - 40u, &out->filename);
}

bool DecodeMmap2(const RecordView& r, const Loader& ld, MmapEvent* out) {
  if (r.size < 72 + 1) return false;
  const uint8_t* p = r.data;
  out->pid = ld.U32(p + 8);
  out->tid = ld.U32(p + 12);
  out->start = ld.U64(p + 16);
  out->len = ld.U64(p + 24);
  out->pgoff = ld.U64(p + 32);
  if (r.misc & kMiscMmapBuildId) {
    uint8_t n = p[40];
    out->build_id = BuildId::FromBytes(p + 44, n > BuildId::kMaxSize ? BuildId::kMaxSize : n);
    out->maj = out->min = 0;
    out->ino = out->ino_generation = 0;
  } else {
    out->build_id = BuildId{};
    out->maj = ld.U32(p + 40);
    out->min = ld.U32(p + 44);
    out->ino = ld.U64(p + 48);
    out->ino_generation = ld.U64(p + 56);
  }
  out->prot = ld.U32(p + 64);
  out->flags = ld.U32(p + 68);
  out->is_mmap2 = true;
  return BoundedString(p + 72, r.size - 72u, &out->filename);
}

bool DecodeComm(const RecordView& r, const Loader& ld, CommEvent* out) {
  if (r.size < 16 + 1) return false;
  out->pid = ld.U32(r.data + 8);
  out->tid = ld.U32(r.data + 12);
  out->exec = (r.misc & kMiscCommExec) != 0;
  return BoundedString(r.data + 16, r.size - 16u, &out->comm);
}

bool DecodeTask(const RecordView& r, const Loader& ld, TaskEvent* out) {
  if (r.size < 32) return false;
  out->pid = ld.U32(r.data + 8);
  out->ppid = ld.U32(r.data + 12);
  out->tid = ld.U32(r.data + 16);
  out->ptid = ld.U32(r.data + 20);
  out->time = ld.U64(r.data + 24);
  return true;
}

bool DecodeLost(const RecordView& r, const Loader& ld, LostEvent* out) {
  if (r.size < 24) return false;
  out->id = ld.U64(r.data + 8);
  out->lost = ld.U64(r.data + 16);
  return true;
}

bool DecodeKsymbol(const RecordView& r, const Loader& ld, KsymbolEvent* out) {
  if (r.size < 24 + 1) return false;
  out->addr = ld.U64(r.data + 8);
  out->len = ld.U32(r.data + 16);
  out->ksym_type = ld.U16(r.data + 20);
  out->flags = ld.U16(r.data + 22);
  return BoundedString(r.data + 24, r.size - 24u, &out->name);
}

bool DecodeBuildIdEntry(const uint8_t* p, size_t avail, const Loader& ld, BuildIdEvent* out,
                        size_t* size) {
  if (avail < 8) return false;
  uint16_t misc = ld.U16(p + 4);
  uint16_t sz = ld.U16(p + 6);
  if (sz < 36 || sz > avail) return false;
  *size = sz;
  out->misc = misc;
  out->pid = ld.S32(p + 8);
  size_t n = BuildId::kMaxSize;
  if (misc & kMiscBuildIdSize) {
    n = p[32];
    if (n > BuildId::kMaxSize) n = BuildId::kMaxSize;
  }
  out->build_id = BuildId::FromBytes(p + 12, n);
  if (!(misc & kMiscBuildIdSize)) {
    // Without the size byte perf assumes 20; trailing zero bytes of a shorter
    // (e.g. 16-byte md5) id are dropped as perf's build_id__sprintf does not.
    // Keep 20 to print exactly what perf prints.
  }
  return BoundedString(p + 36, sz - 36u, &out->filename);
}

}  // namespace perflens
