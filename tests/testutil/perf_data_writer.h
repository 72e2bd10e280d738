// PerfDataWriter: builds synthetic perf.data byte streams in memory for tests, in the
// layout of spec part A (tools/perf/util/header.c, session.c), in file mode (PERFILE2
// header, attrs with ids, data section, feature index + sections) or pipe mode
// (HEADER_ATTR and HEADER_FEATURE records), little- or big-endian.
//
// Big-endian output is what a big-endian perf writes: every integer field is stored
// byte-swapped relative to little-endian, strings and raw byte blobs are not, and the
// attr flag bitfield at offset 40 is stored bit-reversed (A3/A12) so that flag n lands
// at bit 63 - n of the big-endian u64.
//
// Usage:
//   PerfDataWriter w(PerfDataWriter::kFile, Endian::kLittle);
//   int ev = w.AddAttr(attr, {101, 102});   // sample ids 101 and 102 map to evsel 0
//   w.Comm({.pid = 7, .tid = 7}, "a.out", SidAt(7, 1000));
//   SampleFields s; s.ip = 0x401000; s.time = 1000; w.Sample(ev, s);
//   std::vector<uint8_t> bytes = w.Finish();
//   auto file = PerfFile::FromBytes(MappedFile::FromBuffer(bytes));
//
// Kernel records (< 64) get a sample_id trailer when attr 0 has sample_id_all; its
// fields follow attr 0's sample_type (perf requires one layout for all evsels).
// Header-only: tests link perflens_testutil (an INTERFACE target) and libzstd.
#pragma once

#include <zstd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "perfdata/event_attr.h"
#include "perfdata/perf_event.h"
#include "perfdata/sample.h"
#include "perfdata/record.h"

namespace perflens::testutil {

enum class Endian { kLittle, kBig };

inline uint64_t ReverseBits64(uint64_t v) {
  uint64_t r = 0;
  for (int i = 0; i < 64; ++i, v >>= 1) r = (r << 1) | (v & 1);
  return r;
}

inline uint64_t Align8(uint64_t n) { return (n + 7) & ~uint64_t{7}; }

// An append-only byte buffer that stores integers in a chosen byte order.
class ByteWriter {
 public:
  explicit ByteWriter(Endian e = Endian::kLittle) : big_(e == Endian::kBig) {}
  bool big() const { return big_; }
  std::vector<uint8_t>& bytes() { return b_; }
  const std::vector<uint8_t>& bytes() const { return b_; }
  size_t size() const { return b_.size(); }

  void U8(uint8_t v) { b_.push_back(v); }
  void U16(uint16_t v) { Put(v, 2); }
  void U32(uint32_t v) { Put(v, 4); }
  void U64(uint64_t v) { Put(v, 8); }
  void Bytes(std::span<const uint8_t> v) { b_.insert(b_.end(), v.begin(), v.end()); }
  void Zeros(size_t n) { b_.insert(b_.end(), n, 0); }
  void Fill(size_t n, uint8_t byte) { b_.insert(b_.end(), n, byte); }
  // NUL-terminated string padded with NULs to a multiple of `align` bytes.
  void PaddedString(std::string_view s, size_t align = 8) {
    size_t n = (s.size() + 1 + align - 1) / align * align;
    b_.insert(b_.end(), s.begin(), s.end());
    Zeros(n - s.size());
  }
  void Pad8() { Zeros(Align8(b_.size()) - b_.size()); }
  void PatchU16(size_t at, uint16_t v) { Write(at, v, 2); }
  void PatchU64(size_t at, uint64_t v) { Write(at, v, 8); }

