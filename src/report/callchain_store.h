// CallchainStore: the callchains of one Hists, kept as they stream in and turned into
// perf's per-row trees only when a row is printed.
//
// Each distinct chain is stored once, as interned frame ids in one pool (a chain seen
// before is found by its hash); a row keeps references (pool position, length, period,
// samples) to the part of a chain it owns (the whole chain for its self samples, the
// part from its frame on in Children mode). A row's references to the same part are
// folded into its first one whenever the references have doubled since the last fold,
// so memory follows the distinct chains and rows, not the samples (a recording of deep
// recursion repeats the same few chains hundreds of thousands of times). Chains with
// branch entries (--branch-history) are neither shared nor folded: their per-sample
// branch counts need each sample's own entries.
//
// Build() groups a row's references frame by frame from the root: a node's children are
// the distinct next frames, each child's cumulative period is summed before it is
// expanded, and children below the print threshold (CallchainMinHit) are never expanded.
// The result is perf's tree (tools/perf/util/callchain.c: runs of frames split where
// chains diverge or end) restricted to what PrintCallchain shows: building every row's
// full tree, as perf does, was most of `report`'s time and memory.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "report/callchain_tree.h"

namespace perflens {

class CallchainStore {
 public:
  CallchainStore();
  ~CallchainStore();
  CallchainStore(CallchainStore&&) noexcept;
  CallchainStore& operator=(CallchainStore&&) noexcept;

  // The id of `f`'s key: with CallchainKey::kFunction (the default) its function
  // (ChainFrame::SameFunction: dso and symbol start, or dso and ip when unresolved); with
  // kAddress its dso, ip and symbol (the inline frames of one entry share the ip). The
  // first frame seen with a key is the one printed.
  uint32_t InternFrame(const ChainFrame& f);
  // The key InternFrame uses; set before the first frame is interned.
  void set_key(CallchainKey key) { key_ = key; }

  // One chain entry's branch part (--branch-history): `branch` false for an entry of the
  // recorded callchain; `ip` the entry's raw ip (the branch type counts compare it).
  struct BranchSlot {
    bool branch = false;
    ChainBranchEntry entry;
    uint64_t ip = 0;
  };

  // Stores one chain of interned frame ids (in print order) and returns its pool
  // position, or UINT32_MAX once the pool is full (4G frames; AddRef ignores it).
  // `branch`: empty, or one slot per frame; Build then gives every node's entries
  // their ChainBranchCounts (perf's counts over the chains through the entry).
  uint32_t AddChain(std::span<const uint32_t> frames, std::span<const BranchSlot> branch = {});

  // Row `row` gets the chain frames [pos + skip, pos + len) with `period`, the sum of
  // `count` samples' periods. Nothing for a chain AddChain could not store (UINT32_MAX)
  // or a skip past its end.
  void AddRef(size_t row, uint32_t pos, uint32_t skip, uint32_t len, uint64_t period, uint64_t count = 1) {
    if (pos != UINT32_MAX && skip <= len) AddRefs(row, pos + skip, len - skip, period, count);
  }

  // Row `to` takes every reference of row `from` (rows merged after the fact).
  void MergeRows(size_t to, size_t from);

  // Appends `other`'s chains, frames and references (another part of the same session):
  // row r of `other` becomes row rows[r] here (rows.size() covers other's rows). Frames
  // are re-interned in `other`'s id order, so ids, the frame printed per function and
  // each row's references come out as if `other`'s samples had followed this store's.
  // If the pools together would pass the 4G-frame limit, nothing is added.
  void Merge(const CallchainStore& other, std::span<const size_t> rows);

  // References held by all rows after folding (16 bytes each), and frame ids in the
  // pool (4 bytes each): what the stored graphs cost, for tests and benchmarks.
  size_t reference_count() const { return ref_count_; }
  size_t pool_size() const { return pool_.size(); }

  bool HasRefs(size_t row) const { return row < refs_.size() && !refs_[row].empty(); }

