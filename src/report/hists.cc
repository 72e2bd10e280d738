#include "report/hists.h"

#include <algorithm>

#include "perfdata/perf_event.h"

namespace perflens {

Hists::Key Hists::MakeKey(const HistEntry& e) const {
  Key k{};
  for (size_t i = 0; i < keys_.size() && i < kMaxKeys; ++i) k[i] = keys_[i]->group(e);
  return k;
}

size_t Hists::FindOrAdd(const HistEntry& proto) {
  auto [it, inserted] = index_.try_emplace(MakeKey(proto), entries_.size());
  if (inserted) {
    entries_.push_back(proto);
    entries_.back().self = {};
    entries_.back().acc = {};
  }
  return it->second;
}

void Hists::AddSelf(HistEntry* e, uint64_t period, uint16_t cpumode) {
  e->self.period += period;
  e->self.nr_samples += 1;
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

// Re-appends every chain of `from` (with its hits) into `to`.
void MergeChains(CallchainNode* to, const CallchainNode& from, std::vector<ChainFrame>* path) {
  path->insert(path->end(), from.val.begin(), from.val.end());
  if (from.hit) AppendChain(to, *path, from.hit);
  for (const auto& c : from.children) MergeChains(to, *c, path);
  path->resize(path->size() - from.val.size());
}

}  // namespace

void Hists::ResolvePlaceholderComms() {
  bool changed = false;
  for (auto& e : entries_) {
    if (!e.thread || e.comm != e.thread->placeholder_name()) continue;
    if (const std::string* real = e.thread->first_real_comm()) {
      e.comm = real;
      changed = true;
    }
  }
  if (!changed) return;
  std::vector<HistEntry> old = std::move(entries_);
  std::vector<std::unique_ptr<CallchainNode>> old_chains = std::move(chains_);
  entries_.clear();
  chains_.clear();
  index_.clear();
  std::vector<ChainFrame> path;
  for (size_t i = 0; i < old.size(); ++i) {
    size_t row = FindOrAdd(old[i]);
    HistEntry& e = entries_[row];
    AddStat(&e.self, old[i].self);
    AddStat(&e.acc, old[i].acc);
    if (i < old_chains.size() && old_chains[i]) MergeChains(Chain(row), *old_chains[i], &path);
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
