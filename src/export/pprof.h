// pprof export: a session consumer that aggregates the resolved samples into the
// pieces of pprof's profile.proto (github.com/google/pprof/proto/profile.proto, copied
// under export/proto/) and serializes them gzipped, as pprof reads them.
//
// Shape of the profile (one per perf.data file):
//   sample_type  two per evsel, in evsel order: (samples, count) and (event, unit) with
//                unit "nanoseconds" for cpu-clock/task-clock, else "count". With more
//                than one evsel the first of each pair is named "<event>_samples".
//   Sample       one per distinct (stack, pid, tid, comm); values are 0 for the other
//                evsels' types. Labels: pid, tid (num), comm (str).
//   Location     one per (mapping, ip, symbol): address = the ip (runtime address in
//                the process, not adjusted for return addresses), leaf first; the frames
//                a DWARF-unwound chain gives for functions inlined at one ip are one
//                location's lines (innermost first, as pprof orders them). An
//                unresolved frame has no line; outside any map it has no mapping. The
//                leaf is the sample's own location (report's self row) unless the
//                callchain starts at the sample ip.
//   Mapping      the process's (or kernel's) map of the frame: [start, end), file_offset =
//                pgoff, filename = the Dso's long name, build_id = its recorded build-id
//                in hex. Example: libc mapped at 0x7f0000028000 with pgoff 0x28000 gives
//                memory_start 0x7f0000028000, file_offset 0x28000; a frame at ip
//                0x7f00000291a0 is at file offset 0x291a0 as pprof computes it. The
//                user-space file most leaf samples hit comes first (pprof's main binary).
//   Function     per symbol: name as report prints it (demangled), system_name the same
//                (the table keeps no mangled form), filename the source file when the
//                Dso's DWARF says it (and each Line its line).
//   time_nanos / duration_nanos: the first sample's time and the span to the last
//   (from HEADER_SAMPLE_TIME when the session summed samples and kept no time); the
//   recording clock's time (perf's default: monotonic, so pprof shows a 1970 date)
//   unless HEADER_CLOCK_DATA (perf record -k) puts it on the wall clock.
//   period_type / period: the first evsel's type and its sample period (a frequency
//   of a clock event: 1e9 / freq ns; another event sampled by frequency: 0).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/id_index.h"
#include "base/result.h"
#include "model/machine.h"
#include "perfdata/evlist.h"
#include "perfdata/features.h"
#include "session/session.h"
#include "symbolize/symbolizer.h"

namespace perflens {

class PprofConsumer : public SampleConsumer {
 public:
  // `machine`: the session's, read on the resolving thread to find each new frame's
  // map (the consumer must run there: SessionOptions::consumer_thread off).
  PprofConsumer(const std::vector<Evsel>& evsels, const Machine* machine);
  ~PprofConsumer() override;
  void OnSample(const ResolvedSample& s) override;
  // Interns the samples still pending (OnSample batches them); nr_samples() and
  // Serialize count only interned ones.
  void Finish() override;
  // The first and last time (ns) of samples delivered without theirs (summed with
  // their chains: Session::summed_chain_times), for the profile's time and duration.
  void AddSampleTimes(uint64_t first, uint64_t last) {
    first_time_ = std::min(first_time_, first);
    last_time_ = std::max(last_time_, last);
  }

  // The profile, serialized and gzip-compressed. From `env`: HEADER_SAMPLE_TIME when
  // the samples came summed (without times), HEADER_CLOCK_DATA for the wall clock.
  // With `symbolizer` (the session's; nullptr: no source lines), each line gets its
  // source line and each function the source file of its first line seen, from the
  // DWARF of the Dso (DsoModule::FramesAt at the location's file offset: the ip as
  // recorded, a caller's return address too).
  Result<std::string> Serialize(const HeaderEnv& env, const std::vector<std::string>& comments,
                                Symbolizer* symbolizer = nullptr) const;

  size_t nr_samples() const { return sample_threads_.size(); }
  size_t nr_locations() const { return locations_.size(); }
  // Per evsel: the samples and the period added (the report's totals).
  const std::vector<uint64_t>& total_samples() const { return total_samples_; }
  const std::vector<uint64_t>& total_period() const { return total_period_; }