 private:
  void Put(uint64_t v, int n) {
    b_.resize(b_.size() + n);
    Write(b_.size() - n, v, n);
  }
  void Write(size_t at, uint64_t v, int n) {
    for (int i = 0; i < n; ++i) b_[at + (big_ ? n - 1 - i : i)] = static_cast<uint8_t>(v >> (8 * i));
  }
  bool big_;
  std::vector<uint8_t> b_;
};

// Values for one PERF_RECORD_SAMPLE; only the fields selected by the evsel's sample_type
// (and read_format / branch_sample_type / register masks) are written, in A8 order.
struct SampleFields {
  uint16_t misc = kMiscUser;
  uint64_t identifier = 0;  // PERF_SAMPLE_IDENTIFIER
  uint64_t ip = 0;
  uint32_t pid = 0, tid = 0;
  uint64_t time = 0;
  uint64_t addr = 0;
  uint64_t id = 0;  // PERF_SAMPLE_ID
  uint64_t stream_id = 0;
  uint32_t cpu = 0;
  uint64_t period = 0;
  std::vector<uint64_t> read_values;  // the read_format block, written verbatim
  std::vector<uint64_t> callchain;    // ips incl. context markers; nr is written first
  std::vector<uint8_t> raw;           // u32 size is written first
  std::vector<BranchEntry> branches;
  uint64_t branch_hw_idx = 0;         // with kBranchSampleHwIndex
  std::vector<uint64_t> branch_counters;  // with kBranchSampleCounters
  uint64_t user_regs_abi = 0;
  std::vector<uint64_t> user_regs;    // popcount(sample_regs_user) values when abi != 0
  std::vector<uint8_t> user_stack;    // u64 size, bytes, u64 dyn_size (if non-empty)
  uint64_t user_stack_dyn_size = 0;
  uint64_t weight = 0;                // WEIGHT or WEIGHT_STRUCT (whole u64)
  uint64_t data_src = 0;
  uint64_t transaction = 0;
  uint64_t intr_regs_abi = 0;
  std::vector<uint64_t> intr_regs;
  uint64_t phys_addr = 0;
  uint64_t cgroup = 0;
  uint64_t data_page_size = 0, code_page_size = 0;
  std::vector<uint8_t> aux;           // u64 size then the bytes
  // When set, the record's header.size is forced to this (malformed-input tests).
  uint16_t size_override = 0;
};

// sample_id trailer values with the time set (convenience).
inline SampleId SidAt(uint32_t pid, uint64_t time, uint64_t id = 0, uint32_t cpu = 0) {
  SampleId s;
  s.pid = pid;
  s.tid = pid;
  s.time = time;
  s.id = id;
  s.stream_id = id;
  s.cpu = cpu;
  return s;
}

class PerfDataWriter {
 public:
  enum Mode { kFile, kPipe };

  explicit PerfDataWriter(Mode mode = kFile, Endian endian = Endian::kLittle)
      : mode_(mode), endian_(endian), data_(endian) {}

  Mode mode() const { return mode_; }
  Endian endian() const { return endian_; }

  // Adds an event selector with its sample ids. `attr.size` is the on-disk attr size
  // (0 is written as 0 and means 64); `attr.flags` uses "flag n is bit n".
  // `extra_fill` fills bytes past offset 136 of attrs larger than 136.
  int AddAttr(const EventAttr& attr, std::vector<uint64_t> ids = {}, uint8_t extra_fill = 0) {
    attrs_.push_back({attr, std::move(ids), extra_fill});
    return static_cast<int>(attrs_.size()) - 1;
  }
  // Adds feature `bit` with a raw payload (file: feature section; pipe: HEADER_FEATURE).
  void AddFeature(int bit, std::vector<uint8_t> payload) { features_.push_back({bit, std::move(payload)}); }
  // perf_header_string encoding of `s` in this writer's byte order.
  std::vector<uint8_t> FeatureString(std::string_view s) const {
    ByteWriter w(endian_);
    size_t len = (s.size() + 1 + 63) / 64 * 64;
    w.U32(static_cast<uint32_t>(len));
    w.PaddedString(s, 64);
    return std::move(w.bytes());
  }
  // Writes the attrs section after the data and features (perf inject's layout).
  void set_attrs_after_data(bool v) { attrs_after_data_ = v; }
  // Overrides header.size of the file header (104 normally; 72 = no feature bitmap).
  void set_file_header_size(uint64_t v) { file_header_size_ = v; }

