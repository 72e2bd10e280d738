// CallchainStore: the tree Build() makes from stored chains must be perf's tree — the
// one AppendChain (perf's append_chain/split_add_child, tested in callchain_tree_test)
// grows sample by sample — node for node, with the same runs, counts and child order,
// minus exactly the children below the print threshold.
#include "report/callchain_store.h"

#include <deque>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace perflens {
namespace {

struct Fixture {
  Dso app{0, "/usr/bin/app", DsoKind::kUser};
  std::deque<std::string> names;  // Symbol::name views into these
  std::vector<Symbol> syms;
  Fixture() {
    for (uint64_t i = 0; i < 12; ++i) {
      names.push_back("f" + std::to_string(i));
      syms.push_back({0x1000 + i * 0x100, 0x1080 + i * 0x100, names.back()});
    }
  }
  // Frame `i`; i >= 12 is an unresolved ip.
  ChainFrame F(size_t i) {
    if (i < syms.size()) return {&app, &syms[i], syms[i].start + 8};
    return {&app, nullptr, 0x9000 + i};
  }
};

// Node for node, in order: frames, hits, counts.
void ExpectSameTree(const CallchainNode& want, const CallchainNode& got, const std::string& path = "root") {
  ASSERT_EQ(want.val.size(), got.val.size()) << path;
  for (size_t i = 0; i < want.val.size(); ++i) {
    EXPECT_TRUE(want.val[i].SameFunction(got.val[i])) << path << " frame " << i;
    EXPECT_EQ(want.val[i].sym, got.val[i].sym) << path << " frame " << i;
  }
  EXPECT_EQ(want.hit, got.hit) << path;
  EXPECT_EQ(want.count, got.count) << path;
  EXPECT_EQ(want.children_hit, got.children_hit) << path;
  EXPECT_EQ(want.children_count, got.children_count) << path;
  ASSERT_EQ(want.children.size(), got.children.size()) << path;
  for (size_t c = 0; c < want.children.size(); ++c)
    ExpectSameTree(*want.children[c], *got.children[c], path + "/" + std::to_string(c));
}

// `-g graph,0`: every node printed.
CallGraphParams GraphNoThreshold() {
  CallGraphParams p;
  bool order_set = false;
  std::string err;
  EXPECT_TRUE(ParseCallGraphArg("graph,0", &p, &order_set, &err)) << err;
  return p;
}

// Drops every child below the print threshold, as Build must.
void Prune(CallchainNode* node, const CallGraphParams& p, uint64_t total) {
  const uint64_t min_hit = CallchainMinHit(p, total, node->children_hit);
  std::erase_if(node->children, [&](const auto& c) { return c->cumul() < min_hit; });
  for (auto& c : node->children) Prune(c.get(), p, total);
}

TEST(CallchainStoreTest, BuildsPerfsTreeForRandomChains) {
  Fixture fx;
  std::mt19937 rng(7);
  for (int round = 0; round < 40; ++round) {
    CallchainStore store;
    CallchainNode want;
    uint64_t total = 0;
    const size_t alphabet = 3 + round % 12, max_len = 1 + round % 7;
    for (int s = 0; s < 200; ++s) {
      std::vector<ChainFrame> chain;
      std::vector<uint32_t> ids;
      const size_t len = rng() % (max_len + 1);  // empty chains end at the root
      for (size_t k = 0; k < len; ++k) {
        // Skewed: low frames are common, so some branches are big and some tiny.
        size_t i = std::min<size_t>(rng() % alphabet, rng() % alphabet);
        chain.push_back(fx.F(i == 11 ? 12 + rng() % 3 : i));
        ids.push_back(store.InternFrame(chain.back()));
      }
      const uint64_t period = s % 17 == 0 ? 0 : 1 + rng() % 1000;  // period-0 samples still count
      AppendChain(&want, chain, period);
      store.AddRef(0, store.AddChain(ids), 0, static_cast<uint32_t>(ids.size()), period);
      total += period;
    }
    for (const char* arg : {"graph,0", "graph,0.5", "graph,5", "fractal,0.5", "fractal,20", "folded,2"}) {
      CallGraphParams p;
      bool order_set = false;
      std::string err;
      ASSERT_TRUE(ParseCallGraphArg(arg, &p, &order_set, &err)) << err;
      std::unique_ptr<CallchainNode> got = store.Build(0, p, total);
      SCOPED_TRACE(std::string(arg) + " round " + std::to_string(round));
      // The reference: a copy of `want` (CallchainNode is move-only), then pruned.
      CallchainNode pruned;
      auto rebuild = [&](auto&& self, const CallchainNode& from, CallchainNode* to) -> void {
        to->val = from.val;
        to->hit = from.hit;
        to->count = from.count;
        to->children_hit = from.children_hit;
        to->children_count = from.children_count;
        for (const auto& c : from.children) {
          to->children.push_back(std::make_unique<CallchainNode>());
          self(self, *c, to->children.back().get());
        }
      };
      rebuild(rebuild, want, &pruned);
      Prune(&pruned, p, total);
      ExpectSameTree(pruned, *got);
      // And both print the same text.
      std::string a, b;
      PrintCallchain(pruned, p, total, want.cumul(), &a);
      PrintCallchain(*got, p, total, want.cumul(), &b);
      EXPECT_EQ(a, b);
    }
  }
}

// A chain seen again is stored once, and past 64K references a row's references to the
// same part of a chain are folded into one; the trees are still perf's, counts
// included (each folded reference carries its samples).
TEST(CallchainStoreTest, RepeatedChainsAreStoredOnceAndFolded) {
  Fixture fx;
  std::mt19937 rng(11);
  std::vector<std::vector<size_t>> shapes;
  for (int c = 0; c < 40; ++c) {
    std::vector<size_t> frames(1 + rng() % 6);
    for (size_t& f : frames) f = rng() % 13;  // 12 is an unresolved ip
    shapes.push_back(frames);
  }
  CallchainStore store;
  CallchainNode want0, want1;  // row 0: whole chains; row 1: from the second frame on
  uint64_t total = 0;
  const int samples = (1 << 20) + 300000;
  for (int s = 0; s < samples; ++s) {
    const auto& shape = shapes[std::min(rng() % shapes.size(), rng() % shapes.size())];
    std::vector<ChainFrame> chain;
    std::vector<uint32_t> ids;
    for (size_t i : shape) {
      chain.push_back(fx.F(i));
      ids.push_back(store.InternFrame(chain.back()));
    }
    const uint64_t period = 1 + rng() % 3;
    const uint32_t pos = store.AddChain(ids);
    const auto n = static_cast<uint32_t>(ids.size());
    AppendChain(&want0, chain, period);
    store.AddRef(0, pos, 0, n, period);
    AppendChain(&want1, std::vector<ChainFrame>(chain.begin() + 1, chain.end()), period);
    store.AddRef(1, pos, 1, n, period);
    total += period;
  }
  // 40 shapes (some alike): at most 40 chains of at most 6 frames in the pool.
  EXPECT_LE(store.pool_size(), 40u * 6);
  // Two references a sample, 2.7M unfolded; folded at 64K and at each doubling, far fewer.
  EXPECT_LT(store.reference_count(), size_t{1} << 20);
  const CallGraphParams p = GraphNoThreshold();
  ExpectSameTree(want0, *store.Build(0, p, total), "row0");
  ExpectSameTree(want1, *store.Build(1, p, total), "row1");
}

// A reference holds 48 bits of period: a larger (corrupt) one is kept whole, not cut,
// still counts as one sample, and costs two references, not one per 48 bits (a file of
// 2^64-1 periods made 65536 references per row and sample: the fuzzer's timeout).
TEST(CallchainStoreTest, HugePeriodsAreKeptWhole) {
  Fixture fx;
  CallchainStore store;
  std::vector<uint32_t> ids{store.InternFrame(fx.F(0)), store.InternFrame(fx.F(1))};
  const uint64_t huge = (uint64_t{1} << 62) + 5;
  const uint64_t max = UINT64_MAX;
  store.AddRef(0, store.AddChain(ids), 0, 2, huge);
  store.AddRef(0, store.AddChain(ids), 0, 2, 7);
  store.AddRef(0, store.AddChain(ids), 0, 2, max);
  store.AddRef(0, store.AddChain(ids), 1, 2, max);  // b alone
  EXPECT_LE(store.reference_count(), 7u);
  const CallGraphParams p = GraphNoThreshold();
  // The sums wrap as perf's u64 periods do.
  const uint64_t total = huge + 7 + max + max;
  auto root = store.Build(0, p, total);
  EXPECT_EQ(root->children_hit, total);
  EXPECT_EQ(root->children_count, 4u);
  ASSERT_EQ(root->children.size(), 2u);
  const CallchainNode& ab = *root->children[0];
  EXPECT_EQ(ab.val.size(), 2u);  // a and b, one run: every chain goes on to b
  EXPECT_EQ(ab.hit, huge + 7 + max);
  EXPECT_EQ(ab.count, 3u);
  EXPECT_EQ(root->children[1]->hit, max);
  EXPECT_EQ(root->children[1]->count, 1u);
}

// Many samples with periods past 48 bits: two references each at most, the wide parts
// never folded into ordinary ones (their units differ), the sums exact modulo 2^64.
TEST(CallchainStoreTest, WidePeriodsFoldApartFromOrdinaryOnes) {
  Fixture fx;
  CallchainStore store;
  std::vector<uint32_t> ids{store.InternFrame(fx.F(0))};
  const uint32_t pos = store.AddChain(ids);
  uint64_t total = 0, samples = 0;
  for (uint64_t s = 0; s < 70000; ++s) {  // past the first fold at 64K references
    const uint64_t period = s % 3 == 0 ? UINT64_MAX - s : s + 1;
    store.AddRef(0, pos, 0, 1, period);
    total += period, ++samples;
  }
  EXPECT_LT(store.reference_count(), samples);  // 4/3 a sample unfolded
  const CallGraphParams p = GraphNoThreshold();
  auto root = store.Build(0, p, total);
  EXPECT_EQ(root->children_hit, total);
  EXPECT_EQ(root->children_count, samples);
  ASSERT_EQ(root->children.size(), 1u);
  EXPECT_EQ(root->children[0]->hit, total);
}

// A summed reference (Session's coalesced chains) stands for `count` samples: counts
// past a reference's 15 bits take more references, never a truncated count, and the
// tree is the one those samples give one by one.
TEST(CallchainStoreTest, SummedReferencesCountEverySample) {
  Fixture fx;
  CallchainStore one_by_one, summed;
  auto chain = [&](CallchainStore& store) {
    std::vector<uint32_t> ids{store.InternFrame(fx.F(0)), store.InternFrame(fx.F(1))};
    return store.AddChain(ids);
  };
  const uint64_t n = 2 * CallchainStore::Ref::kMaxCount + 5;
  const uint32_t pos1 = chain(one_by_one);
  for (uint64_t s = 0; s < n; ++s) one_by_one.AddRef(0, pos1, 0, 2, 3);
  one_by_one.AddRef(0, pos1, 1, 2, 11);
  const uint32_t pos2 = chain(summed);
  summed.AddRef(0, pos2, 0, 2, 3 * n, n);
  summed.AddRef(0, pos2, 1, 2, 11, 1);
  EXPECT_EQ(summed.reference_count(), 4u);  // n in three references, then b's
  const CallGraphParams p = GraphNoThreshold();
  const uint64_t total = 3 * n + 11;
  auto want = one_by_one.Build(0, p, total);
  auto got = summed.Build(0, p, total);
  EXPECT_EQ(got->children_count, n + 1);
  ExpectSameTree(*want, *got, "row0");
}

// Folding stops short of a reference's 15-bit count and 48-bit period: past either
// limit the next reference is kept and later ones fold into it, so no sample or
// period is lost; a row folded once and grown again folds again (references stay
// few), and an unchanged row is left as it is.
TEST(CallchainStoreTest, FoldingKeepsCountsAndPeriodsPastTheFieldLimits) {
  Fixture fx;
  CallchainStore store;
  std::vector<uint32_t> ab{store.InternFrame(fx.F(0)), store.InternFrame(fx.F(1))};
  std::vector<uint32_t> c{store.InternFrame(fx.F(2))};
  const uint32_t pos_ab = store.AddChain(ab), pos_c = store.AddChain(c);
  const uint64_t big = uint64_t{1} << 46;  // four of these pass the 48-bit limit
  uint64_t total = 0, samples = 0;
  // 3 x 32767 + 9 samples of a->b (period 1): four references at least.
  for (uint64_t s = 0; s < 3 * CallchainStore::Ref::kMaxCount + 9; ++s) {
    store.AddRef(0, pos_ab, 0, 2, 1);
    ++total, ++samples;
  }
  // Ten samples of c, each 2^46: the period limit splits them over references.
  for (int s = 0; s < 10; ++s) {
    store.AddRef(0, pos_c, 0, 1, big);
    total += big, ++samples;
  }
  // Row 1 holds only a few references and is never regrown: folding leaves it alone.
  store.AddRef(1, pos_c, 0, 1, 3);
  store.AddRef(1, pos_c, 0, 1, 4);
  EXPECT_LT(store.reference_count(), samples / 2);  // folded at 64K references and again at each doubling
  const CallGraphParams p = GraphNoThreshold();
  auto root = store.Build(0, p, total);
  EXPECT_EQ(root->children_hit, total);
  EXPECT_EQ(root->children_count, samples);
  ASSERT_EQ(root->children.size(), 2u);
  const CallchainNode* node_ab = nullptr;
  const CallchainNode* node_c = nullptr;
  for (const auto& child : root->children) (child->val.front().sym == &fx.syms[2] ? node_c : node_ab) = child.get();
  ASSERT_TRUE(node_ab && node_c);
  EXPECT_EQ(node_c->hit, 10 * big);
  EXPECT_EQ(node_c->count, 10u);
  EXPECT_EQ(node_ab->cumul(), 3 * CallchainStore::Ref::kMaxCount + 9);
  EXPECT_EQ(node_ab->count + node_ab->children_count, 3 * CallchainStore::Ref::kMaxCount + 9);
  auto row1 = store.Build(1, p, 7);
  EXPECT_EQ(row1->children_hit, 7u);
  EXPECT_EQ(row1->children_count, 2u);
}

// The address key: two call sites in one function are two nodes; the inline frames at
// one ip (one symbol each) stay apart; one ip and symbol is one id.
TEST(CallchainStoreTest, AddressKeyKeepsCallSitesApart) {
  Fixture fx;
  CallchainStore by_function, by_address;
  by_address.set_key(CallchainKey::kAddress);
  ChainFrame a = fx.F(1), b = fx.F(1);
  b.ip += 0x20;
  EXPECT_EQ(by_function.InternFrame(a), by_function.InternFrame(b));
  const uint32_t ida = by_address.InternFrame(a);
  EXPECT_NE(ida, by_address.InternFrame(b));
  EXPECT_EQ(ida, by_address.InternFrame(a));
  Symbol inl = fx.syms[1];
  inl.inlined = true;
  ChainFrame c{a.dso, &inl, a.ip};
  EXPECT_NE(ida, by_address.InternFrame(c)) << "an inline frame at the same ip";
  EXPECT_EQ(by_address.InternFrame(c), by_address.InternFrame(c));
}

TEST(CallchainStoreTest, RowsOwnSuffixesAndMerge) {
  Fixture fx;
  CallchainStore store;
  std::vector<uint32_t> ids;
  for (size_t i : {0, 1, 2}) ids.push_back(store.InternFrame(fx.F(i)));
  EXPECT_EQ(store.InternFrame(fx.F(1)), ids[1]) << "one id per function";
  const uint32_t pos = store.AddChain(ids);
  store.AddRef(0, pos, 0, 3, 10);  // f0 f1 f2
  store.AddRef(1, pos, 1, 3, 10);  // f1 f2
  store.AddRef(2, pos, 3, 3, 10);  // empty: ends at the root
  store.AddRef(3, pos, 4, 3, 10);  // out of range: ignored
  EXPECT_FALSE(store.HasRefs(3));
  CallGraphParams p;
  p.min_percent = 0;
  auto row1 = store.Build(1, p, 30);
  ASSERT_EQ(row1->children.size(), 1u);
  EXPECT_EQ(row1->children[0]->val.size(), 2u) << "one run: f1 f2";
  EXPECT_EQ(row1->children[0]->hit, 10u);
  auto row2 = store.Build(2, p, 30);
  EXPECT_EQ(row2->hit, 10u);
  EXPECT_TRUE(row2->children.empty());

  store.MergeRows(0, 1);
  EXPECT_FALSE(store.HasRefs(1));
  auto merged = store.Build(0, p, 30);
  ASSERT_EQ(merged->children.size(), 2u) << "f0... and f1... side by side";
  EXPECT_EQ(merged->children_hit, 20u);
  EXPECT_EQ(merged->children_count, 2u);
}

// --branch-history: each printed entry sums the branch slots of the chains through it,
// perf's from_count leaving out the chain that made the entry; entries of the recorded
// chain (no slot) print " (calltrace)"; a second store merged in keeps its slots.
TEST(CallchainStoreTest, BranchCountsPerEntry) {
  Fixture fx;
  CallchainStore store, other;
  store.set_key(CallchainKey::kAddress);
  other.set_key(CallchainKey::kAddress);
  auto slots = [](bool predicted, uint16_t cycles) {
    BranchFlags call;
    call.type = 4;  // CALL
    call.predicted = predicted;
    BranchFlags src = call;
    src.cycles = cycles;
    // f0 is the target of a call from f1 (which looped once, 7 cycles), f2 recorded.
    return std::vector<CallchainStore::BranchSlot>{
        {true, {0x1108, call, 0, 0}, 0x1008}, {true, {0, src, 1, 7}, 0x1108}, {}};
  };
  auto add = [&](CallchainStore* s, bool predicted, uint16_t cycles) {
    std::vector<uint32_t> ids;
    for (size_t i : {0, 1, 2}) ids.push_back(s->InternFrame(fx.F(i)));
    const auto sl = slots(predicted, cycles);
    s->AddRef(0, s->AddChain(ids, sl), 0, 3, 10);
  };
  add(&store, true, 10);
  add(&store, false, 20);
  add(&other, false, 30);
  store.Merge(other, std::vector<size_t>{0});
  CallGraphParams p;
  p.min_percent = 0;
  auto root = store.Build(0, p, 30);
  ASSERT_EQ(root->children.size(), 1u);
  const CallchainNode& n = *root->children[0];
  ASSERT_EQ(n.val.size(), 3u);
  ASSERT_EQ(n.branch.size(), 3u);
  EXPECT_EQ(n.branch[0].branch_count, 3u);
  EXPECT_EQ(n.branch[0].predicted_count, 1u);
  EXPECT_TRUE(n.branch[0].branch_to);
  EXPECT_EQ(n.branch[1].cycles_count, 60u);
  EXPECT_EQ(n.branch[1].from_count, 2u) << "the first chain made the entry";
  EXPECT_EQ(n.branch[1].iter_count, 3u);
  EXPECT_EQ(n.branch[2].branch_count, 0u);
  std::string text;
  AppendBranchCounts(n.branch[0], &text);
  EXPECT_EQ(text, " (CALL predicted:33.3%)");
  text.clear();
  AppendBranchCounts(n.branch[1], &text);
  EXPECT_EQ(text, " (cycles:20 iter:1 avg_cycles:7)");
  text.clear();
  AppendBranchCounts(n.branch[2], &text);
  EXPECT_EQ(text, " (calltrace)");
  // Nothing to say: no type, all predicted, no cycles.
  ChainBranchCounts quiet;
  quiet.Add({0x10, BranchFlags{.predicted = true}, 0, 0}, 0x20, true);
  text.clear();
  AppendBranchCounts(quiet, &text);
  EXPECT_EQ(text, "");
}

}  // namespace
}  // namespace perflens
