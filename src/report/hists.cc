#include "report/hists.h"

#include <algorithm>

#include "perfdata/perf_event.h"

namespace perflens {

Hists::Key Hists::MakeKey(const HistEntry& e) const {
  Key k{};
  for (size_t i = 0; i < keys_.size() && i < kMaxKeys; ++i) k[i] = keys_[i]->group(e);
  return k;
}

uint64_t Hists::Hash(const Key& k) const {
  uint64_t h = 0x9E3779B97F4A7C15ULL;
  for (size_t i = 0; i < keys_.size(); ++i) h = (h ^ k[i]) * 0xBF58476D1CE4E5B9ULL;
  return h ^ (h >> 31);
}

void Hists::Grow() {
  std::vector<uint32_t> slots(slots_.empty() ? 1024 : slots_.size() * 2, 0);
  const size_t mask = slots.size() - 1;
  for (size_t row = 0; row < row_keys_.size(); ++row) {
    size_t i = Hash(row_keys_[row]) & mask;
    while (slots[i]) i = (i + 1) & mask;
    slots[i] = static_cast<uint32_t>(row + 1);
  }
  slots_ = std::move(slots);
}

size_t Hists::FindOrAdd(const HistEntry& proto) {
  if (2 * (entries_.size() + 1) > slots_.size()) Grow();
  const Key key = MakeKey(proto);
  const size_t mask = slots_.size() - 1;
  size_t i = Hash(key) & mask;
  const size_t n = keys_.size();
  while (uint32_t s = slots_[i]) {
    const Key& k = row_keys_[s - 1];
    // Only the first n words are used (a full std::array == was a 64-byte memcmp call).
    size_t j = 0;
    while (j < n && k[j] == key[j]) ++j;
    if (j == n) return s - 1;
    i = (i + 1) & mask;
  }
  const size_t row = entries_.size();
  slots_[i] = static_cast<uint32_t>(row + 1);
  row_keys_.push_back(key);
  entries_.push_back(proto);
  entries_.back().self = {};
  entries_.back().acc = {};
  return row;
}

void Hists::AddSelf(HistEntry* e, uint64_t period, uint16_t cpumode, uint64_t nr_samples) {
  e->self.period += period;
  e->self.nr_samples += nr_samples;
  switch (cpumode) {
    case kMiscKernel: e->self.period_sys += period; break;
    case kMiscUser: e->self.period_us += period; break;
    case kMiscGuestKernel: e->self.period_guest_sys += period; break;
    case kMiscGuestUser: e->self.period_guest_us += period; break;
    default: break;
  }
}

void Hists::AddAcc(HistEntry* e, uint64_t period) {
  e->acc.period += period;
  e->acc.nr_samples += 1;
}

namespace {

void AddStat(HistStat* to, const HistStat& from) {
  to->period += from.period;
  to->nr_samples += from.nr_samples;
  to->period_sys += from.period_sys;
  to->period_us += from.period_us;
  to->period_guest_sys += from.period_guest_sys;
  to->period_guest_us += from.period_guest_us;
}

}  // namespace

void Hists::ResolvePlaceholderComms() {
  RekeyRows([](HistEntry* e) {
    if (!e->thread || e->comm != e->thread->placeholder_name()) return false;
    const std::string* real = e->thread->first_real_comm();
    if (!real) return false;
    e->comm = real;
    return true;
  });
}

void Hists::ReplaceSymbols(const std::unordered_map<const Symbol*, const Symbol*>& replacements) {
  if (replacements.empty()) return;
  RekeyRows([&](HistEntry* e) {
    auto it = replacements.find(e->sym);
    if (it == replacements.end()) return false;
    e->sym = it->second;
    return true;
  });
}

void Hists::RekeyRows(const std::function<bool(HistEntry*)>& update) {
  bool changed = false;
  for (auto& e : entries_) changed |= update(&e);
  if (!changed) return;
  std::vector<HistEntry> old = std::move(entries_);
  entries_.clear();
  row_keys_.clear();
  slots_.clear();
  // Rows are re-added in their old order, so a row's new index is at most its old one
  // (a merged row keeps the place of its first part, as if it had had its final key
  // from the start): merging references downwards never overwrites a row still to be
  // visited.
  for (size_t i = 0; i < old.size(); ++i) {
    size_t row = FindOrAdd(old[i]);
    HistEntry& e = entries_[row];
    AddStat(&e.self, old[i].self);
    AddStat(&e.acc, old[i].acc);
    chains_.MergeRows(row, i);
  }
}

std::vector<const HistEntry*> Hists::Sorted(bool children) const {
  std::vector<const HistEntry*> rows;
  rows.reserve(entries_.size());
  for (const auto& e : entries_) rows.push_back(&e);
  std::stable_sort(rows.begin(), rows.end(), [&](const HistEntry* a, const HistEntry* b) {
    uint64_t pa = children ? a->acc.period : a->self.period;
    uint64_t pb = children ? b->acc.period : b->self.period;
    if (pa != pb) return pa > pb;
    for (const SortKey* k : keys_) {
      int c = k->order(*a, *b);
      if (c != 0) return c < 0;
    }
    return false;
  });
  return rows;
}

}  // namespace perflens