  // One row's share of a stored chain, for `count` samples. 16 bytes, as many as a
  // row holds per distinct chain part (or per sample, when chains rarely repeat):
  // folding stops short of the fields' limits. A sample's period beyond 48 bits (only
  // corrupt or hostile files have one) takes two references: its high part as a wide
  // reference (units of 2^16, count 0, never folded) and its low 16 bits; splitting it
  // into 48-bit pieces instead cost up to 65536 references per row and sample.
  struct Ref {
    static constexpr uint64_t kMaxPeriod = (uint64_t{1} << 48) - 1;
    static constexpr uint64_t kMaxCount = (uint64_t{1} << 15) - 1;
    static constexpr unsigned kWideShift = 16;
    uint32_t pos;  // next frame in the pool
    uint32_t len;  // frames left
    uint64_t stored_period : 48;
    uint64_t count : 15;
    uint64_t wide : 1;  // stored_period counts units of 2^kWideShift
    uint64_t period() const { return wide ? uint64_t{stored_period} << kWideShift : stored_period; }
  };

  // Build's working memory; one per thread building trees at the same time.
  struct BuildScratch {
    std::vector<Ref> work, sorted;         // the row's references, regrouped per node
    std::vector<uint64_t> period, chains;  // per frame id below the current node
    std::vector<size_t> bucket;            // per frame id: next slot in `sorted`
    std::vector<uint32_t> seen, kept;      // frame ids below the current node
  };

  // perf's tree of `row` with the children PrintCallchain prints for `params` (and all
  // counts exact). `total_period` is the histogram's total period. Time proportional to
  // the references of the nodes it expands. Without `scratch` it uses the store's own,
  // so only one such call may run at a time; calls with distinct scratches may run
  // concurrently (nothing else may modify the store meanwhile).
  std::unique_ptr<CallchainNode> Build(size_t row, const CallGraphParams& params, uint64_t total_period,
                                       BuildScratch* scratch = nullptr) const;

 private:
  struct FrameSlot {
    const Dso* dso = nullptr;
    uint64_t addr = 0;      // symbol start, or ip when unresolved
    uint32_t frame = 0;     // id: index into frames_ + 1; 0 = empty slot
    uint8_t kind = 0;       // FrameKind: what addr is
  };
  void GrowFrames();
  void GrowChains();
  // Appends a reference for `count` samples (folding when due).
  void AddRefs(size_t row, uint32_t pos, uint32_t len, uint64_t period, uint64_t count);
  // Folds each row's references to the same (pos, len) into the first one.
  void FoldRefs();

  mutable std::unique_ptr<BuildScratch> scratch_;  // for Build calls without one
  CallchainKey key_ = CallchainKey::kFunction;

  std::vector<uint32_t> pool_;
  // Parallel to pool_ once a chain with branch slots was added (empty before): the
  // index + 1 of the position's slot in branch_slots_, 0 for none.
  std::vector<uint32_t> branch_pool_;
  std::vector<BranchSlot> branch_slots_;
  bool has_branch_ = false;  // branch_pool_ is kept
  // `creates`: the first chain through the entry (ChainBranchCounts::Add).
  void CountBranch(uint32_t pos, ChainBranchCounts* counts, bool creates) const {
    if (pos < branch_pool_.size() && branch_pool_[pos]) {
      const BranchSlot& b = branch_slots_[branch_pool_[pos] - 1];
      counts->Add(b.entry, b.ip, creates);
    }
  }
  std::vector<std::vector<Ref>> refs_;  // by row
  static constexpr size_t kFirstFold = size_t{1} << 16;
  size_t ref_count_ = 0;                // references in refs_
  size_t fold_at_ = kFirstFold;  // FoldRefs when ref_count_ reaches this
  std::vector<size_t> folded_sizes_;  // by row: its size after the last FoldRefs
  std::vector<uint32_t> fold_slots_;  // FoldRefs' table: kept index + 1, 0 = empty
  // Distinct chains without branch entries, open addressing, at most half full; the
  // hash is recomputed from the pool when the table grows (8 bytes a slot).
  struct ChainSlot {
    uint32_t pos = 0;
    uint32_t len = 0;  // 0 = empty slot (empty chains are not stored)
  };
  std::vector<ChainSlot> chain_slots_;
  size_t chain_count_ = 0;
  std::vector<ChainFrame> frames_;      // by id - 1
  std::vector<FrameSlot> frame_slots_;  // open addressing, at most half full
};

}  // namespace perflens