  // --- kernel records -------------------------------------------------------------
  void Mmap(uint32_t pid, uint32_t tid, uint64_t start, uint64_t len, uint64_t pgoff,
            std::string_view filename, const SampleId& sid = {}, uint16_t misc = kMiscUser) {
    size_t at = Begin(kRecordMmap, misc);
    data_.U32(pid);
    data_.U32(tid);
    data_.U64(start);
    data_.U64(len);
    data_.U64(pgoff);
    data_.PaddedString(filename);
    End(at, &sid);
  }
  struct Mmap2Fields {
    uint32_t pid = 0, tid = 0;
    uint64_t start = 0, len = 0, pgoff = 0;
    uint32_t maj = 0, min = 0;
    uint64_t ino = 0, ino_generation = 0;
    std::vector<uint8_t> build_id;  // non-empty: MMAP_BUILD_ID variant
    uint32_t prot = 5, flags = 2;   // PROT_READ|PROT_EXEC, MAP_PRIVATE
    std::string filename;
    uint16_t misc = kMiscUser;
  };
  void Mmap2(const Mmap2Fields& m, const SampleId& sid = {}) {
    uint16_t misc = m.misc | (m.build_id.empty() ? 0 : kMiscMmapBuildId);
    size_t at = Begin(kRecordMmap2, misc);
    data_.U32(m.pid);
    data_.U32(m.tid);
    data_.U64(m.start);
    data_.U64(m.len);
    data_.U64(m.pgoff);
    if (m.build_id.empty()) {
      data_.U32(m.maj);
      data_.U32(m.min);
      data_.U64(m.ino);
      data_.U64(m.ino_generation);
    } else {
      data_.U8(static_cast<uint8_t>(m.build_id.size()));
      data_.Zeros(3);
      std::vector<uint8_t> id = m.build_id;
      id.resize(20, 0);
      data_.Bytes(id);
    }
    data_.U32(m.prot);
    data_.U32(m.flags);
    data_.PaddedString(m.filename);
    End(at, &sid);
  }
  void Comm(uint32_t pid, uint32_t tid, std::string_view comm, bool exec = false, const SampleId& sid = {}) {
    size_t at = Begin(kRecordComm, exec ? kMiscCommExec : 0);
    data_.U32(pid);
    data_.U32(tid);
    data_.PaddedString(comm);
    End(at, &sid);
  }
  // FORK (type 7) or EXIT (type 4).
  void Task(uint32_t type, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid, uint64_t time,
            const SampleId& sid = {}) {
    size_t at = Begin(type, 0);
    data_.U32(pid);
    data_.U32(ppid);
    data_.U32(tid);
    data_.U32(ptid);
    data_.U64(time);
    End(at, &sid);
  }
  void Fork(uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid, uint64_t time, const SampleId& sid = {}) {
    Task(kRecordFork, pid, ppid, tid, ptid, time, sid);
  }
  void Exit(uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid, uint64_t time, const SampleId& sid = {}) {
    Task(kRecordExit, pid, ppid, tid, ptid, time, sid);
  }
  void Lost(uint64_t id, uint64_t lost, const SampleId& sid = {}) {
    size_t at = Begin(kRecordLost, 0);
    data_.U64(id);
    data_.U64(lost);
    End(at, &sid);
  }
  // THROTTLE (5) or UNTHROTTLE (6).
  void Throttle(uint64_t time, uint64_t id, uint64_t stream_id, bool unthrottle = false, const SampleId& sid = {}) {
    size_t at = Begin(unthrottle ? kRecordUnthrottle : kRecordThrottle, 0);
    data_.U64(time);
    data_.U64(id);
    data_.U64(stream_id);
    End(at, &sid);
  }
  void Ksymbol(uint64_t addr, uint32_t len, uint16_t ksym_type, uint16_t flags, std::string_view name,
               const SampleId& sid = {}) {
    size_t at = Begin(kRecordKsymbol, kMiscKernel);
    data_.U64(addr);
    data_.U32(len);
    data_.U16(ksym_type);
    data_.U16(flags);
    data_.PaddedString(name);
    End(at, &sid);
  }
  void Sample(int evsel, const SampleFields& s) {
    const EventAttr& a = attrs_.at(evsel).attr;
    const uint64_t st = a.sample_type;
    size_t at = Begin(kRecordSample, s.misc);
    ByteWriter& w = data_;
    if (st & kSampleIdentifier) w.U64(s.identifier);
    if (st & kSampleIp) w.U64(s.ip);
    if (st & kSampleTid) { w.U32(s.pid); w.U32(s.tid); }
    if (st & kSampleTime) w.U64(s.time);
    if (st & kSampleAddr) w.U64(s.addr);
    if (st & kSampleId) w.U64(s.id);
    if (st & kSampleStreamId) w.U64(s.stream_id);
    if (st & kSampleCpu) { w.U32(s.cpu); w.U32(0); }
    if (st & kSamplePeriod) w.U64(s.period);
    if (st & kSampleRead) for (uint64_t v : s.read_values) w.U64(v);
    if (st & kSampleCallchain) {
      w.U64(s.callchain.size());
      for (uint64_t ip : s.callchain) w.U64(ip);
    }
    if (st & kSampleRaw) {
      w.U32(static_cast<uint32_t>(s.raw.size()));
      w.Bytes(s.raw);
    }
    if (st & kSampleBranchStack) {
      w.U64(s.branches.size());
      if (a.branch_sample_type & kBranchSampleHwIndex) w.U64(s.branch_hw_idx);
      for (const BranchEntry& b : s.branches) { w.U64(b.from); w.U64(b.to); w.U64(b.flags); }
      if (a.branch_sample_type & kBranchSampleCounters) for (uint64_t v : s.branch_counters) w.U64(v);
    }
    if (st & kSampleRegsUser) {
      w.U64(s.user_regs_abi);
      if (s.user_regs_abi) for (uint64_t v : s.user_regs) w.U64(v);
    }
    if (st & kSampleStackUser) {
      w.U64(s.user_stack.size());
      if (!s.user_stack.empty()) {
        w.Bytes(s.user_stack);
        w.U64(s.user_stack_dyn_size);
      }
    }
    if (st & (kSampleWeight | kSampleWeightStruct)) w.U64(s.weight);
    if (st & kSampleDataSrc) w.U64(s.data_src);
    if (st & kSampleTransaction) w.U64(s.transaction);
    if (st & kSampleRegsIntr) {
      w.U64(s.intr_regs_abi);
      if (s.intr_regs_abi) for (uint64_t v : s.intr_regs) w.U64(v);
    }
    if (st & kSamplePhysAddr) w.U64(s.phys_addr);
    if (st & kSampleCgroup) w.U64(s.cgroup);
    if (st & kSampleDataPageSize) w.U64(s.data_page_size);
    if (st & kSampleCodePageSize) w.U64(s.code_page_size);
    if (st & kSampleAux) {
      w.U64(s.aux.size());
      w.Bytes(s.aux);
    }
    End(at, nullptr);
    if (s.size_override) w.PatchU16(at + 6, s.size_override);
  }

