// Maps: the non-overlapping, sorted set of Maps of one address space (a process, or the
// kernel). Inserting a map cuts the maps it overlaps, as perf's
// maps__fixup_overlap_and_insert: the part before the new start is kept, the part after
// the new end is kept with pgoff advanced, fully covered maps are removed.
// Threads of one process share one Maps (shared_ptr); FORK of a new process copies it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/map.h"

namespace perflens {

class Maps {
 public:
  void Insert(const Map& map);
  // The map holding `ip`, or nullptr. O(log n).
  const Map* Find(uint64_t ip) const;
  // Removes the map that starts at `start` exactly (KSYMBOL unregister). False if none.
  bool RemoveAt(uint64_t start);
  const std::vector<Map>& maps() const { return maps_; }
  size_t size() const { return maps_.size(); }
  // Bumped on every change so per-thread lookup caches can be invalidated.
  uint64_t generation() const { return generation_; }

 private:
  std::vector<Map> maps_;  // sorted by start, non-overlapping
  uint64_t generation_ = 0;
};

}  // namespace perflens