 private:
  struct LocationKey {
    const Dso* dso;
    uint64_t bias;  // ip - dso_addr: tells two placements of one Dso apart
    uint64_t ip;
    const Symbol* sym;  // innermost symbol
    uint32_t nr_lines;
    bool operator==(const LocationKey&) const = default;
  };
  struct LocationKeyHash {
    size_t operator()(const LocationKey& k) const;
  };
  struct MappingKey {
    const Dso* dso;
    uint64_t start, end, pgoff;
    bool operator==(const MappingKey&) const = default;
  };
  struct MappingKeyHash {
    size_t operator()(const MappingKey& k) const;
  };
  struct MappingData {
    MappingKey key;
    bool found = true;  // false: no Map held the ip; start/end are the ips seen
    bool has_functions = false, has_inline_frames = false;
    uint64_t weight = 0;  // leaf samples, to pick the main binary
  };
  struct LocationData {
    LocationKey key;
    uint64_t mapping_id = 0;  // 0: none
    uint64_t address = 0;
    uint32_t first_line = 0, nr_lines = 0;  // in lines_
  };
  struct ThreadKey {
    uint32_t pid, tid;
    const std::string* comm;
    bool operator==(const ThreadKey&) const = default;
  };
  struct ThreadKeyHash {
    size_t operator()(const ThreadKey& k) const;
  };

  // The id of the location of frames[0..n) (one ip; n > 1 for inline frames).
  uint32_t LocationOf(const ResolvedSample& s, uint64_t ip, const AddrLocation* frames, uint32_t n);
  uint64_t MappingOf(const ResolvedSample& s, uint64_t ip, const AddrLocation& al);
  uint64_t FunctionOf(const Symbol* sym);

  std::vector<Evsel> evsels_;
  const Machine* machine_;
  // Locations: a direct-mapped cache of recent keys in front of the map.
  struct LocationSlot {
    LocationKey key{};
    uint32_t id = 0;  // 0: empty
  };
  std::vector<LocationSlot> location_cache_;
  IdIndex location_ids_;
  std::vector<LocationData> locations_;        // id - 1
  std::vector<uint64_t> lines_;                // function ids of every location's lines
  std::unordered_map<MappingKey, uint64_t, MappingKeyHash> mapping_ids_;
  std::vector<MappingData> mappings_;          // id - 1
  std::unordered_map<const Symbol*, uint64_t> function_ids_;
  std::vector<const Symbol*> functions_;       // id - 1
  // (pid, tid, comm) → thread id; a sample is (thread id, stack), its stack's location
  // ids (leaf first) at stack_pool_[sample_stack_begin_[i], sample_stack_begin_[i + 1]).
  std::unordered_map<ThreadKey, uint32_t, ThreadKeyHash> thread_ids_;
  std::vector<ThreadKey> threads_;
  ThreadKey last_thread_{UINT32_MAX, UINT32_MAX, nullptr};
  uint32_t last_thread_id_ = 0;
  IdIndex sample_ids_;
  std::vector<uint32_t> sample_threads_;          // per sample
  std::vector<uint32_t> sample_stack_begin_{0};   // per sample, and the end
  std::vector<uint32_t> stack_pool_;
  std::vector<int64_t> values_;  // 2 per evsel per sample
  std::vector<uint64_t> total_samples_, total_period_;
  uint64_t first_time_ = UINT64_MAX, last_time_ = 0;
  // Samples wait in a batch of kPendingSamples before they are interned, their slot in
  // sample_ids_ prefetched when they arrive: with ~1M distinct stacks that table is
  // far larger than the caches, and one probe at a time waited on memory for each.
  // Interned in arrival order, so ids and output are the same as one at a time.
  struct PendingSample {
    uint64_t hash;
    uint32_t thread_id, evsel;
    uint32_t stack_begin, stack_end;  // in pending_stacks_
    uint64_t nr_samples, period;
  };
  static constexpr size_t kPendingSamples = 16;
  std::vector<PendingSample> pending_;
  std::vector<uint32_t> pending_stacks_;  // the pending samples' location ids, leaf first
  void InternPending();
  std::vector<AddrLocation> group_;    // scratch: one location's frames
};

}  // namespace perflens