  // --- user records ---------------------------------------------------------------
  void FinishedRound() { End(Begin(kRecordFinishedRound, 0), nullptr); }
  void FinishedInit() { End(Begin(kRecordFinishedInit, 0), nullptr); }
  struct IdIndexEntry { uint64_t id, idx, cpu, tid; };
  void IdIndex(const std::vector<IdIndexEntry>& entries) {
    size_t at = Begin(kRecordIdIndex, 0);
    data_.U64(entries.size());
    for (const auto& e : entries) { data_.U64(e.id); data_.U64(e.idx); data_.U64(e.cpu); data_.U64(e.tid); }
    End(at, nullptr);
  }
  // AUXTRACE with `aux` bytes following the record outside header.size.
  void Auxtrace(uint64_t offset, uint64_t reference, uint32_t idx, uint32_t tid, uint32_t cpu,
                std::span<const uint8_t> aux) {
    size_t at = Begin(kRecordAuxtrace, 0);
    data_.U64(aux.size());
    data_.U64(offset);
    data_.U64(reference);
    data_.U32(idx);
    data_.U32(tid);
    data_.U32(cpu);
    data_.U32(0);
    End(at, nullptr);
    data_.Bytes(aux);
  }
  // Any record: header + body verbatim (unknown types, hand-made malformed records).
  // `size` < 0 means 8 + body.size(); else header.size is forced to it.
  void Raw(uint32_t type, uint16_t misc, std::span<const uint8_t> body, int size = -1) {
    data_.U32(type);
    data_.U16(misc);
    data_.U16(static_cast<uint16_t>(size >= 0 ? size : 8 + body.size()));
    data_.Bytes(body);
  }
  // Bytes appended to the data section as is.
  void RawBytes(std::span<const uint8_t> bytes) { data_.Bytes(bytes); }

