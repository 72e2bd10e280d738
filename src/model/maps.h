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
  Maps() : id_(NextId()) {}
  // A copy is another address space (a fork's): it gets an id of its own.
  Maps(const Maps& other) : maps_(other.maps_), generation_(other.generation_), id_(NextId()) {}
  Maps& operator=(const Maps& other) {
    maps_ = other.maps_;
    generation_ = other.generation_;
    id_ = NextId();
    return *this;
  }

  void Insert(const Map& map);
  // The map holding `ip`, or nullptr. O(log n).
  const Map* Find(uint64_t ip) const;
  // Removes the map that starts at `start` exactly (KSYMBOL unregister). False if none.
  bool RemoveAt(uint64_t start);
  const std::vector<Map>& maps() const { return maps_; }
  size_t size() const { return maps_.size(); }
  // Bumped on every change, so that a cache keyed by (id, generation) misses after it.
  uint64_t generation() const { return generation_; }
  // Never 0 and never shared by two Maps of this process, even after one is freed, so
  // (id, generation) names one state of one address space without holding a pointer.
  uint64_t id() const { return id_; }

 private:
  static uint64_t NextId();

  std::vector<Map> maps_;  // sorted by start, non-overlapping
  uint64_t generation_ = 0;
  uint64_t id_;
};

}  // namespace perflens
