// Sample: one decoded PERF_RECORD_SAMPLE (A8 of the spec; field order as
// tools/perf/util/evsel.c evsel__parse_sample). Variable-length parts are views into
// the record bytes, decoded on access with the file's byte order: no allocation.
// Where the fixed fields and the sample_id trailer are comes from the evsel's
// SampleLayout (sample_layout.h), the one description of that order.
#pragma once

#include <bit>
#include <cstdint>

#include "base/byte_order.h"
#include "perfdata/event_attr.h"
#include "perfdata/record.h"
#include "perfdata/sample_layout.h"

namespace perflens {

// A run of u64 in file byte order (callchain ips, registers, branch entries).
struct U64Array {
  const uint8_t* data = nullptr;
  uint64_t size = 0;  // number of u64 elements
  bool swap = false;
  uint64_t operator[](uint64_t i) const { return Loader{swap}.U64(data + i * 8); }
  bool empty() const { return size == 0; }
};

struct BranchEntry {
  uint64_t from = 0, to = 0, flags = 0;
};

// A branch_entry's flags word decoded (perf's struct branch_flags). A little-endian
// writer puts field bits from bit 0 up: 0 mispred, 1 predicted, 2 in_tx, 3 abort,
// 4-19 cycles, 20-23 type, 24-25 spec, 26-29 new_type, 30-32 priv; a big-endian one
// allocates the same fields from bit 63 down (evsel__bitfield_swap_branch_flags).
struct BranchFlags {
  bool mispred = false, predicted = false, in_tx = false, abort = false;
  uint16_t cycles = 0;
  uint8_t type = 0, spec = 0, new_type = 0, priv = 0;
};
// `value` is the flags u64 as a number (already byte-swapped to host order);
// `big_endian_writer`: the file's byte order is big-endian.
BranchFlags DecodeBranchFlags(uint64_t value, bool big_endian_writer);

struct Sample {
  uint64_t ip = 0;
  uint32_t pid = UINT32_MAX, tid = UINT32_MAX;
  uint64_t time = UINT64_MAX;  // ns, perf clock; UINT64_MAX when not recorded
  uint64_t addr = 0;
  uint64_t id = UINT64_MAX;
  uint64_t stream_id = UINT64_MAX;
  uint32_t cpu = UINT32_MAX;
  uint64_t period = 0;  // attr.sample_period when PERF_SAMPLE_PERIOD is absent
  uint64_t weight = 0;
  uint16_t ins_lat = 0;
  uint64_t data_src = 0;
  uint64_t transaction = 0;
  uint64_t phys_addr = 0;
  uint64_t cgroup = 0;
  uint64_t data_page_size = 0, code_page_size = 0;
  uint16_t misc = 0;
  uint16_t cpumode() const { return misc & kMiscCpumodeMask; }

  U64Array read_values;  // raw read_format block (decode with the evsel's read_format)
  U64Array callchain;    // ips[] including context markers, callee first
  const uint8_t* raw_data = nullptr;
  uint32_t raw_size = 0;
  uint64_t branch_nr = 0;
  uint64_t branch_hw_idx = UINT64_MAX;
  U64Array branch_entries;  // 3 u64 per entry: from, to, flags
  U64Array branch_counters;
  uint64_t user_regs_abi = 0;
  U64Array user_regs;
  const uint8_t* user_stack = nullptr;
  uint64_t user_stack_size = 0;  // bytes copied by the kernel
  // The valid prefix as recorded; more than user_stack_size is inconsistent (perf
  // rejects such samples; the unwinder stops on them), so check before reading.
  uint64_t user_stack_dyn_size = 0;
  uint64_t intr_regs_abi = 0;
  U64Array intr_regs;
  const uint8_t* aux_data = nullptr;
  uint64_t aux_size = 0;

