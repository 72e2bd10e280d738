#include "session/sample_sums.h"

#include <algorithm>

namespace perflens {

namespace {
constexpr size_t kInitialSlots = 4096;
}

SampleSums::SampleSums() : slots_(kInitialSlots, 0), mask_(kInitialSlots - 1) {}

void SampleSums::Grow() {
  std::vector<uint32_t> slots(slots_.size() * 2, 0);
  const size_t mask = slots.size() - 1;
  for (size_t n = 0; n < entries_.size(); ++n) {
    size_t i = Hash(entries_[n].key) & mask;
    while (slots[i]) i = (i + 1) & mask;
    slots[i] = static_cast<uint32_t>(n + 1);
  }
  slots_ = std::move(slots);
  mask_ = mask;
}

void SampleSums::Clear() {
  // Few entries (a flush at each side-band record of a system-wide recording): clear
  // their slots; many: the whole table is about as cheap.
  if (entries_.size() * 8 < slots_.size()) {
    for (const Entry& e : entries_) {
      size_t i = Hash(e.key) & mask_;
      while (slots_[i]) {
        slots_[i] = 0;  // the whole probe run: every slot in it belongs to an entry
        i = (i + 1) & mask_;
      }
    }
  } else {
    std::fill(slots_.begin(), slots_.end(), 0);
  }
  entries_.clear();
}

}  // namespace perflens
