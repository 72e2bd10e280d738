// SampleLayout: where the PERF_SAMPLE_* fields sit in the records of one evsel, computed
// once from its attr. It is the only place that knows the field order: DecodeSample,
// DecodeSampleBasics, DecodeSampleIdTrailer, the evsel lookup by id and the ordering
// timestamp all read their offsets from it.
//
// Source of the layout: include/uapi/linux/perf_event.h (the PERF_RECORD_SAMPLE comment
// and `struct sample_id`), tools/perf/util/evsel.c (evsel__parse_sample,
// evsel__calc_id_pos / __evsel__calc_is_pos); spec A7 (sample_id) and A8 (sample).
//
// All offsets are bytes inside one record of perf.data (not DSO file offsets), every
// fixed field is one u64 (TID holds pid and tid as u32, CPU holds cpu and a reserved
// u32). Example: sample_type IP|TID|TIME|CPU|PERIOD puts ip at 8, tid at 16, time at
// 24, cpu at 32, period at 40, fixed_end 48; with sample_id_all the trailer of a COMM
// is TID, TIME, CPU (24 bytes): time is 16 bytes before the record's end.
#pragma once

#include <cstdint>

#include "perfdata/event_attr.h"

namespace perflens {

struct SampleLayout {
  // Fixed fields at the front of a SAMPLE, as byte offsets from the record's start (the
  // 8-byte header included); 0: not sampled.
  uint32_t identifier = 0, ip = 0, tid = 0, time = 0, addr = 0, id = 0, stream_id = 0, cpu = 0, period = 0;
  // Offset of the first variable-length field (READ, CALLCHAIN, ...): 8 + 8 × the
  // number of fixed fields.
  uint32_t fixed_end = 8;
  // Offset of the id that names the evsel of a SAMPLE (IDENTIFIER, else ID); 0: none.
  uint32_t sample_evsel_id = 0;

  // The sample_id trailer of non-sample records (attr.sample_id_all): its size and the
  // distance in bytes from the record's end back to each field; 0: not there.
  uint32_t trailer_size = 0;
  uint32_t trailer_tid = 0, trailer_time = 0, trailer_id = 0, trailer_stream_id = 0, trailer_cpu = 0,
           trailer_identifier = 0;
  // Distance from the end of the id that names the evsel (IDENTIFIER, else ID); 0: none.
  uint32_t trailer_evsel_id = 0;

  // DecodeSampleBasics: true when a sample holds only fixed fields, optionally a
  // CALLCHAIN after them, so the basics are read in place.
  bool basics_in_place = false;
  bool callchain = false;
  uint64_t sample_period = 0;  // attr.sample_period: the period of a sample without PERIOD
};

// The layout of the samples and sample_id trailers of `attr` (sample_type and
// sample_period; the variable-length fields are walked by DecodeSample with
// read_format, branch_sample_type and the register masks). No errors: every
// sample_type has a layout; records too short for it are DecodeSample's errors.
SampleLayout MakeSampleLayout(const EventAttr& attr);

}  // namespace perflens
