// SampleCounts: decoding a SAMPLE record with its evsel and counting what could not be
// used (unknown sample id, malformed record), shared by `report` and `script` so that
// both skip, count and summarize bad samples the same way (once, never per sample).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "perfdata/perf_file.h"

namespace perflens {

struct SampleCounts {
  uint64_t nr_samples = 0;               // decoded and usable
  uint64_t nr_unknown_id = 0;            // sample id matched no evsel
  uint64_t nr_bad_samples = 0;           // malformed sample records
  uint64_t first_bad_sample_offset = 0;  // file offset of the first malformed one
  SampleError first_bad_sample_error = SampleError::kNone;
  uint64_t nr_user_stacks = 0;           // samples with a user stack copy (--call-graph dwarf)

  // Decodes `r` into *s / *ev. False (and counted) for an unknown id or a malformed
  // record; true (and counted in nr_samples) otherwise.
  bool Parse(const PerfFile& file, const RecordView& r, Sample* s, const Evsel** ev);
  // The same for the basic fields only (PerfFile::ParseSampleBasics). Inline: it runs
  // for every sample of a flat report.
  bool ParseBasics(const PerfFile& file, const RecordView& r, SampleBasics* s, const Evsel** ev, Sample* scratch) {
    SampleError err = file.ParseSampleBasics(r, s, ev, scratch);
    if (!*ev || err != SampleError::kNone) return CountUnusable(r, *ev, err);
    ++nr_samples;
    if ((*ev)->attr.sample_type & kSampleStackUser) ++nr_user_stacks;
    return true;
  }
  // Counts a sample with an unknown id (ev nullptr) or a decoding error; false.
  bool CountUnusable(const RecordView& r, const Evsel* ev, SampleError err);
  // Appends the summary lines for the skipped samples.
  void AppendSummary(std::vector<std::string>* lines) const;
};

}  // namespace perflens
