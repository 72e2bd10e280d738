#include "perfdata/sample_read.h"

#include <algorithm>

#include "perfdata/perf_event.h"

namespace perflens {

uint64_t SampleRead::ValueWords(uint64_t read_format) {
  return 1 + ((read_format & kReadId) ? 1 : 0) + ((read_format & kReadLost) ? 1 : 0);
}

SampleRead::SampleRead(const U64Array& raw, uint64_t read_format)
    : raw_(raw),
      group_((read_format & kReadGroup) != 0),
      stride_(ValueWords(read_format)),
      has_id_((read_format & kReadId) != 0),
      has_lost_((read_format & kReadLost) != 0) {
  const bool enabled = (read_format & kReadTotalTimeEnabled) != 0;
  const bool running = (read_format & kReadTotalTimeRunning) != 0;
  uint64_t w = 1;  // past nr (GROUP) or past the value (single)
  if (raw.size < w) return;
  if (enabled) {
    if (raw.size <= w) return;
    time_enabled_ = raw[w++];
  }
  if (running) {
    if (raw.size <= w) return;
    time_running_ = raw[w++];
  }
  first_ = w;
  if (group_) {
    nr_ = std::min(raw[0], (raw.size - w) / stride_);
  } else {
    nr_ = raw.size - w >= stride_ - 1 ? 1 : 0;
  }
}

ReadValue SampleRead::at(uint64_t i) const {
  ReadValue v;
  if (i >= nr_) return v;
  if (group_) {
    uint64_t w = first_ + i * stride_;
    v.value = raw_[w++];
    if (has_id_) v.id = raw_[w++];
    if (has_lost_) v.lost = raw_[w];
  } else {
    v.value = raw_[0];
    uint64_t w = first_;
    if (has_id_) v.id = raw_[w++];
    if (has_lost_) v.lost = raw_[w];
  }
  return v;
}

}  // namespace perflens
