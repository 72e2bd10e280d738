// Hists: the histogram of one evsel — HistEntries grouped by the selected sort keys, with
// totals (perf's struct hists). Adding a sample is one probe of an open-addressing table
// (row keys kept beside the rows); no allocation unless a new row appears.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "report/callchain_tree.h"
#include "report/callchain_store.h"
#include "report/hist_entry.h"
#include "report/sort_key.h"

namespace perflens {

class Hists {
 public:
  static constexpr size_t kMaxKeys = 8;
  explicit Hists(std::vector<const SortKey*> keys) : keys_(std::move(keys)) {}

  // Finds or creates the row for `proto`'s key values and returns its index.
  size_t FindOrAdd(const HistEntry& proto);
  HistEntry& at(size_t i) { return entries_[i]; }

  // Adds one sample's self period to its row.
  // `period` summed over `nr_samples` samples of one cpumode.
  static void AddSelf(HistEntry* e, uint64_t period, uint16_t cpumode, uint64_t nr_samples = 1);
  static void AddAcc(HistEntry* e, uint64_t period);

  // perf's comm__override: rows recorded while their thread still had its ":<tid>"
  // placeholder comm take the comm that later replaced it; rows that now share a key
  // are merged (stats and call graphs).
  void ResolvePlaceholderComms();
  // Rows keyed by a symbol in `replacements` take its replacement (nullptr: unresolved,
  // keyed by address as usual), merged the same way: for symbols resolved after the
  // samples were added (Report defers kernel symbols while kallsyms loads).
  void ReplaceSymbols(const std::unordered_map<const Symbol*, const Symbol*>& replacements);

  // Rows in print order: by `children ? acc : self` period descending, then the sort
  // keys' order.
  std::vector<const HistEntry*> Sorted(bool children) const;

  // The callchains of all rows (see CallchainStore).
  CallchainStore& chains() { return chains_; }
  // Row `e`'s tree in perf's form, pruned below what `params` prints; null without one.
  // Concurrent calls need distinct scratches (CallchainStore::Build).
  std::unique_ptr<CallchainNode> BuildChain(const HistEntry* e, const CallGraphParams& params,
                                            CallchainStore::BuildScratch* scratch = nullptr) const {
    size_t i = static_cast<size_t>(e - entries_.data());
    if (!chains_.HasRefs(i)) return nullptr;
    return chains_.Build(i, params, total_period, scratch);
  }

  const std::vector<const SortKey*>& keys() const { return keys_; }
  const std::vector<HistEntry>& entries() const { return entries_; }
  uint64_t total_period = 0;
  uint64_t nr_samples = 0;
  uint64_t total_period_sys = 0, total_period_us = 0;

 private:
  // Applies `update` to every row; if any changed, rebuilds the table in row order,
  // merging rows whose keys became equal.
  void RekeyRows(const std::function<bool(HistEntry*)>& update);
  using Key = std::array<uint64_t, kMaxKeys>;
  Key MakeKey(const HistEntry& e) const;
  uint64_t Hash(const Key& k) const;
  void Grow();

  std::vector<const SortKey*> keys_;
  std::vector<HistEntry> entries_;  // stable indices; pointers valid until next FindOrAdd
  std::vector<Key> row_keys_;       // parallel to entries_
  // Open addressing, linear probing: row index + 1, 0 = empty. Size a power of two,
  // at most half full.
  std::vector<uint32_t> slots_;
  CallchainStore chains_;  // references by row index
};

}  // namespace perflens
