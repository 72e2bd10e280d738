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

ChainSums::ChainSums() : slots_(kInitialSlots, 0), mask_(kInitialSlots - 1) {}

bool ChainSums::Add(const SampleSumKey& key, const uint8_t* chain, uint32_t chain_words, uint64_t period) {
  const uint64_t hash = Hash(key, chain, chain_words);
  size_t i = hash & mask_;
  while (uint32_t s = slots_[i]) {
    Entry& e = entries_[s - 1];
    // memcmp only with words: its pointers must not be null even for 0 bytes.
    if (e.hash == hash && e.key == key && e.chain_words == chain_words &&
        (chain_words == 0 || std::memcmp(pool_.data() + e.chain_begin, chain, size_t{chain_words} * 8) == 0)) {
      e.period += period;
      ++e.nr_samples;
      return false;
    }
    i = (i + 1) & mask_;
  }
  const size_t begin = pool_.size();
  pool_.resize(begin + chain_words);
  if (chain_words) std::memcpy(pool_.data() + begin, chain, size_t{chain_words} * 8);
  entries_.push_back({key, period, 1, hash, static_cast<uint32_t>(begin), chain_words});
  slots_[i] = static_cast<uint32_t>(entries_.size());
  if (2 * entries_.size() > slots_.size()) Grow();
  return true;
}

void ChainSums::Grow() {
  std::vector<uint32_t> slots(slots_.size() * 2, 0);
  const size_t mask = slots.size() - 1;
  for (size_t n = 0; n < entries_.size(); ++n) {
    size_t i = entries_[n].hash & mask;
    while (slots[i]) i = (i + 1) & mask;
    slots[i] = static_cast<uint32_t>(n + 1);
  }
  slots_ = std::move(slots);
  mask_ = mask;
}

void ChainSums::Clear() {
  if (entries_.size() * 8 < slots_.size()) {
    for (const Entry& e : entries_) {
      size_t i = e.hash & mask_;
      while (slots_[i]) {
        slots_[i] = 0;
        i = (i + 1) & mask_;
      }
    }
  } else {
    std::fill(slots_.begin(), slots_.end(), 0);
  }
  entries_.clear();
  pool_.clear();
}

}  // namespace perflens
