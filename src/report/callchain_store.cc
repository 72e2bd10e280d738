#include "report/callchain_store.h"

#include <algorithm>
#include <functional>
#include <string_view>

#include <utility>

namespace perflens {
namespace {

// What a frame slot's addr is: the ip (unresolved), the symbol start, or for an inline
// frame a hash of its name (perf's match_chain compares inlined frames by name: they
// share their function's start); with the address key, the ip of a resolved frame
// (its symbol tells the inline frames at one ip apart).
enum FrameKind : uint8_t { kFrameIp = 0, kFrameSymbol = 1, kFrameInlined = 2, kFrameAddress = 3 };

size_t FrameSlotIndex(const Dso* dso, uint64_t addr, uint8_t kind, size_t mask) {
  uint64_t h = (reinterpret_cast<uintptr_t>(dso) ^ (addr * 0xBF58476D1CE4E5B9ULL) ^ kind) *
               0x9E3779B97F4A7C15ULL;
  return static_cast<size_t>(h >> 29) & mask;
}

}  // namespace

uint32_t CallchainStore::InternFrame(const ChainFrame& f) {
  if (2 * (frames_.size() + 1) > frame_slots_.size()) GrowFrames();
  const uint8_t kind = !f.sym                          ? kFrameIp
                       : key_ == CallchainKey::kAddress ? kFrameAddress
                       : f.sym->inlined                 ? kFrameInlined
                                                        : kFrameSymbol;
  const uint64_t addr = kind == kFrameIp || kind == kFrameAddress ? f.ip
                        : kind == kFrameSymbol                    ? f.sym->start
                                                                  : std::hash<std::string_view>{}(f.sym->name);
  const size_t mask = frame_slots_.size() - 1;
  size_t i = FrameSlotIndex(f.dso, addr, kind, mask);
  while (frame_slots_[i].frame) {
    const FrameSlot& s = frame_slots_[i];
    if (s.dso == f.dso && s.addr == addr && s.kind == kind &&
        (kind != kFrameInlined || frames_[s.frame - 1].sym->name == f.sym->name) &&
        (kind != kFrameAddress || frames_[s.frame - 1].sym == f.sym))
      return s.frame;
    i = (i + 1) & mask;
  }
  frames_.push_back(f);
  frame_slots_[i] = {f.dso, addr, static_cast<uint32_t>(frames_.size()), kind};
  return static_cast<uint32_t>(frames_.size());
}

void CallchainStore::GrowFrames() {
  std::vector<FrameSlot> old = std::move(frame_slots_);
  frame_slots_.assign(old.empty() ? 256 : old.size() * 2, FrameSlot{});
  const size_t mask = frame_slots_.size() - 1;
  for (const FrameSlot& s : old) {
    if (!s.frame) continue;
    size_t i = FrameSlotIndex(s.dso, s.addr, s.kind, mask);
    while (frame_slots_[i].frame) i = (i + 1) & mask;
    frame_slots_[i] = s;
  }
}

namespace {
uint64_t ChainHash(std::span<const uint32_t> frames) {
  uint64_t h = frames.size() * 0x9E3779B97F4A7C15ULL;
  for (uint32_t f : frames) h = (h ^ f) * 0xBF58476D1CE4E5B9ULL + 0x94D049BB133111EBULL;
  return h ^ (h >> 31);
}
}  // namespace

void CallchainStore::GrowChains() {
  std::vector<ChainSlot> old = std::move(chain_slots_);
  chain_slots_.assign(old.empty() ? 1024 : old.size() * 2, ChainSlot{});
  const size_t mask = chain_slots_.size() - 1;
  for (const ChainSlot& c : old) {
    if (!c.len) continue;
    size_t i = static_cast<size_t>(ChainHash(std::span<const uint32_t>(pool_).subspan(c.pos, c.len))) & mask;
    while (chain_slots_[i].len) i = (i + 1) & mask;
    chain_slots_[i] = c;
  }
}

uint32_t CallchainStore::AddChain(std::span<const uint32_t> frames, std::span<const BranchSlot> branch) {
  if (pool_.size() + frames.size() >= UINT32_MAX) return UINT32_MAX;
  const bool with_branch = branch.size() == frames.size() && !branch.empty();
  ChainSlot* slot = nullptr;
  if (!with_branch && !frames.empty()) {
    if (2 * (chain_count_ + 1) > chain_slots_.size()) GrowChains();
    const size_t mask = chain_slots_.size() - 1;
    size_t i = static_cast<size_t>(ChainHash(frames)) & mask;
    for (; chain_slots_[i].len; i = (i + 1) & mask) {
      const ChainSlot& c = chain_slots_[i];
      if (c.len == frames.size() && std::equal(frames.begin(), frames.end(), pool_.begin() + c.pos))
        return c.pos;
    }
    slot = &chain_slots_[i];
  }
  const auto pos = static_cast<uint32_t>(pool_.size());
  if (slot) {
    *slot = {pos, static_cast<uint32_t>(frames.size())};
    ++chain_count_;
  }
  if (with_branch && !has_branch_) {
    branch_pool_.assign(pool_.size(), 0);
    has_branch_ = true;
  }
  pool_.insert(pool_.end(), frames.begin(), frames.end());
  if (has_branch_) {
    for (size_t i = 0; i < frames.size(); ++i) {
      if (branch.size() == frames.size() && branch[i].branch) {
        branch_slots_.push_back(branch[i]);
        branch_pool_.push_back(static_cast<uint32_t>(branch_slots_.size()));
      } else {
        branch_pool_.push_back(0);
      }
    }
  }
  return pos;
}

void CallchainStore::AddRefs(size_t row, uint32_t pos, uint32_t len, uint64_t period, uint64_t count) {
  if (refs_.size() <= row) refs_.resize(row + 1);
  std::vector<Ref>& refs = refs_[row];
  if (period > Ref::kMaxPeriod) {  // only hostile or corrupt periods are this large
    refs.push_back({pos, len, period >> Ref::kWideShift, 0, 1});
    period &= (uint64_t{1} << Ref::kWideShift) - 1;
    ++ref_count_;
  }
  for (; count > Ref::kMaxCount; count -= Ref::kMaxCount) {  // summed samples: counts beyond the field
    refs.push_back({pos, len, 0, Ref::kMaxCount, 0});
    ++ref_count_;
  }
  refs.push_back({pos, len, period, count, 0});
  if (++ref_count_ >= fold_at_ && !has_branch_) {
    FoldRefs();
    // Fold again once the references have doubled: linear time overall, even when
    // nothing folds (every chain distinct).
    fold_at_ = std::max(2 * ref_count_, kFirstFold);
  }
}

void CallchainStore::FoldRefs() {
  // Per row, in order: a reference to a (pos, len) already kept folds into the latest
  // kept one while the fields have room, else it is kept and becomes the one later
  // references fold into. Found through an open-addressing table of kept indexes (linear
  // time; sorting the indexes with an indirect comparison was a third of a children
  // report's CPU). The order of the kept references is unchanged, so Build sees chains
  // in the order of their first sample, as without folding. Rows not grown since the
  // last fold are left as they are (folding them again changes nothing).
  ref_count_ = 0;
  if (folded_sizes_.size() < refs_.size()) folded_sizes_.resize(refs_.size(), 0);
  for (size_t row = 0; row < refs_.size(); ++row) {
    std::vector<Ref>& refs = refs_[row];
    if (refs.size() > 1 && refs.size() != folded_sizes_[row]) {
      size_t slots = 16;
      while (slots < 2 * refs.size()) slots *= 2;
      fold_slots_.assign(slots, 0);
      const size_t mask = slots - 1;
      size_t kept = 0;
      for (size_t i = 0; i < refs.size(); ++i) {
        const Ref r = refs[i];
        if (r.wide) {  // kept as it is, and nothing folds into it
          refs[kept++] = r;
          continue;
        }
        const uint64_t key = uint64_t{r.pos} << 32 | r.len;
        size_t h = static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> 32) & mask;
        while (fold_slots_[h]) {
          const Ref& k = refs[fold_slots_[h] - 1];
          if (k.pos == r.pos && k.len == r.len) break;
          h = (h + 1) & mask;
        }
        if (fold_slots_[h]) {
          Ref& keep = refs[fold_slots_[h] - 1];
          if (uint64_t{keep.count} + r.count <= Ref::kMaxCount &&
              uint64_t{keep.stored_period} + r.stored_period <= Ref::kMaxPeriod) {
            keep.stored_period += r.stored_period;
            keep.count += r.count;
            continue;
          }
        }
        refs[kept] = r;
        fold_slots_[h] = static_cast<uint32_t>(++kept);  // later ones fold into this one
      }
      refs.resize(kept);
      // Free what folding gave back when it was most of the row.
      if (refs.capacity() > 4 * kept + 16) refs.shrink_to_fit();
    }
    folded_sizes_[row] = refs.size();
    ref_count_ += refs.size();
  }
}

