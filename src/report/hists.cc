#include "report/hists.h"

#include <algorithm>

#include "perfdata/perf_event.h"

namespace perflens {

Hists::Hists(std::vector<const SortKey*> keys) : keys_(std::move(keys)) {
  if (keys_.size() > kMaxKeys) keys_.resize(kMaxKeys);
  for (const SortKey* k : keys_) words_ += k->id_words;
}

void Hists::MakeKey(const HistEntry& e, Key* key) {
  uint64_t* w = key->data();
  for (const SortKey* k : keys_) {
    k->id(e, &comm_ids_, w);
    w += k->id_words;
  }
}

uint64_t Hists::Hash(const uint64_t* words) const {
  uint64_t h = 0x9E3779B97F4A7C15ULL;
  for (size_t i = 0; i < words_; ++i) h = (h ^ words[i]) * 0xBF58476D1CE4E5B9ULL;
  return h ^ (h >> 31);
}

void Hists::Grow() {
  std::vector<uint32_t> slots(slots_.empty() ? 1024 : slots_.size() * 2, 0);
  const size_t mask = slots.size() - 1;
  for (size_t row = 0; row < entries_.size(); ++row) {
    size_t i = Hash(&row_keys_[row * words_]) & mask;
    while (slots[i]) i = (i + 1) & mask;
    slots[i] = static_cast<uint32_t>(row + 1);
  }
  slots_ = std::move(slots);
}

size_t Hists::FindOrAdd(const HistEntry& proto) {
  if (2 * (entries_.size() + 1) > slots_.size()) Grow();
  Key key;
  MakeKey(proto, &key);
  const size_t mask = slots_.size() - 1;
  size_t i = Hash(key.data()) & mask;
  const size_t n = words_;
  while (uint32_t s = slots_[i]) {
    const uint64_t* k = &row_keys_[(s - 1) * n];
    size_t j = 0;
    while (j < n && k[j] == key[j]) ++j;
    if (j == n) return s - 1;
    i = (i + 1) & mask;
  }
  const size_t row = entries_.size();
  slots_[i] = static_cast<uint32_t>(row + 1);
  row_keys_.insert(row_keys_.end(), key.begin(), key.begin() + n);
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

void Hists::AddAcc(HistEntry* e, uint64_t period, uint64_t nr_samples) {
  e->acc.period += period;
  e->acc.nr_samples += nr_samples;
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

Status Hists::Merge(const Hists& other) {
  if (other.keys_ != keys_) return Err("cannot merge histograms with different sort keys");
  if (&other == this) return Err("cannot merge a histogram into itself");
  std::vector<size_t> rows(other.entries_.size());
  for (size_t i = 0; i < other.entries_.size(); ++i) {
    const HistEntry& from = other.entries_[i];
    rows[i] = FindOrAdd(from);
    HistEntry& e = entries_[rows[i]];
    AddStat(&e.self, from.self);
    AddStat(&e.acc, from.acc);
  }
  chains_.Merge(other.chains_, rows);
  total_period += other.total_period;
  nr_samples += other.nr_samples;
  total_period_sys += other.total_period_sys;
  total_period_us += other.total_period_us;
  return Status::Ok();
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

namespace perflens {
namespace {

int Collapse(const std::vector<const SortKey*>& keys, const HistEntry& a, const HistEntry& b) {
  for (const SortKey* k : keys)
    if (int c = k->collapse(a, b)) return c;
  return 0;
}

// Row indices of `h` sorted by value; equal rows stay in creation order.
std::vector<size_t> ByValue(const Hists& h) {
  std::vector<size_t> rows(h.entries().size());
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = i;
  std::stable_sort(rows.begin(), rows.end(), [&](size_t x, size_t y) {
    return Collapse(h.keys(), h.entries()[x], h.entries()[y]) < 0;
  });
  return rows;
}

}  // namespace

Result<std::vector<RowPair>> PairRows(const Hists& a, const Hists& b) {
  if (a.keys() != b.keys()) return Err("cannot pair rows of histograms with different sort keys");
  const auto& ea = a.entries();
  const auto& eb = b.entries();
  // Merge-join the two value orders; equal runs pair element by element.
  std::vector<size_t> sa = ByValue(a), sb = ByValue(b);
  std::vector<const HistEntry*> partner(ea.size(), nullptr);
  std::vector<bool> b_paired(eb.size(), false);
  for (size_t i = 0, j = 0; i < sa.size() && j < sb.size();) {
    int c = Collapse(a.keys(), ea[sa[i]], eb[sb[j]]);
    if (c < 0) ++i;
    else if (c > 0) ++j;
    else {
      partner[sa[i]] = &eb[sb[j]];
      b_paired[sb[j]] = true;
      ++i, ++j;
    }
  }
  std::vector<RowPair> pairs;
  pairs.reserve(ea.size() + eb.size());
  for (size_t i = 0; i < ea.size(); ++i) pairs.push_back({&ea[i], partner[i]});
  for (size_t j = 0; j < eb.size(); ++j)
    if (!b_paired[j]) pairs.push_back({nullptr, &eb[j]});
  return pairs;
}

}  // namespace perflens
