#include "perfdata/sample.h"

#include <bit>
#include <type_traits>

namespace perflens {

BranchFlags DecodeBranchFlags(uint64_t value, bool big_endian_writer) {
  // A field of `size` bits at little-endian bit `pos`; a big-endian writer's bitfields
  // start at the most significant bit.
  auto field = [&](unsigned pos, unsigned size) -> uint64_t {
    const uint64_t mask = (uint64_t{1} << size) - 1;
    return big_endian_writer ? (value >> (64 - pos - size)) & mask : (value >> pos) & mask;
  };
  BranchFlags f;
  f.mispred = field(0, 1);
  f.predicted = field(1, 1);
  f.in_tx = field(2, 1);
  f.abort = field(3, 1);
  f.cycles = static_cast<uint16_t>(field(4, 16));
  f.type = static_cast<uint8_t>(field(20, 4));
  f.spec = static_cast<uint8_t>(field(24, 2));
  f.new_type = static_cast<uint8_t>(field(26, 4));
  f.priv = static_cast<uint8_t>(field(30, 3));
  return f;
}

const char* SampleErrorName(SampleError e) {
  switch (e) {
    case SampleError::kNone: return "ok";
    case SampleError::kTruncated: return "truncated sample";
    case SampleError::kBadCallchain: return "callchain larger than the record";
    case SampleError::kBadRaw: return "raw data larger than the record";
    case SampleError::kBadBranchStack: return "branch stack larger than the record";
    case SampleError::kBadRegs: return "registers larger than the record";
    case SampleError::kBadStack: return "user stack larger than the record";
    case SampleError::kBadAux: return "aux data larger than the record";
    case SampleError::kBadRead: return "read values larger than the record";
  }
  return "?";
}

namespace {
SampleLayout LayoutOfSampleType(uint64_t st) {
  EventAttr attr;
  attr.sample_type = st;
  return MakeSampleLayout(attr);
}
}  // namespace

uint32_t SampleIdTrailerSize(uint64_t st) { return LayoutOfSampleType(st).trailer_size; }

bool DecodeSampleIdTrailer(const RecordView& r, const SampleLayout& l, const Loader& ld, SampleId* out) {
  if (r.size < 8u + l.trailer_size) return false;
  const uint8_t* end = r.data + r.size;
  // IDENTIFIER and ID hold the same id; with both, ID's word is the one kept.
  if (l.trailer_identifier) out->id = ld.U64(end - l.trailer_identifier);
  if (l.trailer_id) out->id = ld.U64(end - l.trailer_id);
  if (l.trailer_cpu) out->cpu = ld.U32(end - l.trailer_cpu);
  if (l.trailer_stream_id) out->stream_id = ld.U64(end - l.trailer_stream_id);
  if (l.trailer_time) out->time = ld.U64(end - l.trailer_time);
  if (l.trailer_tid) {
    out->pid = ld.U32(end - l.trailer_tid);
    out->tid = ld.U32(end - l.trailer_tid + 4);
  }
  return true;
}

bool DecodeSampleIdTrailer(const RecordView& r, uint64_t st, const Loader& ld, SampleId* out) {
  return DecodeSampleIdTrailer(r, LayoutOfSampleType(st), ld, out);
}

namespace {

// Sets every field of *s to its Sample{} value.
static_assert(sizeof(Sample) == 368, "a field was added to Sample: reset it in ResetSample and compare it in "
                                     "sample_test's ExpectSameSample");
void ResetSample(Sample* s) {
  s->ip = 0;
  s->pid = s->tid = UINT32_MAX;
  s->time = UINT64_MAX;
  s->addr = 0;
  s->id = s->stream_id = UINT64_MAX;
  s->cpu = UINT32_MAX;
  s->period = s->weight = 0;
  s->ins_lat = 0;
  s->data_src = s->transaction = s->phys_addr = s->cgroup = 0;
  s->data_page_size = s->code_page_size = 0;
  s->misc = 0;
  // One assignment each: chained ones re-read what was just stored (a 16-byte load of
  // two 8-byte stores stalls store forwarding).
  s->read_values = {};
  s->callchain = {};
  s->raw_data = nullptr;
  s->raw_size = 0;
  s->branch_nr = 0;
  s->branch_hw_idx = UINT64_MAX;
  s->branch_entries = {};
  s->branch_counters = {};
  s->user_regs_abi = 0;
  s->user_regs = {};
  s->user_stack = nullptr;
  s->user_stack_size = s->user_stack_dyn_size = 0;
  s->intr_regs_abi = 0;
  s->intr_regs = {};
  s->aux_data = nullptr;
  s->aux_size = 0;
}

// Number of u64 words `n` fits in `left` bytes (overflow-safe).
inline bool FitsWords(uint64_t n, size_t left) { return n <= left / 8; }

}  // namespace

SampleError DecodeSample(const RecordView& r, const SampleLayout& l, const EventAttr& attr, const Loader& ld,
                         Sample* s) {
  const uint64_t st = attr.sample_type;
  // Field by field, not `*s = Sample{}`: GCC clears the 370-byte struct with `rep stos`,
  // which was two thirds of the decoding time of a typical sample.
  ResetSample(s);
  s->misc = r.misc;
  s->period = attr.sample_period;
  // The fixed fields at the layout's offsets. In a truncated record, one that does not
  // fit reads as 0 (and so does every later one), as a sequential read that stops at
  // header.size would; a whole one is read without a check per field.
  const uint8_t* p = r.data;
  const size_t size = r.size;
  auto read_fixed = [&](auto checked) {
    auto u64 = [&](uint32_t at) -> uint64_t { return !checked || at + 8u <= size ? ld.U64(p + at) : 0; };
    auto u32 = [&](uint32_t at) -> uint32_t { return !checked || at + 4u <= size ? ld.U32(p + at) : 0; };
    if (l.identifier) s->id = u64(l.identifier);
    if (l.ip) s->ip = u64(l.ip);
    if (l.tid) { s->pid = u32(l.tid); s->tid = u32(l.tid + 4); }
    if (l.time) s->time = u64(l.time);
    if (l.addr) s->addr = u64(l.addr);
    if (l.id) s->id = u64(l.id);
    if (l.stream_id) s->stream_id = u64(l.stream_id);
    if (l.cpu) s->cpu = u32(l.cpu);
    if (l.period) s->period = u64(l.period);
  };
  if (l.fixed_end > size) {
    read_fixed(std::true_type{});
    return SampleError::kTruncated;
  }
  read_fixed(std::false_type{});
  ByteCursor c(p + l.fixed_end, size - l.fixed_end, ld);

  if (st & kSampleRead) {
    const uint64_t rf = attr.read_format;
    uint64_t per_value = 1 + ((rf & kReadId) ? 1 : 0) + ((rf & kReadLost) ? 1 : 0);
    uint64_t words;
    if (rf & kReadGroup) {
      uint64_t nr = c.U64();
      if (c.failed()) return SampleError::kBadRead;
      uint64_t fixed = ((rf & kReadTotalTimeEnabled) ? 1 : 0) + ((rf & kReadTotalTimeRunning) ? 1 : 0);
      if (!FitsWords(nr, c.remaining()) || nr > c.remaining() / 8 / per_value) return SampleError::kBadRead;
      words = fixed + nr * per_value;
      s->read_values = {c.here() - 8, words + 1, ld.swap};
    } else {
      words = per_value + ((rf & kReadTotalTimeEnabled) ? 1 : 0) + ((rf & kReadTotalTimeRunning) ? 1 : 0);
      s->read_values = {c.here(), words, ld.swap};
    }
    if (!FitsWords(words, c.remaining())) return SampleError::kBadRead;
    c.Skip(words * 8);
  }

  if (st & kSampleCallchain) {
    uint64_t nr = c.U64();
    if (c.failed() || !FitsWords(nr, c.remaining())) return SampleError::kBadCallchain;
    s->callchain = {c.here(), nr, ld.swap};
    c.Skip(nr * 8);
  }

  if (st & kSampleRaw) {
    uint32_t size = c.U32();
    if (c.failed() || size > c.remaining()) return SampleError::kBadRaw;
    s->raw_size = size;
    s->raw_data = c.here();
    c.Skip(size);
  }

  if (st & kSampleBranchStack) {
    uint64_t nr = c.U64();
    if (c.failed()) return SampleError::kBadBranchStack;
    if (attr.branch_sample_type & kBranchSampleHwIndex) {
      s->branch_hw_idx = c.U64();
      if (c.failed()) return SampleError::kBadBranchStack;
    }
    if (nr > c.remaining() / 24) return SampleError::kBadBranchStack;
    s->branch_nr = nr;
    s->branch_entries = {c.here(), nr * 3, ld.swap};
    c.Skip(nr * 24);
    if (attr.branch_sample_type & kBranchSampleCounters) {
      if (!FitsWords(nr, c.remaining())) return SampleError::kBadBranchStack;
      s->branch_counters = {c.here(), nr, ld.swap};
      c.Skip(nr * 8);
    }
  }

  if (st & kSampleRegsUser) {
    s->user_regs_abi = c.U64();
    if (c.failed()) return SampleError::kBadRegs;
    if (s->user_regs_abi) {
      uint64_t n = static_cast<uint64_t>(std::popcount(attr.sample_regs_user));
      if (!FitsWords(n, c.remaining())) return SampleError::kBadRegs;
      s->user_regs = {c.here(), n, ld.swap};
      c.Skip(n * 8);
    }
  }

  if (st & kSampleStackUser) {
    uint64_t size = c.U64();
    if (c.failed() || size > c.remaining()) return SampleError::kBadStack;
    if (size) {
      s->user_stack = c.here();
      s->user_stack_size = size;
      c.Skip(size);
      s->user_stack_dyn_size = c.U64();
      if (c.failed()) return SampleError::kBadStack;
    }
  }

  if (st & (kSampleWeight | kSampleWeightStruct)) {
    uint64_t w = c.U64();
    if (st & kSampleWeightStruct) {
      s->weight = w & 0xffffffffu;
      s->ins_lat = static_cast<uint16_t>(w >> 32);
    } else {
      s->weight = w;
    }
  }
  if (st & kSampleDataSrc) s->data_src = c.U64();
  if (st & kSampleTransaction) s->transaction = c.U64();
  if (c.failed()) return SampleError::kTruncated;

  if (st & kSampleRegsIntr) {
    s->intr_regs_abi = c.U64();
    if (c.failed()) return SampleError::kBadRegs;
    if (s->intr_regs_abi) {
      uint64_t n = static_cast<uint64_t>(std::popcount(attr.sample_regs_intr));
      if (!FitsWords(n, c.remaining())) return SampleError::kBadRegs;
      s->intr_regs = {c.here(), n, ld.swap};
      c.Skip(n * 8);
    }
  }
  if (st & kSamplePhysAddr) s->phys_addr = c.U64();
  if (st & kSampleCgroup) s->cgroup = c.U64();
  if (st & kSampleDataPageSize) s->data_page_size = c.U64();
  if (st & kSampleCodePageSize) s->code_page_size = c.U64();
  if (c.failed()) return SampleError::kTruncated;

  if (st & kSampleAux) {
    uint64_t size = c.U64();
    if (c.failed() || size > c.remaining()) return SampleError::kBadAux;
    s->aux_size = size;
    s->aux_data = c.here();
    c.Skip(size);
  }
  return SampleError::kNone;
}

SampleError DecodeSampleBasicsSlow(const RecordView& r, const SampleLayout& layout, const EventAttr& attr,
                                   const Loader& ld, SampleBasics* out, Sample* scratch) {
  SampleError err = DecodeSample(r, layout, attr, ld, scratch);
  out->ip = scratch->ip;
  out->pid = scratch->pid;
  out->tid = scratch->tid;
  out->cpu = scratch->cpu;
  out->period = scratch->period;
  return err;
}

}  // namespace perflens