void CallchainStore::MergeRows(size_t to, size_t from) {
  if (from >= refs_.size() || to == from) return;
  if (refs_.size() <= to) refs_.resize(to + 1);
  std::vector<Ref> moved = std::move(refs_[from]);
  refs_[from].clear();
  if (from < folded_sizes_.size()) folded_sizes_[from] = 0;
  refs_[to].insert(refs_[to].end(), moved.begin(), moved.end());
  // ref_count_ is unchanged: the references only moved.
}

void CallchainStore::Merge(const CallchainStore& other, std::span<const size_t> rows) {
  if (pool_.size() + other.pool_.size() >= UINT32_MAX) return;
  std::vector<uint32_t> ids(other.frames_.size());
  for (size_t i = 0; i < other.frames_.size(); ++i) ids[i] = InternFrame(other.frames_[i]);
  const auto base = static_cast<uint32_t>(pool_.size());
  if (other.has_branch_ && !has_branch_) {
    branch_pool_.assign(pool_.size(), 0);
    has_branch_ = true;
  }
  pool_.reserve(pool_.size() + other.pool_.size());
  for (uint32_t id : other.pool_) pool_.push_back(ids[id - 1]);
  if (has_branch_) {
    for (size_t p = 0; p < other.pool_.size(); ++p) {
      const uint32_t slot = p < other.branch_pool_.size() ? other.branch_pool_[p] : 0;
      if (slot) {
        branch_slots_.push_back(other.branch_slots_[slot - 1]);
        branch_pool_.push_back(static_cast<uint32_t>(branch_slots_.size()));
      } else {
        branch_pool_.push_back(0);
      }
    }
  }
  for (size_t r = 0; r < other.refs_.size() && r < rows.size(); ++r)
    for (const Ref& ref : other.refs_[r]) AddRefs(rows[r], base + ref.pos, ref.len, ref.period(), ref.count);
}

