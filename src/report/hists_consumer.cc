#include "report/hists_consumer.h"

#include <algorithm>

#include "perfdata/perf_event.h"

namespace perflens {
namespace {

void AddTotals(Hists* hists, uint64_t period, uint16_t cpumode, uint64_t nr_samples, bool filtered) {
  hists->total_period += period;
  hists->nr_samples += nr_samples;
  if (cpumode == kMiscKernel) hists->total_period_sys += period;
  else if (cpumode == kMiscUser) hists->total_period_us += period;
  if (filtered) return;
  hists->non_filtered_period += period;
  hists->nr_non_filtered_samples += nr_samples;
  if (cpumode == kMiscKernel) hists->non_filtered_period_sys += period;
  else if (cpumode == kMiscUser) hists->non_filtered_period_us += period;
}

}  // namespace

HistsConsumer::HistsConsumer(size_t nr_evsels, const std::vector<const SortKey*>& keys, bool children,
                             const CallGraphParams& call_graph, SrcLines* srclines, SrcLines* chain_srclines)
    : children_(children), call_graph_(call_graph), srclines_(srclines), chain_srclines_(chain_srclines) {
  hists_.reserve(nr_evsels);
  for (size_t i = 0; i < nr_evsels; ++i) {
    hists_.emplace_back(keys);
    hists_.back().chains().set_key(call_graph.key);
  }
}

namespace {

// The row a sample adds its self period to.
HistEntry SelfProto(const ResolvedSample& s, uint64_t time_quantum) {
  HistEntry proto;
  proto.time = time_quantum ? s.time / time_quantum * time_quantum : s.time;
  proto.comm = s.comm;
  proto.thread = s.thread;
  proto.pid = s.pid;
  proto.tid = s.tid;
  proto.cpu = s.cpu;
  proto.dso = s.location.dso;
  proto.sym = s.location.sym;
  proto.key_addr = s.location.dso_addr;
  proto.level = s.location.level;
  return proto;
}

}  // namespace

uint32_t HistsConsumer::OnSummedKey(const ResolvedSample& s) {
  if (children_ || call_graph_.mode != CallGraphMode::kNone) return kNoSlot;  // needs the chain
  KeySlot slot{s.evsel, kNoRow, s.cpumode};
  if (!s.filtered) {
    HistEntry proto = SelfProto(s, time_quantum_);
    if (srclines_) srclines_->Fill(&proto, s.location.dso_addr);
    if (trace_texts_) trace_texts_->Fill(&proto, s);  // not reached: raw samples are not summed
    slot.row = static_cast<uint32_t>(hists_[s.evsel].FindOrAdd(proto));
  }
  key_slots_.push_back(slot);
  return static_cast<uint32_t>(key_slots_.size() - 1);
}

void HistsConsumer::OnSlotSums(std::span<const SlotSum> sums) {
  for (const SlotSum& sum : sums) {
    const KeySlot& slot = key_slots_[sum.slot];
    Hists& hists = hists_[slot.evsel];
    AddTotals(&hists, sum.period, slot.cpumode, sum.nr_samples, slot.row == kNoRow);
    if (slot.row != kNoRow) Hists::AddSelf(&hists.at(slot.row), sum.period, slot.cpumode, sum.nr_samples);
  }
  key_slots_.clear();
}

void HistsConsumer::AddBranchEntries(const ResolvedSample& s) {
  Hists& hists = hists_[s.evsel];
  const Sample& sample = *s.branch_sample;
  HistEntry proto = SelfProto(s, time_quantum_);
  proto.has_branch = true;
  // ip__resolve_ams: the first cpumode whose maps hold the address.
  auto end = [&](uint64_t addr) {
    const AddrLocation al = s.frame_source->ResolveAnyMode(s.thread, addr);
    BranchEnd e;
    e.dso = al.dso;
    e.sym = al.sym;
    e.addr = addr;
    e.al_addr = al.dso ? al.dso_addr : addr;
    e.level = al.dso ? al.level : 'H';
    return e;
  };
  for (uint64_t i = 0; i < sample.branch_nr; ++i) {
    const BranchEntry be = sample.branch(i);
    const BranchFlags flags = sample.branch_flags(i);
    proto.from = end(be.from);
    proto.to = end(be.to);
    proto.mispred = flags.mispred;
    proto.predicted = flags.predicted;
    proto.cycles = flags.cycles;
    branch_types_.Count(flags, be.from, be.to);
    AddTotals(&hists, 1, s.cpumode, 1, false);
    Hists::AddSelf(&hists.at(hists.FindOrAdd(proto)), 1, s.cpumode, 1);
  }
}

void HistsConsumer::OnSample(const ResolvedSample& sample) {
  if (branch_mode_) {
    if (sample.branch_sample && sample.frame_source && !sample.filtered) AddBranchEntries(sample);
    return;
  }
  Hists& hists = hists_[sample.evsel];
  AddTotals(&hists, sample.period, sample.cpumode, sample.nr_samples, sample.filtered);
  if (sample.filtered) return;
  ResolvedSample cut;
  const ResolvedSample& s = ignore_callees_ && CutIgnoredCallees(sample, &cut) ? cut : sample;

  HistEntry proto = SelfProto(s, time_quantum_);
  if (srclines_) srclines_->Fill(&proto, s.location.dso_addr);
  if (trace_texts_) trace_texts_->Fill(&proto, s);
  if (parent_pattern_) {
    FindParent(sample, &proto);  // perf finds it on the whole chain
    // -x: perf filters entries without a parent (HIST_FILTER__PARENT): in the totals only.
    if (exclude_other_ && !proto.parent) {
      hists.non_filtered_period -= s.period;
      hists.nr_non_filtered_samples -= s.nr_samples;
      if (s.cpumode == kMiscKernel) hists.non_filtered_period_sys -= s.period;
      else if (s.cpumode == kMiscUser) hists.non_filtered_period_us -= s.period;
      if (!keep_excluded_rows_) return;
    }
  }
  size_t self_row = hists.FindOrAdd(proto);
  Hists::AddSelf(&hists.at(self_row), s.period, s.cpumode, s.nr_samples);
  const bool graph = call_graph_.mode != CallGraphMode::kNone;
  if (!children_ && !graph) return;

  const size_t n = s.callchain.size();
  uint32_t chain_pos = 0;
  // perf's callchain_append adds nothing for an empty chain (a corrupt one is emptied):
  // no root hit, so no empty "value " line in flat/folded output.
  if (graph && n) {
    // The chain in print order: callee first (the kernel's order) or caller first.
    chain_.clear();
    if (chain_srclines_) {
      for (size_t k = 0; k < n; ++k) {
        const CallchainFrame& f = s.callchain[k];
        // Part of an inline expansion (perf 6.1 expands DWARF-unwound entries only): an
        // inline frame, or the function's own frame right after the entry's inline
        // frames (callee first, one ip).
        const CallchainFrame* inner = k ? &s.callchain[k - 1] : nullptr;
        const bool expanded = (f.al.sym && f.al.sym->inlined) ||
                              (inner && inner->ip == f.ip && inner->al.dso == f.al.dso && inner->al.sym &&
                               inner->al.sym->inlined);
        chain_.push_back(hists.chains().InternFrame(
            {f.al.dso, f.al.sym, f.ip, chain_srclines_->ChainText(f.al.dso, f.al.dso_addr, f.al.sym, expanded)}));
      }
    } else {
      for (const CallchainFrame& f : s.callchain)
        chain_.push_back(hists.chains().InternFrame({f.al.dso, f.al.sym, f.ip}));
    }
    if (call_graph_.caller_order) std::reverse(chain_.begin(), chain_.end());
    chain_pos = hists.chains().AddChain(chain_);
    hists.chains().AddRef(self_row, chain_pos, 0, static_cast<uint32_t>(chain_.size()), s.period);
  }
  if (!children_) return;

  // Children: every distinct row on the callchain gets the period once (perf's
  // hist_entry_iter cumulative mode, deduplicated by sort keys), walking the chain in
  // print order; each such row's graph gets the part of the chain from it onwards.
  Hists::AddAcc(&hists.at(self_row), s.period);
  chain_rows_.clear();
  chain_rows_.push_back(self_row);
  if (!s.chain_ok) return;
  // perf's fill_callchain_info: unresolved nodes are keyed by the raw ip, and the
  // sample's addr_location is reused along the chain in print order: a node with a map
  // sets the level from the maps it was found in, a node without one keeps the level of
  // the node before it (the sample's for the first).
  for (size_t k = 0; k < n; ++k) {
    const CallchainFrame& f = s.callchain[call_graph_.caller_order ? n - 1 - k : k];
    proto.dso = f.al.dso;
    proto.sym = f.al.sym;
    proto.key_addr = f.al.sym ? f.al.dso_addr : f.ip;
    if (f.al.dso) proto.level = f.al.dso->is_kernel() ? 'k' : '.';
    if (srclines_) srclines_->Fill(&proto, f.al.dso_addr);
    size_t row = hists.FindOrAdd(proto);
    if (std::find(chain_rows_.begin(), chain_rows_.end(), row) != chain_rows_.end()) continue;
    chain_rows_.push_back(row);
    Hists::AddAcc(&hists.at(row), s.period);
    if (graph) hists.chains().AddRef(row, chain_pos, static_cast<uint32_t>(k), static_cast<uint32_t>(n), s.period);
  }
}

void HistsConsumer::ReplaceSymbols(const std::unordered_map<const Symbol*, const Symbol*>& replacements) {
  for (Hists& h : hists_) h.ReplaceSymbols(replacements);
}

void HistsConsumer::Finish() {
  for (Hists& h : hists_) h.ResolvePlaceholderComms();
}

bool HistsConsumer::Matches(const std::regex& re, std::unordered_map<const Symbol*, bool>* cache,
                            const Symbol* sym) {
  auto [it, added] = cache->try_emplace(sym, false);
  if (added) it->second = std::regex_search(sym->name.begin(), sym->name.end(), re);
  return it->second;
}

bool HistsConsumer::CutIgnoredCallees(const ResolvedSample& s, ResolvedSample* cut) {
  // perf walks the chain in callchain order (from the root with caller order) and each
  // match empties what it collected so far: the last match in that order wins, and the
  // frames walked before it are dropped (callees with callee order, callers with
  // caller order). The first frame matching -p is the parent and not tested.
  const size_t n = s.callchain.size();
  const bool caller = call_graph_.caller_order;
  bool parent_seen = false;
  size_t match = n;
  for (size_t k = 0; k < n; ++k) {
    const size_t i = caller ? n - 1 - k : k;
    const Symbol* sym = s.callchain[i].al.sym;
    if (!sym || s.callchain[i].unwound) continue;
    if (parent_pattern_ && !parent_seen && Matches(*parent_pattern_, &parent_matches_, sym)) {
      parent_seen = true;
      continue;
    }
    if (Matches(*ignore_callees_, &ignore_matches_, sym)) match = i;
  }
  if (match == n) return false;
  *cut = s;
  const AddrLocation& al = s.callchain[match].al;
  cut->location = al;
  cut->cpumode = al.cpumode;
  cut->callchain = caller ? s.callchain.first(match + 1) : s.callchain.subspan(match);
  return true;
}

void HistsConsumer::FindParent(const ResolvedSample& s, HistEntry* proto) {
  // perf finds it while walking the chain in callchain order: from the root with
  // caller order (Children's default), from the leaf with callee order.
  const size_t n = s.callchain.size();
  for (size_t k = 0; k < n; ++k) {
    const CallchainFrame& f = s.callchain[call_graph_.caller_order ? n - 1 - k : k];
    if (!f.al.sym) continue;
    auto [it, added] = parent_matches_.try_emplace(f.al.sym, false);
    if (added) it->second = std::regex_search(f.al.sym->name.begin(), f.al.sym->name.end(), *parent_pattern_);
    if (it->second) {
      proto->parent = f.al.sym;
      proto->parent_dso = f.al.dso;
      return;
    }
  }
}

void HistsConsumer::UseNonFilteredTotals() {
  for (Hists& h : hists_) h.UseNonFilteredTotals();
}

}  // namespace perflens