  BranchEntry branch(uint64_t i) const {
    return {branch_entries[3 * i], branch_entries[3 * i + 1], branch_entries[3 * i + 2]};
  }
  // Entry i's flags decoded for the byte order the file was written in.
  BranchFlags branch_flags(uint64_t i) const {
    return DecodeBranchFlags(branch_entries[3 * i + 2], branch_entries.swap != (std::endian::native == std::endian::big));
  }
};

enum class SampleError {
  kNone,
  kTruncated,      // a fixed field runs past header.size
  kBadCallchain,   // callchain nr larger than the record
  kBadRaw,
  kBadBranchStack,
  kBadRegs,
  kBadStack,
  kBadAux,
  kBadRead,
};
const char* SampleErrorName(SampleError e);

// Decodes `r` (a PERF_RECORD_SAMPLE): the fixed fields at `layout`'s offsets, the rest
// walked with `attr`'s sample_type, read_format, branch_sample_type and register masks.
// `layout` is MakeSampleLayout(attr). Every field is bounds-checked against
// header.size; a fixed field past it reads as 0 and gives kTruncated. Errors are
// returned as a code so that callers can count them per type.
SampleError DecodeSample(const RecordView& r, const SampleLayout& layout, const EventAttr& attr, const Loader& ld,
                         Sample* out);
// The same, computing the layout (tests, one-off callers).
inline SampleError DecodeSample(const RecordView& r, const EventAttr& attr, const Loader& ld, Sample* out) {
  return DecodeSample(r, MakeSampleLayout(attr), attr, ld, out);
}

// The fields of a sample that a report without callchains needs.
struct SampleBasics {
  uint64_t ip = 0;  // PERF_SAMPLE_IP: a virtual address of the sampled task (or kernel)
  uint32_t pid = UINT32_MAX, tid = UINT32_MAX;
  uint32_t cpu = UINT32_MAX;
  uint64_t period = 0;  // PERF_SAMPLE_PERIOD, else attr.sample_period
};

// Decodes only SampleBasics from `r`, in place: for the common layouts (fixed fields,
// optionally a CALLCHAIN after them) it reads the few words it needs and checks the
// record's size and the callchain's length; other layouts go through DecodeSample into
// *scratch. Either way the values and the SampleError are DecodeSample's. `layout` is
// MakeSampleLayout(attr).
SampleError DecodeSampleBasicsSlow(const RecordView& r, const SampleLayout& layout, const EventAttr& attr,
                                   const Loader& ld, SampleBasics* out, Sample* scratch);
inline SampleError DecodeSampleBasics(const RecordView& r, const SampleLayout& layout, const EventAttr& attr,
                                      const Loader& ld, SampleBasics* out, Sample* scratch) {
  if (!layout.basics_in_place) return DecodeSampleBasicsSlow(r, layout, attr, ld, out, scratch);
  const size_t body = r.size >= 8 ? r.size - 8u : 0;
  if (layout.fixed_end - 8u > body) return SampleError::kTruncated;
  if (layout.callchain) {
    const size_t left = body - (layout.fixed_end - 8u);  // the count, then its words
    if (left < 8 || ld.U64(r.data + layout.fixed_end) > (left - 8) / 8) return SampleError::kBadCallchain;
  }
  out->ip = layout.ip ? ld.U64(r.data + layout.ip) : 0;
  out->pid = layout.tid ? ld.U32(r.data + layout.tid) : UINT32_MAX;
  out->tid = layout.tid ? ld.U32(r.data + layout.tid + 4) : UINT32_MAX;
  out->cpu = layout.cpu ? ld.U32(r.data + layout.cpu) : UINT32_MAX;
  out->period = layout.period ? ld.U64(r.data + layout.period) : layout.sample_period;
  return SampleError::kNone;
}
// The same, computing the layout (tests, one-off callers).
inline SampleError DecodeSampleBasics(const RecordView& r, const EventAttr& attr, const Loader& ld, SampleBasics* out,
                                      Sample* scratch) {
  return DecodeSampleBasics(r, MakeSampleLayout(attr), attr, ld, out, scratch);
}

// Parses the sample_id trailer at the end of a non-sample record at `layout`'s
// distances from its end. Returns false when the record is shorter than the trailer
// (8-byte header + layout.trailer_size); fields not in the layout keep their values.
bool DecodeSampleIdTrailer(const RecordView& r, const SampleLayout& layout, const Loader& ld, SampleId* out);
// The same for an evsel of `sample_type` (tests, one-off callers).
bool DecodeSampleIdTrailer(const RecordView& r, uint64_t sample_type, const Loader& ld,
                           SampleId* out);

// Bytes of the sample_id trailer for `sample_type` (evsel__id_hdr_size).
uint32_t SampleIdTrailerSize(uint64_t sample_type);

}  // namespace perflens