CallchainStore::CallchainStore() = default;
CallchainStore::~CallchainStore() = default;
CallchainStore::CallchainStore(CallchainStore&&) noexcept = default;
CallchainStore& CallchainStore::operator=(CallchainStore&&) noexcept = default;

std::unique_ptr<CallchainNode> CallchainStore::Build(size_t row, const CallGraphParams& params,
                                                     uint64_t total_period, BuildScratch* scratch) const {
  auto root = std::make_unique<CallchainNode>();
  if (row >= refs_.size()) return root;
  if (!scratch) {
    if (!scratch_) scratch_ = std::make_unique<BuildScratch>();
    scratch = scratch_.get();
  }
  BuildScratch& s = *scratch;
  s.work = refs_[row];
  s.sorted.resize(s.work.size());
  // Per frame id, zero between nodes (reset through `seen`): sized once per store.
  s.period.resize(frames_.size() + 1, 0);
  s.chains.resize(frames_.size() + 1, 0);
  s.bucket.resize(frames_.size() + 1, 0);
  std::vector<Ref>& work = s.work;
  std::vector<Ref>& sorted = s.sorted;
  std::vector<uint64_t>& period = s.period;
  std::vector<uint64_t>& chains = s.chains;
  std::vector<size_t>& bucket = s.bucket;
  std::vector<uint32_t>& seen = s.seen;
  std::vector<uint32_t>& kept = s.kept;
  struct Task {
    CallchainNode* node;
    size_t begin, end;  // its references in `work`, each positioned past the node's frames
  };
  std::vector<Task> tasks{{root.get(), 0, work.size()}};
  while (!tasks.empty()) {
    Task t = tasks.back();
    tasks.pop_back();
    while (true) {
      uint64_t hit = 0, count = 0, children_hit = 0, children_count = 0;
      seen.clear();
      for (size_t i = t.begin; i < t.end; ++i) {
        const Ref& r = work[i];
        const uint64_t p = r.period();
        if (r.len == 0) {
          hit += p;
          count += r.count;
          continue;
        }
        const uint32_t f = pool_[r.pos];
        if (chains[f]++ == 0) seen.push_back(f);
        period[f] += p;
        children_hit += p;
        children_count += r.count;
      }
      // A node that no chain ends in and that has one child continues as one run of
      // frames (perf splits a node only where chains diverge or end).
      if (t.node != root.get() && count == 0 && seen.size() == 1) {
        const uint32_t f = seen[0];
        t.node->val.push_back(frames_[f - 1]);
        if (has_branch_) {
          ChainBranchCounts& counts = t.node->branch.emplace_back();
          for (size_t i = t.begin; i < t.end; ++i) CountBranch(work[i].pos, &counts, i == t.begin);
        }
        for (size_t i = t.begin; i < t.end; ++i) ++work[i].pos, --work[i].len;
        period[f] = chains[f] = 0;
        continue;
      }
      t.node->hit = hit;
      t.node->count = count;
      t.node->children_hit = children_hit;
      t.node->children_count = children_count;
      const uint64_t min_hit = CallchainMinHit(params, total_period, children_hit);
      // Children in order of first appearance, bucketed (stable) into `sorted`.
      kept.clear();
      size_t next = t.begin;
      for (uint32_t f : seen) {
        if (period[f] >= min_hit) {
          kept.push_back(f);
          bucket[f] = next;
          next += chains[f];
        }
      }
      const size_t kept_end = next;
      for (size_t i = t.begin; i < t.end; ++i) {
        const Ref& r = work[i];
        if (r.len == 0) continue;
        const uint32_t f = pool_[r.pos];
        if (period[f] < min_hit) continue;
        Ref& moved = sorted[bucket[f]++];
        moved = r;
        ++moved.pos, --moved.len;
      }
      std::copy(sorted.begin() + static_cast<long>(t.begin), sorted.begin() + static_cast<long>(kept_end),
                work.begin() + static_cast<long>(t.begin));
      size_t start = t.begin;
      for (uint32_t f : kept) {
        auto child = std::make_unique<CallchainNode>();
        child->val.push_back(frames_[f - 1]);
        if (has_branch_) {
          // The child's references are already past its first frame.
          ChainBranchCounts& counts = child->branch.emplace_back();
          for (size_t i = start; i < start + chains[f]; ++i) CountBranch(work[i].pos - 1, &counts, i == start);
        }
        tasks.push_back({child.get(), start, start + chains[f]});
        start += chains[f];
        t.node->children.push_back(std::move(child));
      }
      for (uint32_t f : seen) period[f] = chains[f] = 0;
      break;
    }
  }
  return root;
}

}  // namespace perflens
