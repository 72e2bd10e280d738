#include "perfdata/sample.h"

#include <bit>

namespace perflens {

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

uint32_t SampleIdTrailerSize(uint64_t st) {
  uint32_t n = 0;
  for (uint64_t bit : {kSampleTid, kSampleTime, kSampleId, kSampleStreamId, kSampleCpu,
                       kSampleIdentifier})
    if (st & bit) n += 8;
  return n;
}

bool DecodeSampleIdTrailer(const RecordView& r, uint64_t st, const Loader& ld, SampleId* out) {
  uint32_t need = SampleIdTrailerSize(st);
  if (r.size < 8u + need) return false;
  const uint8_t* p = r.data + r.size;  // parsed backwards from the end
  if (st & kSampleIdentifier) { p -= 8; out->id = ld.U64(p); }
  if (st & kSampleCpu) { p -= 8; out->cpu = ld.U32(p); }
  if (st & kSampleStreamId) { p -= 8; out->stream_id = ld.U64(p); }
  if (st & kSampleId) { p -= 8; out->id = ld.U64(p); }
  if (st & kSampleTime) { p -= 8; out->time = ld.U64(p); }
  if (st & kSampleTid) { p -= 8; out->pid = ld.U32(p); out->tid = ld.U32(p + 4); }
  return true;
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

SampleError DecodeSample(const RecordView& r, const EventAttr& attr, const Loader& ld, Sample* s) {
  const uint64_t st = attr.sample_type;
  ByteCursor c(r.data + 8, r.size >= 8 ? r.size - 8u : 0, ld);
  // Field by field, not `*s = Sample{}`: GCC clears the 370-byte struct with `rep stos`,
  // which was two thirds of the decoding time of a typical sample.
  ResetSample(s);
  s->misc = r.misc;
  s->period = attr.sample_period;
  if (st & kSampleIdentifier) s->id = c.U64();
  if (st & kSampleIp) s->ip = c.U64();
  if (st & kSampleTid) { s->pid = c.U32(); s->tid = c.U32(); }
  if (st & kSampleTime) s->time = c.U64();
  if (st & kSampleAddr) s->addr = c.U64();
  if (st & kSampleId) s->id = c.U64();
  if (st & kSampleStreamId) s->stream_id = c.U64();
  if (st & kSampleCpu) { s->cpu = c.U32(); c.U32(); }
  if (st & kSamplePeriod) s->period = c.U64();
  if (c.failed()) return SampleError::kTruncated;

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
      if (s->user_stack_dyn_size > size) s->user_stack_dyn_size = size;
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

SampleBasicsLayout MakeSampleBasicsLayout(const EventAttr& attr) {
  constexpr uint64_t kFixed = kSampleIdentifier | kSampleIp | kSampleTid | kSampleTime | kSampleAddr | kSampleId |
                              kSampleStreamId | kSampleCpu | kSamplePeriod;
  const uint64_t st = attr.sample_type;
  SampleBasicsLayout l;
  l.sample_period = attr.sample_period;
  l.in_place = (st & ~(kFixed | kSampleCallchain)) == 0;
  l.callchain = (st & kSampleCallchain) != 0;
  // Every fixed field is one u64 (TID and CPU are two u32), in A8 order.
  uint32_t at = 8;
  if (st & kSampleIdentifier) at += 8;
  if (st & kSampleIp) { l.ip = at; at += 8; }
  if (st & kSampleTid) { l.tid = at; at += 8; }
  if (st & kSampleTime) at += 8;
  if (st & kSampleAddr) at += 8;
  if (st & kSampleId) at += 8;
  if (st & kSampleStreamId) at += 8;
  if (st & kSampleCpu) { l.cpu = at; at += 8; }
  if (st & kSamplePeriod) { l.period = at; at += 8; }
  l.fixed_size = at - 8;
  return l;
}

SampleError DecodeSampleBasicsSlow(const RecordView& r, const EventAttr& attr, const Loader& ld, SampleBasics* out,
                                   Sample* scratch) {
  SampleError err = DecodeSample(r, attr, ld, scratch);
  out->ip = scratch->ip;
  out->pid = scratch->pid;
  out->tid = scratch->tid;
  out->cpu = scratch->cpu;
  out->period = scratch->period;
  return err;
}

}  // namespace perflens
