#include "report/sample_counts.h"

#include <fmt/format.h>

#include "perfdata/perf_event.h"

namespace perflens {

namespace {

// The counting of Parse and ParseBasics.
template <typename Counts>
bool Count(Counts* c, SampleError err, const RecordView& r, const Evsel* ev) {
  if (!ev) {
    ++c->nr_unknown_id;
    return false;
  }
  if (err != SampleError::kNone) {
    if (c->nr_bad_samples++ == 0) {
      c->first_bad_sample_offset = r.file_offset;
      c->first_bad_sample_error = err;
    }
    return false;
  }
  ++c->nr_samples;
  if (ev->attr.sample_type & kSampleStackUser) ++c->nr_user_stacks;
  return true;
}

}  // namespace

bool SampleCounts::ParseBasics(const PerfFile& file, const RecordView& r, SampleBasics* s, const Evsel** ev,
                               Sample* scratch) {
  SampleError err = file.ParseSampleBasics(r, s, ev, scratch);
  return Count(this, err, r, *ev);
}

bool SampleCounts::Parse(const PerfFile& file, const RecordView& r, Sample* s, const Evsel** ev) {
  SampleError err = file.ParseSample(r, s, ev);
  return Count(this, err, r, *ev);
}

void SampleCounts::AppendSummary(std::vector<std::string>* lines) const {
  if (nr_unknown_id) lines->push_back(fmt::format("{} samples with an unknown sample id skipped", nr_unknown_id));
  if (nr_bad_samples)
    lines->push_back(fmt::format("{} malformed samples skipped (first: SAMPLE at offset {:#x}: {})", nr_bad_samples,
                                 first_bad_sample_offset, SampleErrorName(first_bad_sample_error)));
  if (nr_user_stacks)
    lines->push_back(fmt::format("{} samples carry user stacks for DWARF unwinding (--call-graph dwarf); perflens "
                                 "does not unwind them yet, so their callchains have only the kernel's part",
                                 nr_user_stacks));
}

}  // namespace perflens
