#include "session/sample_sums.h"

#include <algorithm>

namespace perflens {

namespace {

constexpr size_t kInitialSlots = 4096;

// The open-addressing slots of both tables (entry index + 1, 0 = empty), given the
// entries' hashes by index.
template <typename HashOf>
void GrowSlots(std::vector<uint32_t>* slots, size_t* mask, size_t nr_entries, HashOf hash_of) {
  std::vector<uint32_t> grown(slots->size() * 2, 0);
  const size_t m = grown.size() - 1;
  for (size_t n = 0; n < nr_entries; ++n) {
    size_t i = hash_of(n) & m;
    while (grown[i]) i = (i + 1) & m;
    grown[i] = static_cast<uint32_t>(n + 1);
  }
  *slots = std::move(grown);
  *mask = m;
}

template <typename HashOf>
void ClearSlots(std::vector<uint32_t>* slots, size_t mask, size_t nr_entries, HashOf hash_of) {
  // Few entries (a flush at each side-band record of a system-wide recording): clear
  // their slots; many: the whole table is about as cheap.
  if (nr_entries * 8 >= slots->size()) {
    std::fill(slots->begin(), slots->end(), 0);
    return;
  }
  for (size_t n = 0; n < nr_entries; ++n) {
    size_t i = hash_of(n) & mask;
    while ((*slots)[i]) {
      (*slots)[i] = 0;  // the whole probe run: every slot in it belongs to an entry
      i = (i + 1) & mask;
    }
  }
}

}  // namespace

SampleSums::SampleSums() : slots_(kInitialSlots, 0), mask_(kInitialSlots - 1) {}

void SampleSums::Grow() {
  GrowSlots(&slots_, &mask_, entries_.size(), [this](size_t n) { return Hash(entries_[n].key); });
}

void SampleSums::Clear() {
  ClearSlots(&slots_, mask_, entries_.size(), [this](size_t n) { return Hash(entries_[n].key); });
  entries_.clear();
}

ChainSums::ChainSums() : slots_(kInitialSlots, 0), mask_(kInitialSlots - 1) {}

bool ChainSums::Add(const SampleSumKey& key, const uint8_t* chain, uint32_t chain_words, uint64_t period,
                    uint64_t hash) {
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
  GrowSlots(&slots_, &mask_, entries_.size(), [this](size_t n) { return entries_[n].hash; });
}

void ChainSums::Clear() {
  ClearSlots(&slots_, mask_, entries_.size(), [this](size_t n) { return entries_[n].hash; });
  entries_.clear();
  pool_.clear();
}

}  // namespace perflens
