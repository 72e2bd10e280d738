#include "session/sample_counts.h"

#include <fmt/format.h>

#include "perfdata/perf_event.h"

namespace perflens {

bool SampleCounts::CountUnusable(const RecordView& r, const Evsel* ev, SampleError err) {
  if (!ev) {
    ++nr_unknown_id;
    return false;
  }
  if (nr_bad_samples++ == 0) {
    first_bad_sample_offset = r.perf_data_offset;
    first_bad_sample_error = err;
  }
  return false;
}

bool SampleCounts::Parse(const PerfFile& file, const RecordView& r, Sample* s, const Evsel** ev) {
  SampleError err = file.ParseSample(r, s, ev);
  if (!*ev || err != SampleError::kNone) return CountUnusable(r, *ev, err);
  ++nr_samples;
  if ((*ev)->attr.sample_type & kSampleStackUser) ++nr_user_stacks;
  return true;
}

void SampleCounts::AppendSummary(std::vector<std::string>* lines) const {
  if (nr_unknown_id) lines->push_back(fmt::format("{} samples with an unknown sample id skipped", nr_unknown_id));
  if (nr_bad_samples)
    lines->push_back(fmt::format("{} malformed samples skipped (first: SAMPLE at offset {:#x}: {})", nr_bad_samples,
                                 first_bad_sample_offset, SampleErrorName(first_bad_sample_error)));
}

}  // namespace perflens