  // Records appended between BeginCompressed() and EndCompressed() are compressed as one
  // zstd stream into COMPRESSED (81) or COMPRESSED2 (83) records, the way perf record -z
  // does it. The captured record bytes are cut at each of `splits` (byte offsets into the
  // captured stream, ascending) and each piece is flushed into its own record, so a
  // split inside a record makes that record span two compressed records.
  void BeginCompressed() {
    saved_.push_back(std::move(data_));
    data_ = ByteWriter(endian_);
  }
  size_t captured_size() const { return data_.size(); }
  std::vector<uint8_t> EndCompressed(std::vector<size_t> splits = {}, bool compressed2 = false) {
    std::vector<uint8_t> inner = std::move(data_.bytes());
    data_ = std::move(saved_.back());
    saved_.pop_back();
    AppendCompressed(inner, std::move(splits), compressed2);
    return inner;
  }
  // Compresses `inner` (whole or partial records in this writer's byte order).
  void AppendCompressed(std::span<const uint8_t> inner, std::vector<size_t> splits, bool compressed2 = false) {
    splits.push_back(inner.size());
    ZSTD_CStream* cs = ZSTD_createCStream();
    ZSTD_initCStream(cs, 3);
    size_t from = 0;
    std::vector<uint8_t> out(ZSTD_CStreamOutSize());
    for (size_t i = 0; i < splits.size(); ++i) {
      size_t to = splits[i];
      bool last = i + 1 == splits.size();
      ZSTD_inBuffer ib{inner.data() + from, to - from, 0};
      std::vector<uint8_t> piece;
      size_t rc;
      do {
        ZSTD_outBuffer ob{out.data(), out.size(), 0};
        rc = ZSTD_compressStream2(cs, &ob, &ib, last ? ZSTD_e_end : ZSTD_e_flush);
        piece.insert(piece.end(), out.data(), out.data() + ob.pos);
      } while (rc != 0 && !ZSTD_isError(rc));
      // A record holds at most 65535 bytes; a longer piece goes into several records
      // (still one stream, as perf's reader requires).
      const size_t max_payload = compressed2 ? 65512 : 65520;
      for (size_t off = 0; off < piece.size() || off == 0; off += max_payload) {
        size_t n = std::min(max_payload, piece.size() - off);
        EmitCompressed(std::span<const uint8_t>(piece.data() + off, n), compressed2);
        if (piece.empty()) break;
      }
      from = to;
    }
    ZSTD_freeCStream(cs);
  }

  // --- output ---------------------------------------------------------------------
  // The data section as written so far (records only).
  const std::vector<uint8_t>& data() const { return data_.bytes(); }

  std::vector<uint8_t> Finish() const { return mode_ == kFile ? FinishFile() : FinishPipe(); }

  // File offset of the data section in Finish()'s output (file mode, attrs first).
  uint64_t data_offset() const {
    if (mode_ == kPipe) return 16 + PipePreambleSize();
    if (attrs_after_data_) return file_header_size_;
    uint64_t off = file_header_size_;
    for (const auto& a : attrs_) off += 8 * a.ids.size();
    for (const auto& a : attrs_) off += AttrDiskSize(a.attr.size) + 16;
    return off;
  }

