// HistsConsumer: perf report's histograms as a session consumer — each ResolvedSample
// adds its period to one Hists row per evsel (self), with Children to every distinct
// row on its callchain, and with -g its chain to the CallchainStore (perf's
// hist_entry_iter, cumulative mode). It runs on the session's consumer thread and
// reads only the sample.
#pragma once

#include <cstdint>
#include <memory>
#include <regex>
#include <span>
#include <unordered_map>
#include <vector>

#include "report/branch_type.h"
#include "report/callchain_tree.h"
#include "report/hists.h"
#include "report/srcline.h"
#include "report/trace_texts.h"
#include "session/session.h"

namespace perflens {

class HistsConsumer : public SampleConsumer {
 public:
  // One Hists per evsel, grouped by `keys`. `children`: accumulate along callchains;
  // `call_graph`: mode and order of the stored chains (kNone stores none).
  // `srclines`: the "srcline" key's lookups (report/srcline.h), non-null when `keys`
  // holds it; `chain_srclines`: the call-graph frames' lines, non-null with the address
  // key (CallchainKey::kAddress). Not owned.
  HistsConsumer(size_t nr_evsels, const std::vector<const SortKey*>& keys, bool children,
                const CallGraphParams& call_graph, SrcLines* srclines = nullptr, SrcLines* chain_srclines = nullptr);
  ~HistsConsumer();

  void OnSample(const ResolvedSample& s) override;
  // Flat reports: a summed key's row is found when the key is first seen.
  uint32_t OnSummedKey(const ResolvedSample& s) override;
  void OnSlotSums(std::span<const SlotSum> sums) override;
  void ReplaceSymbols(const std::unordered_map<const Symbol*, const Symbol*>& replacements) override;
  void Finish() override;  // perf's comm__override on every Hists
  // The "trace" key's texts, when the keys hold it (samples then carry raw bytes). Not owned.
  void set_trace_texts(TraceTexts* texts) { trace_texts_ = texts; }

  const std::vector<Hists>& hists() const { return hists_; }
  // --percentage relative: the totals become those of the samples no filter left out.
  void UseNonFilteredTotals();
  // -v: every row's (and branch end's) symtab_origin, `origin(dso)` (dso may be null).
  // After the session ran.
  template <typename OriginFn>
  void SetSymtabOrigins(const OriginFn& origin) {
    for (Hists& h : hists_)
      for (size_t i = 0; i < h.entries().size(); ++i) {
        HistEntry& e = h.at(i);
        e.symtab_origin = origin(e.dso);
        if (e.has_branch) {
          e.from.symtab_origin = origin(e.from.dso);
          e.to.symtab_origin = origin(e.to.dso);
        }
      }
  }
  // The "parent" key's pattern (-p/--parent, POSIX extended regex); rows then carry the
  // first callchain symbol that matches it. Not owned; set before the session runs.
  // `exclude_other` (-x): samples without a parent are filtered (in the totals only).
  void set_parent_pattern(const std::regex* pattern, bool exclude_other) {
    parent_pattern_ = pattern;
    exclude_other_ = exclude_other;
  }
  // --ignore-callees: a sample's callchain is cut at the last frame, in callchain order,
  // whose symbol matches `pattern` (a frame taken as the parent and DWARF-unwound frames
  // excepted), and the
  // sample is charged to that frame (perf's add_callchain_ip resets its cursor there and
  // makes the frame the sample's location). Not owned; set before the session runs.
  void set_ignore_callees(const std::regex* pattern) { ignore_callees_ = pattern; }
  // The "time" key's bucket in ns (perf's --time-quantum); 0: every time its own row.
  void set_time_quantum(uint64_t ns) { time_quantum_ = ns; }
  // -x with --hierarchy: samples without a parent still make rows (perf's upper levels
  // sum them; the printer hides the rows themselves).
  void set_keep_excluded_rows(bool on) { keep_excluded_rows_ = on; }
  // perf report's branch mode: each sample adds one row per branch-stack entry, with a
  // period of 1 (perf's iter_add_next_branch_entry: "the percentage of total branches
  // captured"), instead of its own row. The session must hand over branch stacks
  // (SampleNeeds::branch_stack); no Children or call graph.
  void set_branch_mode(bool on) { branch_mode_ = on; }
  // Branch mode: fill the branch ends' source lines (the srcline_from / srcline_to
  // keys) from `srclines`; nullptr: none.
  void set_branch_srclines(SrcLines* srclines, bool from, bool to) {
    branch_srclines_ = srclines;
    branch_srcline_from_ = from;
    branch_srcline_to_ = to;
  }
  // Branch mode: the typed entries of every evsel (perf's "Branch Statistics").
  const BranchTypeStat& branch_types() const { return branch_types_; }
  // With CallGraphParams::branch_callstack (-g ...,branch, --branch-history): which
  // evsels record LBR call stacks (their chain is the call stack, as perf's
  // resolve_lbr_callchain_sample takes over: no branch entries added); by evsel index.
  void set_lbr_call_stack(std::vector<bool> by_evsel) { lbr_call_stack_ = std::move(by_evsel); }

