#include "perfdata/sample_layout.h"

#include "perfdata/perf_event.h"

namespace perflens {

SampleLayout MakeSampleLayout(const EventAttr& attr) {
  const uint64_t st = attr.sample_type;
  SampleLayout l;
  l.sample_period = attr.sample_period;
  // Fixed fields of a SAMPLE, in perf_event.h order.
  uint32_t at = 8;
  auto fixed = [&](uint64_t bit, uint32_t* field) {
    if (!(st & bit)) return;
    *field = at;
    at += 8;
  };
  fixed(kSampleIdentifier, &l.identifier);
  fixed(kSampleIp, &l.ip);
  fixed(kSampleTid, &l.tid);
  fixed(kSampleTime, &l.time);
  fixed(kSampleAddr, &l.addr);
  fixed(kSampleId, &l.id);
  fixed(kSampleStreamId, &l.stream_id);
  fixed(kSampleCpu, &l.cpu);
  fixed(kSamplePeriod, &l.period);
  l.fixed_end = at;
  l.sample_evsel_id = l.identifier ? l.identifier : l.id;

  // struct sample_id: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER, at the record's end,
  // so IDENTIFIER is always the last u64 (that is why perf added it).
  uint32_t from_end = 0;
  auto trailer = [&](uint64_t bit, uint32_t* field) {
    if (!(st & bit)) return;
    from_end += 8;
    *field = from_end;
  };
  trailer(kSampleIdentifier, &l.trailer_identifier);
  trailer(kSampleCpu, &l.trailer_cpu);
  trailer(kSampleStreamId, &l.trailer_stream_id);
  trailer(kSampleId, &l.trailer_id);
  trailer(kSampleTime, &l.trailer_time);
  trailer(kSampleTid, &l.trailer_tid);
  l.trailer_size = from_end;
  l.trailer_evsel_id = l.trailer_identifier ? l.trailer_identifier : l.trailer_id;

  constexpr uint64_t kFixed = kSampleIdentifier | kSampleIp | kSampleTid | kSampleTime | kSampleAddr | kSampleId |
                              kSampleStreamId | kSampleCpu | kSamplePeriod;
  l.basics_in_place = (st & ~(kFixed | kSampleCallchain)) == 0;
  l.callchain = (st & kSampleCallchain) != 0;
  return l;
}

}  // namespace perflens