  // Encodes `attr` into `w` as a perf_event_attr of its on-disk size.
  static void WriteAttr(ByteWriter& w, const EventAttr& a, uint8_t extra_fill = 0) {
    uint32_t size = AttrDiskSize(a.size);
    size_t start = w.size();
    w.U32(a.type);
    w.U32(a.size);
    w.U64(a.config);
    w.U64(a.sample_period);
    w.U64(a.sample_type);
    w.U64(a.read_format);
    w.U64(w.big() ? ReverseBits64(a.flags) : a.flags);
    w.U32(a.wakeup_events);
    w.U32(a.bp_type);
    w.U64(a.config1);
    w.U64(a.config2);
    w.U64(a.branch_sample_type);
    w.U64(a.sample_regs_user);
    w.U32(a.sample_stack_user);
    w.U32(static_cast<uint32_t>(a.clockid));
    w.U64(a.sample_regs_intr);
    w.U32(a.aux_watermark);
    w.U16(a.sample_max_stack);
    w.U16(0);
    w.U32(a.aux_sample_size);
    w.U32(0);
    w.U64(a.sig_data);
    w.U64(a.config3);  // now 136 bytes
    if (size <= 136) {
      w.bytes().resize(start + size);  // shorter ABI versions end earlier
    } else {
      w.Fill(size - 136, extra_fill);
    }
  }

 private:
  struct AttrEntry {
    EventAttr attr;
    std::vector<uint64_t> ids;
    uint8_t extra_fill;
  };
  struct FeatureEntry {
    int bit;
    std::vector<uint8_t> payload;
  };

  size_t Begin(uint32_t type, uint16_t misc) {
    size_t at = data_.size();
    data_.U32(type);
    data_.U16(misc);
    data_.U16(0);  // patched by End()
    return at;
  }
  // Appends the sample_id trailer (kernel records, when `sid` is given and attr 0 has
  // sample_id_all) and patches header.size.
  void End(size_t at, const SampleId* sid) {
    if (sid && !attrs_.empty() && attrs_[0].attr.sample_id_all()) {
      const uint64_t st = attrs_[0].attr.sample_type;
      if (st & kSampleTid) { data_.U32(sid->pid); data_.U32(sid->tid); }
      if (st & kSampleTime) data_.U64(sid->time);
      if (st & kSampleId) data_.U64(sid->id);
      if (st & kSampleStreamId) data_.U64(sid->stream_id);
      if (st & kSampleCpu) { data_.U32(sid->cpu); data_.U32(0); }
      if (st & kSampleIdentifier) data_.U64(sid->id);
    }
    data_.PatchU16(at + 6, static_cast<uint16_t>(data_.size() - at));
  }
  void EmitCompressed(std::span<const uint8_t> payload, bool compressed2) {
    size_t at = data_.size();
    data_.U32(compressed2 ? kRecordCompressed2 : kRecordCompressed);
    data_.U16(0);
    data_.U16(0);
    if (compressed2) data_.U64(payload.size());
    data_.Bytes(payload);
    if (compressed2) data_.Pad8();  // COMPRESSED (81) is not padded
    data_.PatchU16(at + 6, static_cast<uint16_t>(data_.size() - at));
  }

  uint64_t PipePreambleSize() const { return PipePreamble().size(); }
  std::vector<uint8_t> PipePreamble() const {
    ByteWriter w(endian_);
    for (const auto& a : attrs_) {
      size_t at = w.size();
      w.U32(kRecordHeaderAttr);
      w.U16(0);
      w.U16(0);
      WriteAttr(w, a.attr, a.extra_fill);
      for (uint64_t id : a.ids) w.U64(id);
      w.PatchU16(at + 6, static_cast<uint16_t>(w.size() - at));
    }
    for (const auto& f : features_) {
      size_t at = w.size();
      w.U32(kRecordHeaderFeature);
      w.U16(0);
      w.U16(0);
      w.U64(static_cast<uint64_t>(f.bit));
      w.Bytes(f.payload);
      w.Pad8();
      w.PatchU16(at + 6, static_cast<uint16_t>(w.size() - at));
    }
    return std::move(w.bytes());
  }

