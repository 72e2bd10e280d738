// SampleSums: samples summed by everything a flat report row can depend on while the
// machine model stands still (evsel, pid/tid, cpu, cpumode, ip). Between two records
// that change the model (MMAP/COMM/FORK/EXIT/KSYMBOL) a key always resolves to the same
// thread, map and symbol, so a report without Children or call graph can resolve and
// aggregate once per key instead of once per sample: fp-style profiles have a few
// thousand distinct keys for hundreds of thousands of samples.
//
// Keys are kept in the order they were first added, so adding them to the hists in that
// order creates rows in the order their first samples came (ties print alike).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace perflens {

struct SampleSumKey {
  uint64_t ip = 0;  // sample ip (PERF_SAMPLE_IP), a virtual address of the sampled task
  uint32_t pid = 0, tid = 0;
  uint32_t cpu = 0;      // 0 unless the report sorts by cpu
  uint16_t evsel = 0;    // index into PerfFile::evsels() (Report sums only below 2^16 evsels)
  uint16_t cpumode = 0;  // PERF_RECORD_MISC_CPUMODE_MASK bits of the sample's header
  bool operator==(const SampleSumKey&) const = default;
};
static_assert(sizeof(SampleSumKey) == 24);

// One decoded sample on its way to SampleSums::Add (32 bytes: two a cache line).
struct SummedSample {
  SampleSumKey key;
  uint64_t period = 0;
};

class SampleSums {
 public:
  struct Entry {
    SampleSumKey key;
    uint64_t period = 0;      // sum of the samples' periods
    uint64_t nr_samples = 0;
  };

  // Adds one sample of `period`. True when `key` is new: it is then entries().back().
  // Amortized O(1); allocates only when the number of distinct keys since the last
  // Clear outgrows the table.
  bool Add(const SampleSumKey& key, uint64_t period) {
    size_t i = Hash(key) & mask_;
    while (uint32_t s = slots_[i]) {
      Entry& e = entries_[s - 1];
      if (e.key == key) {
        e.period += period;
        ++e.nr_samples;
        return false;
      }
      i = (i + 1) & mask_;
    }
    entries_.push_back({key, period, 1});
    slots_[i] = static_cast<uint32_t>(entries_.size());
    if (2 * entries_.size() > slots_.size()) Grow();
    return true;
  }

  // Adding many keys in a row: PrefetchSlot a key ~16 adds ahead and PrefetchEntry it
  // ~8 ahead hides both cache misses of a table larger than L2.
  void PrefetchSlot(const SampleSumKey& key) const { __builtin_prefetch(&slots_[Hash(key) & mask_]); }
  void PrefetchEntry(const SampleSumKey& key) const {
    if (uint32_t s = slots_[Hash(key) & mask_]) __builtin_prefetch(&entries_[s - 1]);
  }

  // Distinct keys in the order of their first Add.
  std::span<const Entry> entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }

  // Forgets the entries; keeps the table's capacity. O(number of entries).
  void Clear();

  SampleSums();

 private:
  friend class ChainSums;  // which hashes the key the same way, then its chain
  static uint64_t Hash(const SampleSumKey& k) {
    uint64_t h = (k.ip ^ (uint64_t{k.tid} << 40) ^ (uint64_t{k.cpu} << 24) ^ (uint64_t{k.evsel} << 56) ^
                  (uint64_t{k.cpumode} << 20)) *
                 0x9E3779B97F4A7C15ULL;
    return h ^ (h >> 29);
  }
  void Grow();

  std::vector<Entry> entries_;
  std::vector<uint32_t> slots_;  // entry index + 1; 0 = empty
  size_t mask_ = 0;
};

// ChainSums: samples with callchains summed by SampleSumKey and the recorded chain (its
// bytes as the record holds them). While the model stands still, a key and a chain
// resolve to the same thread, location and frames, so a report with Children or a call
// graph resolves and aggregates once per distinct (key, chain) (a profile of a few hot
// loops repeats each chain thousands of times). Keys in first-seen order, as SampleSums.
class ChainSums {
 public:
  struct Entry {
    SampleSumKey key;
    uint64_t period = 0;      // sum of the samples' periods
    uint64_t nr_samples = 0;
    uint64_t hash = 0;
    uint32_t chain_begin = 0;  // index into the pool, in u64 words
    uint32_t chain_words = 0;  // the chain's entries
  };

  // Adds one sample of `period` whose PERF_SAMPLE_CALLCHAIN entries are the
  // `chain_words` u64 words at `chain` (unaligned, any byte order: compared as bytes);
  // `hash` is Hash(key, chain, chain_words). Amortized O(chain_words). True when
  // (key, chain) is new.
  bool Add(const SampleSumKey& key, const uint8_t* chain, uint32_t chain_words, uint64_t period, uint64_t hash);
  bool Add(const SampleSumKey& key, const uint8_t* chain, uint32_t chain_words, uint64_t period) {
    return Add(key, chain, chain_words, period, Hash(key, chain, chain_words));
  }

  // Adding many samples in a row: the three cache misses of a table larger than L2 (the
  // slot, the entry, the entry's chain) are hidden by PrefetchSlot ~16 adds ahead,
  // PrefetchEntry ~8 ahead and PrefetchChain ~4 ahead, given the samples' hashes.
  void PrefetchSlot(uint64_t hash) const { __builtin_prefetch(&slots_[hash & mask_]); }
  void PrefetchEntry(uint64_t hash) const {
    if (uint32_t s = slots_[hash & mask_]) __builtin_prefetch(&entries_[s - 1]);
  }
  void PrefetchChain(uint64_t hash) const {
    if (uint32_t s = slots_[hash & mask_]) __builtin_prefetch(pool_.data() + entries_[s - 1].chain_begin);
  }

  static uint64_t Hash(const SampleSumKey& k, const uint8_t* chain, uint32_t words) {
    uint64_t h = SampleSums::Hash(k) ^ words;
    for (uint32_t i = 0; i < words; ++i) {
      uint64_t w;
      std::memcpy(&w, chain + size_t{i} * 8, 8);
      h = (h ^ (h >> 31) ^ w) * 0xBF58476D1CE4E5B9ULL;
    }
    return h ^ (h >> 29);
  }

  std::span<const Entry> entries() const { return entries_; }
  // The chain of `e`, as its first sample's record held it.
  const uint8_t* chain(const Entry& e) const { return reinterpret_cast<const uint8_t*>(pool_.data() + e.chain_begin); }
  bool empty() const { return entries_.empty(); }
  // Bytes held for the distinct entries and chains: a session flushes before this grows
  // past what it allows (the sums then start again; the output is the same).
  size_t held_bytes() const { return entries_.size() * sizeof(Entry) + pool_.size() * 8; }

  // Forgets the entries and chains; keeps the capacity.
  void Clear();

  ChainSums();

 private:
  void Grow();

  std::vector<Entry> entries_;
  std::vector<uint64_t> pool_;   // the entries' chains, one after the other
  std::vector<uint32_t> slots_;  // entry index + 1; 0 = empty
  size_t mask_ = 0;
};

}  // namespace perflens
