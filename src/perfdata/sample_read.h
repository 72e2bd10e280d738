// SampleRead: the PERF_SAMPLE_READ block of one sample (Sample::read_values), read with
// its evsel's attr.read_format (perf's sample_read / sample_read_value; spec A8). The
// layout, in u64 words:
//   GROUP:  nr, [time_enabled], [time_running], then nr × {value, [id], [lost]}
//   single: value, [time_enabled], [time_running], [id], [lost]
// Example: read_format ID|GROUP|LOST (perf 6.1's `{a,b}:S`) with two members is
// {2, va, ida, 0, vb, idb, 0}: values(1) = {vb, idb, 0}.
//
// DecodeSample already checked that the block fits the record (kBadRead otherwise);
// this view still clamps nr to the words it was given, so a hand-made U64Array cannot
// make it read past them. A view over the record's bytes: valid as long as they are.
#pragma once

#include <cstdint>

#include "perfdata/sample.h"

namespace perflens {

// One counter's value (perf's sample_read_value): the counter's running total (not a
// delta), its sample id (0 without PERF_FORMAT_ID) and, with PERF_FORMAT_LOST, the
// samples it lost.
struct ReadValue {
  uint64_t value = 0;
  uint64_t id = 0;
  uint64_t lost = 0;
};

class SampleRead {
 public:
  SampleRead(const U64Array& raw, uint64_t read_format);

  bool group() const { return group_; }
  // Number of values: GROUP's nr (clamped to the words present), else 1 (0 when the
  // block is shorter than its fields).
  uint64_t size() const { return nr_; }
  ReadValue at(uint64_t i) const;  // i < size()
  uint64_t time_enabled() const { return time_enabled_; }  // 0 when not recorded
  uint64_t time_running() const { return time_running_; }

  // u64 words of one value (1 + ID + LOST): perf's sample_read_value_size / 8.
  static uint64_t ValueWords(uint64_t read_format);

 private:
  U64Array raw_;
  bool group_ = false;
  uint64_t stride_ = 1;
  uint64_t first_ = 0;  // index in raw_ of the first value (GROUP) or of the id (single)
  uint64_t nr_ = 0;
  uint64_t time_enabled_ = 0, time_running_ = 0;
  bool has_id_ = false, has_lost_ = false;
};

}  // namespace perflens
