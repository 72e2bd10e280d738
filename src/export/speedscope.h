// speedscope export: a session consumer that writes the samples as one speedscope
// JSON document (https://www.speedscope.app/file-format-schema.json; the schema is
// tests/scenario/testdata/speedscope-file-format-schema.json).
//
// Shape of the document (one per perf.data file):
//   shared.frames  one per distinct (frame name, Dso): name as export/sample_frames.h
//                  FrameName gives it (the symbol, "[libc.so.6]", "[unknown]"), file =
//                  the Dso's long name when the frame is in one ("[kernel.kallsyms]"
//                  for kernel frames).
//   profiles       one "sampled" profile per (evsel, pid, tid), busiest first within
//                  each evsel in file order, named "comm pid/tid" (the thread's last
//                  comm seen) and " event" appended when the file has several evsels.
//                  samples: each delivered sample's stack as frame indexes root first
//                  (caller first, leaf last), in delivery (time) order; weights: the
//                  samples it stands for (1, or n for a summed one of a file without
//                  callchains), or its period with weight_by_period. unit: "none", or
//                  "nanoseconds" for the period of cpu-clock/task-clock. startValue 0,
//                  endValue the sum of the weights.
//   name           the input file's path; activeProfileIndex 0; exporter "perflens".
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "perfdata/evlist.h"
#include "session/session.h"

namespace perflens {

class SpeedscopeConsumer : public SampleConsumer {
 public:
  SpeedscopeConsumer(const std::vector<Evsel>& evsels, bool weight_by_period);
  void OnSample(const ResolvedSample& s) override;
  // The JSON document, "name" = `name`.
  std::string Serialize(std::string_view name) const;
  // The sum of every profile's weights.
  uint64_t total_weight() const { return total_weight_; }

 private:
  struct Frame {
    std::string name;
    const Dso* dso;
  };
  struct Profile {
    uint32_t evsel, pid, tid;
    const std::string* comm;
    uint64_t total = 0;
    std::vector<uint32_t> stacks;  // stack ids, per sample
    std::vector<uint64_t> weights;
  };
  struct PtrPairHash {
    size_t operator()(const std::pair<const void*, const void*>& k) const {
      return std::hash<const void*>{}(k.first) * 31 + std::hash<const void*>{}(k.second);
    }
  };
  uint32_t FrameOf(const AddrLocation& al);

  std::vector<Evsel> evsels_;
  bool weight_by_period_;
  std::unordered_map<std::pair<const void*, const void*>, uint32_t, PtrPairHash> frame_cache_;  // (dso, sym)
  std::map<std::pair<std::string, const Dso*>, uint32_t> frame_ids_;
  std::vector<Frame> frames_;
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> profile_ids_;  // (evsel, pid, tid)
  std::vector<Profile> profiles_;
  // Stacks interned: the frame indexes root first as bytes → id; stack id i is
  // stack_pool_[stack_begin_[i], stack_begin_[i + 1]).
  std::unordered_map<std::string, uint32_t> stack_ids_;
  std::vector<uint32_t> stack_pool_;
  std::vector<uint32_t> stack_begin_{0};
  uint64_t total_weight_ = 0;
  std::vector<AddrLocation> frames_scratch_;
  std::vector<uint32_t> stack_scratch_;
};

}  // namespace perflens
