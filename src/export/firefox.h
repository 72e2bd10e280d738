// Firefox Profiler export: a session consumer that writes the samples as a "processed"
// profile (the JSON https://profiler.firefox.com loads with "Load a profile from file"),
// preprocessedProfileVersion 49: the shape the profiler's src/types/profile.js had at
// that version (per-thread tables and string array; stackTable with category and
// subcategory; frameTable with implementation; pid a string), as samply's
// fxprof-processed-profile wrote it until it moved to version 53. The profiler upgrades
// a version-49 profile to its current version when it loads it.
//
// Shape of the profile (one per perf.data file):
//   meta      version 24 (the Gecko version field, ignored for processed profiles),
//             preprocessedProfileVersion 49, product "perflens", interval = the first
//             evsel's sample period in ms (cpu-clock -c 1000000 → 1; -F 1000 → 1; 1
//             when unknown), startTime = the first sample on the wall clock in ms since
//             the epoch with HEADER_CLOCK_DATA (perf record -k), else 0; symbolicated;
//             categories User (yellow), Kernel (orange), Other (grey), each with the one
//             subcategory "Other"; markerSchema [].
//   libs      one per Dso a frame is in: name = basename, path = long name, breakpadId
//             from the build-id (its first 16 bytes as a GUID, then age 0), codeId the
//             build-id in hex.
//   threads   one per (evsel, pid, tid), ordered by evsel, pid, then the main thread
//             (tid == pid) first: name the thread's last comm (" (event)" appended with
//             several evsels), pid a string, tid a number, isMainThread tid == pid,
//             processType "default". Each has its own tables:
//     samples     stack, time (ms since the profile's first sample, non-decreasing:
//                 sorted per thread), weight null (or the samples each stands for when
//                 the session summed some), weightType "samples".
//     stackTable  a prefix tree of the stacks root first: prefix null for a root, else
//                 an index below the stack's own; category/subcategory of its frame.
//     frameTable  one per (function, address): address = the Dso address (dso_addr,
//                 the link-time address the symbol tables use) of a user frame, -1 for
//                 kernel frames and frames outside any Dso; category Kernel for
//                 kernel frames ('k'), User for user frames, Other for the rest
//                 (hypervisor, guest); inlineDepth 0; nativeSymbol, line, column null.
//     funcTable   one per (name, Dso): name as export/sample_frames.h FrameName gives
//                 it, resource the Dso's (-1 outside any), isJS/relevantForJS false.
//     resourceTable  one per Dso (type 1, library), lib its index in libs.
//     nativeSymbols, markers  empty tables.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "perfdata/evlist.h"
#include "perfdata/features.h"
#include "session/session.h"

namespace perflens {

class FirefoxConsumer : public SampleConsumer {
 public:
  explicit FirefoxConsumer(const std::vector<Evsel>& evsels);
  void OnSample(const ResolvedSample& s) override;
  // The profile's JSON. From `env`: HEADER_CLOCK_DATA for meta.startTime.
  std::string Serialize(const HeaderEnv& env) const;
  // The samples taken (summed ones counted by what they stand for).
  uint64_t nr_samples() const { return nr_samples_; }

 private:
  enum Category : uint8_t { kUser = 0, kKernel = 1, kOther = 2 };
  struct FrameKey {
    const Dso* dso;
    const Symbol* sym;
    int64_t address;
    uint8_t category;
    bool operator==(const FrameKey&) const = default;
  };
  struct FrameKeyHash {
    size_t operator()(const FrameKey& k) const {
      size_t h = std::hash<const void*>{}(k.dso) * 0x9E3779B97F4A7C15ULL;
      h = (h ^ std::hash<const void*>{}(k.sym)) * 0x9E3779B97F4A7C15ULL;
      h = (h ^ static_cast<uint64_t>(k.address)) * 0x9E3779B97F4A7C15ULL;
      return h ^ k.category;
    }
  };
  struct Thread {
    uint32_t evsel, pid, tid;
    const std::string* comm;
    std::vector<std::string> strings;
    std::unordered_map<std::string, uint32_t> string_ids;
    // resourceTable: lib index and name string, per Dso.
    std::unordered_map<const Dso*, uint32_t> resource_ids;
    std::vector<uint32_t> resource_lib, resource_name;
    // funcTable: per (name, Dso).
    std::map<std::pair<std::string, const Dso*>, uint32_t> func_ids;
    std::vector<uint32_t> func_name;
    std::vector<int32_t> func_resource;  // -1: none
    // frameTable: per (func, address, category); in front of it the frame of each
    // (Dso, Symbol, address, category) seen, so a known frame costs one hash lookup.
    std::map<std::tuple<uint32_t, int64_t, uint8_t>, uint32_t> frame_ids;
    std::unordered_map<FrameKey, uint32_t, FrameKeyHash> frame_cache;
    std::vector<uint32_t> frame_func;
    std::vector<int64_t> frame_address;  // -1: none
    std::vector<uint8_t> frame_category;
    // stackTable: per (prefix, frame) as prefix + 1 in the high and frame in the low
    // 32 bits; prefix -1: a root.
    std::unordered_map<uint64_t, uint32_t> stack_ids;
    std::vector<int64_t> stack_prefix;
    std::vector<uint32_t> stack_frame;
    // The last sample's frames root first with their stack ids.
    std::vector<std::pair<FrameKey, uint32_t>> last_path;
    // samples
    std::vector<uint32_t> sample_stack;
    std::vector<uint64_t> sample_time, sample_weight;
    bool summed = false;  // a sample stood for more than one
  };
  uint32_t StringOf(Thread& t, const std::string& s);
  uint32_t LibOf(const Dso* dso);
  static FrameKey KeyOf(const AddrLocation& al);
  // The frame of `al` (whose key is `key`), added with its func and resource if new.
  uint32_t FrameOf(Thread& t, const FrameKey& key, const AddrLocation& al);

  std::vector<Evsel> evsels_;
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> thread_ids_;  // (evsel, pid, tid)
  std::vector<Thread> threads_;
  std::unordered_map<const Dso*, uint32_t> lib_ids_;
  std::vector<const Dso*> libs_;
  uint64_t first_time_ = UINT64_MAX;
  uint64_t nr_samples_ = 0;
  std::vector<AddrLocation> frames_scratch_;
};

}  // namespace perflens
