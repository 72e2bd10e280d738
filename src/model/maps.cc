#include "model/maps.h"

#include <algorithm>
#include <atomic>

namespace perflens {

uint64_t Maps::NextId() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

void Maps::Insert(const Map& m) {
  ++generation_;
  if (m.end <= m.start) return;
  // First map that may overlap: the last one starting before m.end, walking back while
  // maps end after m.start.
  auto it = std::lower_bound(maps_.begin(), maps_.end(), m.start,
                             [](const Map& a, uint64_t s) { return a.end <= s; });
  std::vector<Map> pieces;
  auto first = it;
  while (it != maps_.end() && it->start < m.end) {
    if (it->start < m.start) {
      Map before = *it;
      before.end = m.start;
      pieces.push_back(before);
    }
    if (it->end > m.end) {
      Map after = *it;
      if (!after.identity) after.pgoff += m.end - after.start;
      after.start = m.end;
      pieces.push_back(after);
    }
    ++it;
  }
  pieces.push_back(m);
  std::sort(pieces.begin(), pieces.end(), [](const Map& a, const Map& b) { return a.start < b.start; });
  it = maps_.erase(first, it);
  maps_.insert(it, pieces.begin(), pieces.end());
}

const Map* Maps::Find(uint64_t ip) const {
  auto it = std::upper_bound(maps_.begin(), maps_.end(), ip,
                             [](uint64_t v, const Map& a) { return v < a.start; });
  if (it == maps_.begin()) return nullptr;
  --it;
  return it->Contains(ip) ? &*it : nullptr;
}

bool Maps::RemoveAt(uint64_t start) {
  auto it = std::lower_bound(maps_.begin(), maps_.end(), start,
                             [](const Map& a, uint64_t s) { return a.start < s; });
  if (it == maps_.end() || it->start != start) return false;
  maps_.erase(it);
  ++generation_;
  return true;
}

}  // namespace perflens
