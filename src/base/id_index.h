// IdIndex: a 64-bit hash → uint32 id index, open addressing (linear probing, at most
// half full), whose keys live with their owner (`eq(id)` compares one): a lookup per
// sample and per new frame must not allocate or chase list nodes. The owner hands out
// the ids (usually the next index of its own key vector) and keeps the keys; the index
// only stores (hash, id) pairs. Used by the exports that intern stacks and locations
// (export/pprof.h, export/html.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace perflens {

class IdIndex {
 public:
  IdIndex() : slots_(1024) {}
  // The id whose key hashes to `hash` and satisfies `eq`, or `next_id` after
  // adding it (*added set).
  template <typename Eq>
  uint32_t FindOrAdd(uint64_t hash, Eq&& eq, uint32_t next_id, bool* added) {
    const size_t mask = slots_.size() - 1;
    for (size_t i = Index(hash);; i = (i + 1) & mask) {
      Slot& slot = slots_[i];
      if (slot.id == kEmpty) {
        slot = {hash, next_id};
        *added = true;
        if (++size_ * 2 > slots_.size()) Grow();
        return next_id;
      }
      if (slot.hash == hash && eq(slot.id)) {
        *added = false;
        return slot.id;
      }
    }
  }
  size_t size() const { return size_; }
  // Starts loading the slot a FindOrAdd of `hash` reads first: a caller that knows
  // several keys ahead overlaps their cache misses.
  void Prefetch(uint64_t hash) const { __builtin_prefetch(&slots_[Index(hash)], 1); }

 private:
  struct Slot {
    uint64_t hash = 0;
    uint32_t id = kEmpty;
  };
  static constexpr uint32_t kEmpty = UINT32_MAX;
  // Fibonacci hashing: the product's top bits depend on every bit of the hash.
  size_t Index(uint64_t hash) const { return (hash * 0x9E3779B97F4A7C15ULL) >> shift_; }
  void Grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    --shift_;
    const size_t mask = slots_.size() - 1;
    for (const Slot& slot : old) {
      if (slot.id == kEmpty) continue;
      size_t i = Index(slot.hash);
      while (slots_[i].id != kEmpty) i = (i + 1) & mask;
      slots_[i] = slot;
    }
  }
  std::vector<Slot> slots_;
  int shift_ = 64 - 10;  // 1024 slots
  size_t size_ = 0;
};

}  // namespace perflens
