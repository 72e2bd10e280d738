// Folded stacks ("comm;caller;...;leaf weight"), as FlameGraph's stackcollapse-perf.pl
// makes them from perf script output: a session consumer that aggregates each sample's
// resolved frames and prints the stacks sorted by text.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "session/session.h"

namespace perflens {

// Frame names: the symbol (';' → ':'); an unresolved frame is "[basename of the dso
// name perf script prints]" or "[unknown]"; kernel frames get "_[k]". The comm has
// ' ' → '_' and ';' → ':'.
class FoldedStacks {
 public:
  // `callee_first`: the resolved frames as perf delivers them (leaf first).
  void Add(std::string_view comm, std::span<const AddrLocation> callee_first, uint64_t weight);
  // Appends "stack weight\n" lines sorted by stack (byte order).
  void Print(std::string* out) const;
  uint64_t total_weight() const { return total_; }
  size_t size() const { return stacks_.size(); }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, uint64_t, Hash, std::equal_to<>> stacks_;
  std::string key_;      // scratch, reused
  std::string scratch_;  // scratch, reused
  uint64_t total_ = 0;
};

// The consumer: a sample's callchain when it has one (SampleNeeds::callchain), else
// its location; weighted by the samples (nr_samples of a summed one) or by the period.
class FoldedConsumer : public SampleConsumer {
 public:
  explicit FoldedConsumer(bool weight_by_period) : weight_by_period_(weight_by_period) {}
  void OnSample(const ResolvedSample& s) override;
  const FoldedStacks& stacks() const { return stacks_; }

 private:
  bool weight_by_period_;
  FoldedStacks stacks_;
  std::vector<AddrLocation> frames_;  // reused per sample
};

}  // namespace perflens
