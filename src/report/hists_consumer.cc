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
  proto.ip = s.location.dso_addr;
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
    if (branch_srclines_) {
      if (branch_srcline_from_) branch_srclines_->FillBranchEnd(&proto.from);
      if (branch_srcline_to_) branch_srclines_->FillBranchEnd(&proto.to);
    }
    proto.mispred = flags.mispred;
    proto.predicted = flags.predicted;
    proto.in_tx = flags.in_tx;
    proto.abort = flags.abort;
    proto.cycles = flags.cycles;
    branch_types_.Count(flags, be.from, be.to);
    AddTotals(&hists, 1, s.cpumode, 1, false);
    Hists::AddSelf(&hists.at(hists.FindOrAdd(proto)), 1, s.cpumode, 1);
  }
}

namespace {

// perf's remove_loops (machine.c): a run of entries whose sources repeat the run just
// before it is one more iteration of a loop; it is dropped and its cycles kept with the
// entry after the loop. Entries are found by a hash of the source (hash_64, 7 bits, in
// 127 slots; no collision handling, as perf).
struct LoopIterations {
  uint32_t nr_loop_iter = 0;
  uint64_t cycles = 0;
};
size_t RemoveLoops(std::vector<BranchEntry>* entries, std::vector<BranchFlags>* flags,
                   std::vector<LoopIterations>* iter) {
  constexpr size_t kSlots = 127;
  constexpr uint8_t kNone = 0xff;
  uint8_t slot[kSlots];
  std::fill(std::begin(slot), std::end(slot), kNone);
  auto& l = *entries;
  size_t nr = l.size();
  for (size_t i = 0; i < nr; ++i) {
    const size_t h = static_cast<size_t>((l[i].from * 0x61C8864680B583EBULL) >> (64 - 7)) % kSlots;
    if (slot[h] == kNone) {
      slot[h] = static_cast<uint8_t>(i);
    } else if (l[slot[h]].from == l[i].from) {
      bool is_loop = true;
      size_t off = 0;
      for (size_t j = slot[h]; j < i && i + off < nr; ++j, ++off)
        if (l[j].from != l[i + off].from) {
          is_loop = false;
          break;
        }
      if (!is_loop) continue;
      if (nr > i + off) {
        LoopIterations& it = (*iter)[i + off];
        ++it.nr_loop_iter;
        it.cycles = 0;
        for (size_t k = 0; k < off; ++k) it.cycles += (*flags)[i + k].cycles;
        l.erase(l.begin() + static_cast<long>(i), l.begin() + static_cast<long>(i + off));
        flags->erase(flags->begin() + static_cast<long>(i), flags->begin() + static_cast<long>(i + off));
        iter->erase(iter->begin() + static_cast<long>(i), iter->begin() + static_cast<long>(i + off));
      } else {
        l.resize(nr - off);
        flags->resize(nr - off);
        iter->resize(nr - off);
      }
      nr -= off;
    }
  }
  return nr;
}

}  // namespace

struct HistsConsumer::BranchHistoryScratch {
  std::vector<uint32_t> raw_index;  // raw callchain index of each real entry
  std::vector<BranchEntry> be;
  std::vector<BranchFlags> flags;
  std::vector<LoopIterations> iter;
};

HistsConsumer::~HistsConsumer() = default;

