// Hists: the histogram of one evsel — HistEntries grouped by the selected sort keys, with
// totals (perf's struct hists). A row is named by its keys' id words (SortKey::id:
// session ids, never addresses), so two partial Hists of one session merge row for row
// (Merge), and rows of two sessions pair up by the printed values (PairRows). Adding a
// sample is one probe of an open-addressing table (row ids kept beside the rows); no
// allocation unless a new row appears.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "base/result.h"
#include "report/callchain_tree.h"
#include "report/callchain_store.h"
#include "report/hist_entry.h"
#include "report/sort_key.h"

namespace perflens {

class Hists {
 public:
  static constexpr size_t kMaxKeys = 8;
  // At most kMaxKeys keys (Report checks; more are ignored).
  explicit Hists(std::vector<const SortKey*> keys);

  // Finds or creates the row for `proto`'s key values and returns its index (rows are
  // numbered in creation order). A new row copies `proto` with zeroed stats.
  size_t FindOrAdd(const HistEntry& proto);
  HistEntry& at(size_t i) { return entries_[i]; }

  // Adds one sample's self period to its row.
  // `period` summed over `nr_samples` samples of one cpumode.
  static void AddSelf(HistEntry* e, uint64_t period, uint16_t cpumode, uint64_t nr_samples = 1);
  static void AddAcc(HistEntry* e, uint64_t period, uint64_t nr_samples = 1);

  // perf's comm__override: rows recorded while their thread still had its ":<tid>"
  // placeholder comm take the comm that later replaced it; rows that now share a key
  // are merged (stats and call graphs).
  void ResolvePlaceholderComms();
  // Rows keyed by a symbol in `replacements` take its replacement (nullptr: unresolved,
  // keyed by address as usual), merged the same way: for symbols resolved after the
  // samples were added (Report defers kernel symbols while kallsyms loads).
  void ReplaceSymbols(const std::unordered_map<const Symbol*, const Symbol*>& replacements);

  // Adds `other`, a partial histogram of the same session (same Machine and symbol
  // tables, same keys), as if its samples had been added after this one's: rows with
  // equal ids are one row (comm ids are re-derived from the text, so the two CommIds
  // need not agree), new rows follow in `other`'s order, stats and totals add up, and
  // callchain references move over (frames re-interned; if the combined chains pass the
  // 4G-frame pool limit, `other`'s are left out, as AddChain drops them). O(other's rows
  // + chain frames). Errors: different sort keys, or `other` is this Hists (nothing is
  // changed then).
  Status Merge(const Hists& other);

  // Rows in print order: by `children ? acc : self` period descending, then the sort
  // keys' order, then creation order.
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
  // The same over the samples no -c/-d/-S/--pid/--tid filter left out (perf's
  // total_non_filtered_period); --percentage relative makes them the totals.
  uint64_t non_filtered_period = 0, nr_non_filtered_samples = 0;
  uint64_t non_filtered_period_sys = 0, non_filtered_period_us = 0;
  // Every sample's period and count whatever the totals above became (perf's
  // hists->stats): call-graph percentages divide by the former, and a Hists is empty
  // (skipped) by the latter.
  uint64_t all_period() const { return relative_ ? all_period_ : total_period; }
  uint64_t all_nr_samples() const { return relative_ ? all_nr_samples_ : nr_samples; }
  // --percentage relative: the totals become the non-filtered ones.
  void UseNonFilteredTotals() {
    relative_ = true;
    all_period_ = total_period;
    all_nr_samples_ = nr_samples;
    total_period = non_filtered_period;
    nr_samples = nr_non_filtered_samples;
    total_period_sys = non_filtered_period_sys;
    total_period_us = non_filtered_period_us;
  }

 private:
  // Applies `update` to every row; if any changed, rebuilds the table in row order,
  // merging rows whose keys became equal.
  void RekeyRows(const std::function<bool(HistEntry*)>& update);
  using Key = std::array<uint64_t, kMaxKeys * SortKey::kMaxIdWords>;
  void MakeKey(const HistEntry& e, Key* key);
  uint64_t Hash(const uint64_t* words) const;
  void Grow();

  bool relative_ = false;
  uint64_t all_period_ = 0, all_nr_samples_ = 0;
  std::vector<const SortKey*> keys_;
  size_t words_ = 0;                // id words of all keys: a row id's length
  CommIds comm_ids_;                // the comm key's ids
  std::vector<HistEntry> entries_;  // stable indices; pointers valid until next FindOrAdd
  std::vector<uint64_t> row_keys_;  // words_ per row, parallel to entries_
  // Open addressing, linear probing: row index + 1, 0 = empty. Size a power of two,
  // at most half full.
  std::vector<uint32_t> slots_;
  CallchainStore chains_;  // references by row index
};

// Rows of two histograms matched by value (perf diff's hists__match): `a` and `b` are
// equal under every key's collapse. With several equal rows on one side, the k-th of `a`
// pairs with the k-th of `b` (creation order).
struct RowPair {
  const HistEntry* a = nullptr;  // nullptr: only in `b`
  const HistEntry* b = nullptr;  // nullptr: only in `a`
};
// Every row of `a` in creation order, each with its partner in `b` or none, then `b`'s
// unpaired rows in creation order. The two may come from different sessions (ids are not
// compared). O((|a| + |b|) log). Errors: different sort keys.
Result<std::vector<RowPair>> PairRows(const Hists& a, const Hists& b);

}  // namespace perflens