  std::vector<uint8_t> FinishPipe() const {
    ByteWriter w(endian_);
    w.Bytes(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>("PERFILE2"), 8));
    if (w.big()) std::reverse(w.bytes().begin(), w.bytes().end());  // magic is a native u64
    w.U64(16);
    w.Bytes(PipePreamble());
    w.Bytes(data_.bytes());
    return std::move(w.bytes());
  }

  std::vector<uint8_t> FinishFile() const {
    ByteWriter w(endian_);
    w.Bytes(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>("PERFILE2"), 8));
    if (w.big()) std::reverse(w.bytes().begin(), w.bytes().end());
    uint64_t attr_stride = attrs_.empty() ? 64 + 16 : AttrDiskSize(attrs_[0].attr.size) + 16;
    w.U64(file_header_size_);
    w.U64(attr_stride);
    const size_t attrs_sec = w.size();
    w.U64(0);  // attrs.offset, patched
    w.U64(attrs_.size() * attr_stride);
    const size_t data_sec = w.size();
    w.U64(0);  // data.offset, patched
    w.U64(data_.size());
    w.U64(0);  // event_types
    w.U64(0);
    uint64_t bitmap[4] = {0, 0, 0, 0};
    for (const auto& f : features_) bitmap[f.bit / 64] |= 1ULL << (f.bit % 64);
    if (file_header_size_ >= 104)
      for (uint64_t v : bitmap) w.U64(v);
    w.Zeros(file_header_size_ > w.size() ? file_header_size_ - w.size() : 0);

    auto write_ids_and_attrs = [&] {
      std::vector<uint64_t> ids_off;
      for (const auto& a : attrs_) {
        ids_off.push_back(w.size());
        for (uint64_t id : a.ids) w.U64(id);
      }
      w.PatchU64(attrs_sec, w.size());
      for (size_t i = 0; i < attrs_.size(); ++i) {
        size_t start = w.size();
        WriteAttr(w, attrs_[i].attr, attrs_[i].extra_fill);
        w.Zeros(start + attr_stride - 16 - w.size());
        w.U64(attrs_[i].ids.empty() ? 0 : ids_off[i]);
        w.U64(8 * attrs_[i].ids.size());
      }
    };
    if (!attrs_after_data_) write_ids_and_attrs();
    w.PatchU64(data_sec, w.size());
    w.Bytes(data_.bytes());
    // Feature index (popcount order = ascending bit), then payloads.
    std::vector<const FeatureEntry*> sorted;
    for (const auto& f : features_) sorted.push_back(&f);
    std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->bit < b->bit; });
    size_t index = w.size();
    if (file_header_size_ >= 104) {
      w.Zeros(16 * sorted.size());
      for (size_t i = 0; i < sorted.size(); ++i) {
        w.PatchU64(index + 16 * i, w.size());
        w.PatchU64(index + 16 * i + 8, sorted[i]->payload.size());
        w.Bytes(sorted[i]->payload);
      }
    }
    if (attrs_after_data_) write_ids_and_attrs();
    return std::move(w.bytes());
  }

  Mode mode_;
  Endian endian_;
  std::vector<AttrEntry> attrs_;
  std::vector<FeatureEntry> features_;
  ByteWriter data_;
  std::vector<ByteWriter> saved_;
  bool attrs_after_data_ = false;
  uint64_t file_header_size_ = 104;
};

// A typical attr: `sample_type` with sample_id_all and the given on-disk size.
inline EventAttr MakeAttr(uint64_t sample_type, uint32_t size = 136, uint64_t config = 0,
                          bool sample_id_all = true) {
  EventAttr a;
  a.type = 0;  // PERF_TYPE_HARDWARE
  a.size = size;
  a.config = config;
  a.sample_period = 4000;
  a.sample_type = sample_type;
  a.flags = (1ULL << 0) | (1ULL << 8) | (1ULL << 9) | (1ULL << 10) | (1ULL << 23) | (1ULL << 24) |
            (sample_id_all ? 1ULL << 18 : 0);
  return a;
}

}  // namespace perflens::testutil