 private:
  std::vector<Hists> hists_;  // one per evsel
  bool children_ = false;
  bool branch_mode_ = false;
  BranchTypeStat branch_types_;
  void AddBranchEntries(const ResolvedSample& s);
  CallGraphParams call_graph_;
  SrcLines* srclines_ = nullptr;
  SrcLines* chain_srclines_ = nullptr;
  SrcLines* branch_srclines_ = nullptr;
  bool branch_srcline_from_ = false, branch_srcline_to_ = false;
  TraceTexts* trace_texts_ = nullptr;
  std::vector<size_t> chain_rows_;    // per-sample dedup scratch, reused
  // The children walk's rows of one sample by (dso, sym, key_addr of a frame without a
  // symbol): within a sample only these of the frame's key fields change (srcline keys
  // aside: not memoized; the level and ip are kept from a row's first frame anyway), so
  // a frame seen again (recursion) takes its row without building and probing the key.
  // An entry is valid while its `sample` equals memo_sample_.
  struct RowMemo {
    const Dso* dso = nullptr;
    const Symbol* sym = nullptr;
    uint64_t key_addr = 0;
    uint64_t sample = 0;
    size_t row = 0;
  };
  static constexpr size_t kRowMemo = 64;
  RowMemo row_memo_[kRowMemo];
  uint64_t memo_sample_ = 0;
  std::vector<uint32_t> chain_;       // interned frame ids in print order, reused
  static constexpr uint32_t kNoRow = UINT32_MAX;
  struct KeySlot {
    uint32_t evsel = 0;
    uint32_t row = kNoRow;  // kNoRow: filtered (counts in the totals only)
    uint16_t cpumode = 0;
  };
  std::vector<KeySlot> key_slots_;  // OnSummedKey's slots until the next OnSlotSums
  const std::regex* parent_pattern_ = nullptr;
  bool exclude_other_ = false;
  std::unordered_map<const Symbol*, bool> parent_matches_;  // pattern results by symbol
  // The sample's parent: its first callchain frame (leaf first) whose symbol matches.
  void FindParent(const ResolvedSample& s, HistEntry* proto);
  uint64_t time_quantum_ = 0;
  bool keep_excluded_rows_ = false;
  const std::regex* ignore_callees_ = nullptr;
  std::unordered_map<const Symbol*, bool> ignore_matches_;  // its results by symbol
  // `s` with its chain cut and its location moved for --ignore-callees into `cut`;
  // false when no frame matches.
  bool CutIgnoredCallees(const ResolvedSample& s, ResolvedSample* cut);
  bool Matches(const std::regex& re, std::unordered_map<const Symbol*, bool>* cache, const Symbol* sym);
  // perf's thread__resolve_callchain_sample with branch_callstack: the sample's branch
  // stack (loops removed) as target/source entries, then its callchain as perf cuts
  // it, in print order, into bh_frames_/bh_slots_.
  void BranchHistoryChain(const ResolvedSample& s);
  std::vector<bool> lbr_call_stack_;
  // Per-sample working vectors of BranchHistoryChain (defined in the .cc), kept so the
  // walk allocates only when a sample is larger than any before.
  struct BranchHistoryScratch;
  std::unique_ptr<BranchHistoryScratch> bh_scratch_;
  std::vector<CallchainFrame> bh_frames_;
  std::vector<CallchainStore::BranchSlot> bh_slots_;
  std::vector<CallchainStore::BranchSlot> slots_;  // bh_slots_ in print order, reused
};

}  // namespace perflens