void HistsConsumer::BranchHistoryChain(const ResolvedSample& s) {
  bh_frames_.clear();
  bh_slots_.clear();
  if (!bh_scratch_) bh_scratch_ = std::make_unique<BranchHistoryScratch>();
  BranchHistoryScratch& scratch = *bh_scratch_;
  const Sample& sample = *s.branch_sample;
  const U64Array& chain = sample.callchain;
  const bool caller = call_graph_.caller_order;
  const bool lbr_stack = s.evsel < lbr_call_stack_.size() && lbr_call_stack_[s.evsel];
  auto append_chain = [&](size_t chain_nr, size_t first_call, size_t skip_leaf) {
    // The resolved frames are the real entries of the recorded chain, in order; when
    // they are not (DWARF-unwound or inline frames, -U, --max-stack), all are kept.
    const size_t n = s.callchain.size();
    std::vector<uint32_t>& raw_index = scratch.raw_index;
    raw_index.clear();
    for (size_t j = 0; j < chain.size; ++j)
      if (chain[j] < kContextMax) raw_index.push_back(static_cast<uint32_t>(j));
    const bool mapped = raw_index.size() == n && !lbr_stack;
    for (size_t k = 0; k < n; ++k) {
      const size_t idx = caller ? n - 1 - k : k;  // print order
      if (mapped) {
        const size_t j = raw_index[idx];
        if (caller ? j < skip_leaf || chain.size - 1 - j >= chain_nr : j < first_call || j >= chain_nr) continue;
      }
      bh_frames_.push_back(s.callchain[idx]);
      bh_slots_.emplace_back();
    }
  };
  const uint64_t nr_branch = sample.branch_nr;
  if (lbr_stack || nr_branch > 127) {  // perf: "corrupted branch chain. skipping..."
    append_chain(chain.size, 0, 0);
    return;
  }
  const size_t nr = std::min<uint64_t>(static_cast<uint64_t>(std::max(s.frame_source->max_stack(), 0)), nr_branch);
  std::vector<BranchEntry>& be = scratch.be;
  std::vector<BranchFlags>& flags = scratch.flags;
  std::vector<LoopIterations>& iter = scratch.iter;
  be.assign(nr, BranchEntry{});
  flags.assign(nr, BranchFlags{});
  iter.assign(nr, LoopIterations{});
  size_t first_call = 0;
  for (size_t i = 0; i < nr; ++i) {
    const uint64_t k = caller ? nr_branch - i - 1 : i;
    be[i] = sample.branch(k);
    flags[i] = sample.branch_flags(k);
    if (caller || chain.size == 0 || first_call >= chain.size) continue;
    // Overlap with the callchain: a return address one call instruction (at most 8
    // bytes) past the branch's source.
    if (chain[first_call] >= kContextMax) ++first_call;
    else if (be[i].from < chain[first_call] && be[i].from >= chain[first_call] - 8) ++first_call;
  }
  const size_t kept = RemoveLoops(&be, &flags, &iter);
  for (size_t i = 0; i < kept; ++i) {
    CallchainStore::BranchSlot to{true, {be[i].from, flags[i], 0, 0}, be[i].to};
    bh_frames_.push_back({be[i].to, s.frame_source->ResolveAnyMode(s.thread, be[i].to)});
    bh_slots_.push_back(to);
    CallchainStore::BranchSlot from{true, {0, flags[i], iter[i].nr_loop_iter, iter[i].cycles}, be[i].from};
    bh_frames_.push_back({be[i].from, s.frame_source->ResolveAnyMode(s.thread, be[i].from)});
    bh_slots_.push_back(from);
  }
  if (chain.size == 0) return;
  // perf then walks the chain up to its length less the branch entries kept: callee
  // first from first_call, caller first from the root down to that index.
  const size_t chain_nr = chain.size > kept ? chain.size - kept : 0;
  append_chain(chain_nr, first_call, kept);
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

  // The chain in callee-first storage (print order reversed for caller order), with
  // --branch-history the branch entries in front as perf's cursor has them.
  std::span<const CallchainFrame> callchain = s.callchain;
  std::span<const CallchainStore::BranchSlot> slots;
  if (call_graph_.branch_callstack && s.branch_sample && s.frame_source) {
    BranchHistoryChain(s);
    if (call_graph_.caller_order) {
      std::reverse(bh_frames_.begin(), bh_frames_.end());
      std::reverse(bh_slots_.begin(), bh_slots_.end());
    }
    callchain = bh_frames_;
    slots = bh_slots_;
  }
  const size_t n = callchain.size();
  uint32_t chain_pos = 0;
  // perf's callchain_append adds nothing for an empty chain (a corrupt one is emptied):
  // no root hit, so no empty "value " line in flat/folded output.
  if (graph && n) {
    // The chain in print order: callee first (the kernel's order) or caller first.
    chain_.clear();
    if (chain_srclines_) {
      for (size_t k = 0; k < n; ++k) {
        const CallchainFrame& f = callchain[k];
        // Part of an inline expansion (perf 6.1 expands DWARF-unwound entries only): an
        // inline frame, or the function's own frame right after the entry's inline
        // frames (callee first, one ip).
        const CallchainFrame* inner = k ? &callchain[k - 1] : nullptr;
        const bool expanded = (f.al.sym && f.al.sym->inlined) ||
                              (inner && inner->ip == f.ip && inner->al.dso == f.al.dso && inner->al.sym &&
                               inner->al.sym->inlined);
        chain_.push_back(hists.chains().InternFrame(
            {f.al.dso, f.al.sym, f.ip, chain_srclines_->ChainText(f.al.dso, f.al.dso_addr, f.al.sym, expanded)}));
      }
    } else {
      for (const CallchainFrame& f : callchain)
        chain_.push_back(hists.chains().InternFrame({f.al.dso, f.al.sym, f.ip}));
    }
    if (call_graph_.caller_order) std::reverse(chain_.begin(), chain_.end());
    slots_.assign(slots.begin(), slots.end());
    if (call_graph_.caller_order) std::reverse(slots_.begin(), slots_.end());
    chain_pos = hists.chains().AddChain(chain_, slots_);
    hists.chains().AddRef(self_row, chain_pos, 0, static_cast<uint32_t>(chain_.size()), s.period, s.nr_samples);
  }
  if (!children_) return;

  // Children: every distinct row on the callchain gets the period once (perf's
  // hist_entry_iter cumulative mode, deduplicated by sort keys), walking the chain in
  // print order; each such row's graph gets the part of the chain from it onwards.
  Hists::AddAcc(&hists.at(self_row), s.period, s.nr_samples);
  chain_rows_.clear();
  chain_rows_.push_back(self_row);
  if (!s.chain_ok) return;
  ++memo_sample_;  // the memo's rows are this sample's (its comm, thread, ... in the key)
  // perf's fill_callchain_info: unresolved nodes are keyed by the raw ip, and the
  // sample's addr_location is reused along the chain in print order: a node with a map
  // sets the level from the maps it was found in, a node without one keeps the level of
  // the node before it (the sample's for the first).
  for (size_t k = 0; k < n; ++k) {
    const CallchainFrame& f = callchain[call_graph_.caller_order ? n - 1 - k : k];
    proto.dso = f.al.dso;
    proto.sym = f.al.sym;
    proto.key_addr = f.al.sym ? f.al.dso_addr : f.ip;
    proto.ip = f.ip;  // perf's fill_callchain_info: al->addr = node->ip
    if (f.al.dso) proto.level = f.al.dso->is_kernel() ? 'k' : '.';
    size_t row;
    if (srclines_) {
      srclines_->Fill(&proto, f.al.dso_addr);
      row = hists.FindOrAdd(proto);
    } else {
      // The sort keys read key_addr only for a frame without a symbol.
      const uint64_t addr = f.al.sym ? 0 : proto.key_addr;
      RowMemo& m = row_memo_[(reinterpret_cast<uintptr_t>(f.al.sym) >> 4 ^ addr) & (kRowMemo - 1)];
      if (m.sample == memo_sample_ && m.sym == f.al.sym && m.dso == f.al.dso && m.key_addr == addr) {
        row = m.row;
      } else {
        row = hists.FindOrAdd(proto);
        m = {f.al.dso, f.al.sym, addr, memo_sample_, row};
      }
    }
    if (std::find(chain_rows_.begin(), chain_rows_.end(), row) != chain_rows_.end()) continue;
    chain_rows_.push_back(row);
    Hists::AddAcc(&hists.at(row), s.period, s.nr_samples);
    if (graph)
      hists.chains().AddRef(row, chain_pos, static_cast<uint32_t>(k), static_cast<uint32_t>(n), s.period, s.nr_samples);
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
