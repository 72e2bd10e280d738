// CallchainTree: AppendChain merging/splitting (perf's callchain.c append_chain /
// split_add_child), -g parsing, and the graph/fractal/flat/folded text of hand-built
// trees. The expected blocks are perf 6.1's output for the same chains: a recording of
// 11 samples of pid 47123 in a JIT map (main 0x7f0000001000, compute ...2000, helper
// ...3000, leaf_a ...4000, leaf_b ...5000 from /tmp/perf-47123.map), one sample at the
// unresolved ip 0x7f0000009abc, each with period 1000 (stdio_printer_test builds it):
//   4x leaf_a<-helper<-compute<-main  3x leaf_b<-helper<-compute<-main
//   2x compute<-main  1x leaf_a<-main  1x 0x7f0000009abc<-compute<-main
// and `perf report --stdio [--no-children] -g MODE` printed these blocks.
#include "report/callchain_tree.h"

#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace perflens {
namespace {

constexpr uint64_t kBase = 0x7f0000000000;

struct Fixture {
  Dso jit{0, "/tmp/perf-47123.map", DsoKind::kJitMap};
  Symbol main_{kBase + 0x1000, kBase + 0x1100, "main"};
  Symbol compute{kBase + 0x2000, kBase + 0x2100, "compute"};
  Symbol helper{kBase + 0x3000, kBase + 0x3100, "helper"};
  Symbol leaf_a{kBase + 0x4000, kBase + 0x4100, "leaf_a"};
  Symbol leaf_b{kBase + 0x5000, kBase + 0x5100, "leaf_b"};

  ChainFrame F(const Symbol& s, uint64_t off = 0x10) { return {&jit, &s, s.start + off}; }
  ChainFrame Unknown() { return {&jit, nullptr, kBase + 0x9abc}; }

  // The whole recording in caller order (the "main" row with --children).
  CallchainNode CallerTree() {
    CallchainNode root;
    for (int i = 0; i < 4; ++i) Add(&root, {F(main_), F(compute), F(helper), F(leaf_a)});
    for (int i = 0; i < 3; ++i) Add(&root, {F(main_), F(compute), F(helper), F(leaf_b)});
    for (int i = 0; i < 2; ++i) Add(&root, {F(main_), F(compute)});
    Add(&root, {F(main_), F(leaf_a)});
    Add(&root, {F(main_), F(compute), Unknown()});
    return root;
  }
  // The leaf_a row with --no-children (callee order).
  CallchainNode LeafACalleeTree() {
    CallchainNode root;
    for (int i = 0; i < 4; ++i) Add(&root, {F(leaf_a), F(helper, 0x20), F(compute, 0x30), F(main_, 0x40)});
    Add(&root, {F(leaf_a), F(main_, 0x40)});
    return root;
  }
  static void Add(CallchainNode* root, std::vector<ChainFrame> chain, uint64_t period = 1000) {
    AppendChain(root, chain, period);
  }
};

std::vector<std::string> Names(const CallchainNode& n) {
  std::vector<std::string> v;
  for (const auto& f : n.val) v.push_back(f.sym ? std::string(f.sym->name) : "?");
  return v;
}

std::string Print(const CallchainNode& root, const CallGraphParams& p, uint64_t total, uint64_t parent) {
  std::string out;
  PrintCallchain(root, p, total, parent, &out);
  return out;
}

CallGraphParams Params(const std::string& arg, bool caller) {
  CallGraphParams p;
  bool order_set = false;
  std::string err;
  EXPECT_TRUE(ParseCallGraphArg(arg, &p, &order_set, &err)) << err;
  p.caller_order = caller;
  return p;
}

TEST(AppendChainTest, FirstChainIsOneNode) {
  Fixture fx;
  CallchainNode root;
  Fixture::Add(&root, {fx.F(fx.main_), fx.F(fx.compute), fx.F(fx.helper)}, 10);
  EXPECT_EQ(root.hit, 0u);
  EXPECT_EQ(root.children_hit, 10u);
  EXPECT_EQ(root.children_count, 1u);
  ASSERT_EQ(root.children.size(), 1u);
  const CallchainNode& n = *root.children[0];
  EXPECT_EQ(Names(n), (std::vector<std::string>{"main", "compute", "helper"}));
  EXPECT_EQ(n.hit, 10u);
  EXPECT_EQ(n.count, 1u);
  EXPECT_EQ(n.children_hit, 0u);
  EXPECT_TRUE(n.children.empty());
}

TEST(AppendChainTest, DivergingInsideANodeSplitsIt) {
  Fixture fx;
  CallchainNode root;
  Fixture::Add(&root, {fx.F(fx.main_), fx.F(fx.compute), fx.F(fx.helper)}, 10);
  Fixture::Add(&root, {fx.F(fx.main_), fx.F(fx.compute), fx.F(fx.leaf_b)}, 5);
  ASSERT_EQ(root.children.size(), 1u);
  const CallchainNode& head = *root.children[0];
  EXPECT_EQ(Names(head), (std::vector<std::string>{"main", "compute"}));
  EXPECT_EQ(head.hit, 0u);
  EXPECT_EQ(head.count, 0u);
  EXPECT_EQ(head.children_hit, 15u);
  EXPECT_EQ(head.children_count, 2u);
  ASSERT_EQ(head.children.size(), 2u);
  EXPECT_EQ(Names(*head.children[0]), (std::vector<std::string>{"helper"}));  // the old tail
  EXPECT_EQ(head.children[0]->hit, 10u);
  EXPECT_EQ(Names(*head.children[1]), (std::vector<std::string>{"leaf_b"}));
  EXPECT_EQ(head.children[1]->hit, 5u);
  EXPECT_EQ(root.children_hit, 15u);
  EXPECT_EQ(root.children_count, 2u);
}

TEST(AppendChainTest, ChainEndingInsideANodeSplitsItAndHitsTheHead) {
  Fixture fx;
  CallchainNode root;
  Fixture::Add(&root, {fx.F(fx.main_), fx.F(fx.compute), fx.F(fx.helper)}, 10);
  Fixture::Add(&root, {fx.F(fx.main_), fx.F(fx.compute), fx.F(fx.leaf_b)}, 5);
  Fixture::Add(&root, {fx.F(fx.main_), fx.F(fx.compute)}, 2);  // ends at an existing node
  Fixture::Add(&root, {fx.F(fx.main_)}, 1);                     // ends inside it: split
  const CallchainNode& m = *root.children[0];
  EXPECT_EQ(Names(m), (std::vector<std::string>{"main"}));
  EXPECT_EQ(m.hit, 1u);
  EXPECT_EQ(m.count, 1u);
  EXPECT_EQ(m.children_hit, 17u);
  EXPECT_EQ(m.children_count, 3u);
  EXPECT_EQ(m.cumul(), 18u);
  ASSERT_EQ(m.children.size(), 1u);
  const CallchainNode& c = *m.children[0];
  EXPECT_EQ(Names(c), (std::vector<std::string>{"compute"}));
  EXPECT_EQ(c.hit, 2u);
  EXPECT_EQ(c.count, 1u);
  EXPECT_EQ(c.children_hit, 15u);
  EXPECT_EQ(c.children.size(), 2u);
  EXPECT_EQ(root.children_hit, 18u);
}

TEST(AppendChainTest, FramesMergeByFunctionNotIp) {
  Fixture fx;
  CallchainNode root;
  Fixture::Add(&root, {fx.F(fx.main_, 0x10), fx.F(fx.compute, 0x10)}, 1);
  Fixture::Add(&root, {fx.F(fx.main_, 0x44), fx.F(fx.compute, 0x80)}, 1);
  ASSERT_EQ(root.children.size(), 1u);
  EXPECT_EQ(root.children[0]->hit, 2u);
  EXPECT_TRUE(root.children[0]->children.empty());
  // Unresolved frames merge only at the same ip.
  ChainFrame u1{&fx.jit, nullptr, 0x1000}, u2{&fx.jit, nullptr, 0x1001};
  CallchainNode r2;
  Fixture::Add(&r2, {u1}, 1);
  Fixture::Add(&r2, {u2}, 1);
  Fixture::Add(&r2, {u1}, 1);
  ASSERT_EQ(r2.children.size(), 2u);
  EXPECT_EQ(r2.children[0]->hit, 2u);
  EXPECT_EQ(r2.children[1]->hit, 1u);
  // Same symbol start in another DSO is another function.
  Dso other(1, "/lib/other.so", DsoKind::kUser);
  ChainFrame o{&other, &fx.main_, fx.main_.start};
  Fixture::Add(&root, {o}, 1);
  EXPECT_EQ(root.children.size(), 2u);
}

TEST(AppendChainTest, EmptyChainHitsTheRoot) {
  CallchainNode root;
  AppendChain(&root, {}, 7);
  EXPECT_EQ(root.hit, 7u);
  EXPECT_EQ(root.count, 1u);
  EXPECT_EQ(root.children_hit, 0u);
}

TEST(ParseCallGraphArgTest, ModesOrderAndThreshold) {
  CallGraphParams p;
  bool order_set = false;
  std::string err;
  ASSERT_TRUE(ParseCallGraphArg("fractal,2.5,caller,function", &p, &order_set, &err)) << err;
  EXPECT_EQ(p.mode, CallGraphMode::kFractal);
  EXPECT_DOUBLE_EQ(p.min_percent, 2.5);
  EXPECT_TRUE(p.caller_order);
  EXPECT_TRUE(order_set);
  order_set = false;
  ASSERT_TRUE(ParseCallGraphArg("flat", &p, &order_set, &err));
  EXPECT_EQ(p.mode, CallGraphMode::kFlat);
  EXPECT_FALSE(order_set);
  EXPECT_DOUBLE_EQ(p.min_percent, 2.5);  // untouched
  ASSERT_TRUE(ParseCallGraphArg("none", &p, &order_set, &err));
  EXPECT_EQ(p.mode, CallGraphMode::kNone);
  ASSERT_TRUE(ParseCallGraphArg("folded,,callee,0", &p, &order_set, &err));
  EXPECT_EQ(p.mode, CallGraphMode::kFolded);
  EXPECT_FALSE(p.caller_order);
  EXPECT_TRUE(order_set);
  EXPECT_DOUBLE_EQ(p.min_percent, 0.0);
  EXPECT_EQ(p.key, CallchainKey::kFunction);
  ASSERT_TRUE(ParseCallGraphArg("graph,0.5,caller,address,percent", &p, &order_set, &err));
  EXPECT_EQ(p.mode, CallGraphMode::kGraph);
  EXPECT_EQ(p.key, CallchainKey::kAddress);
  ASSERT_TRUE(ParseCallGraphArg("function", &p, &order_set, &err));
  EXPECT_EQ(p.key, CallchainKey::kFunction);
}

// perf's __parse_callchain_report_opt: a number right after the threshold is the print
// limit; after a word, a number is the threshold again.
TEST(ParseCallGraphArgTest, PrintLimitFollowsTheThreshold) {
  CallGraphParams p;
  bool order_set = false;
  std::string err;
  ASSERT_TRUE(ParseCallGraphArg("graph,0.5,2", &p, &order_set, &err)) << err;
  EXPECT_DOUBLE_EQ(p.min_percent, 0.5);
  EXPECT_EQ(p.print_limit, 2u);
  p = {};
  ASSERT_TRUE(ParseCallGraphArg("graph,0.5,caller,3", &p, &order_set, &err)) << err;
  EXPECT_DOUBLE_EQ(p.min_percent, 3.0);
  EXPECT_EQ(p.print_limit, 0u);
  EXPECT_FALSE(ParseCallGraphArg("graph,0.5,x2", &p, &order_set, &err));
  EXPECT_FALSE(ParseCallGraphArg("graph,0.5,2x", &p, &order_set, &err));
}

// perf's callchain_list__sym_name with the address key: "name srcline", " (inlined)"
// after the line, the bare ip without a symbol.
TEST(PrintCallchainTest, AddressKeyPrintsTheSourceLine) {
  Fixture fx;
  Symbol inl{kBase + 0x1000, kBase + 0x1100, "Scale"};
  inl.inlined = true;
  const std::string line = "levels.c:23", call_site = "levels.c:59";
  ChainFrame main_f = fx.F(fx.main_);
  main_f.srcline = &call_site;
  ChainFrame inl_f{&fx.jit, &inl, kBase + 0x1010, &line};
  ChainFrame unresolved{&fx.jit, nullptr, kBase + 0x9999, &line};
  CallchainNode root;
  std::vector<ChainFrame> chain = {main_f, inl_f, unresolved};
  AppendChain(&root, chain, 10);
  CallGraphParams p;
  p.key = CallchainKey::kAddress;
  std::string out;
  PrintCallchain(root, p, 10, 10, &out);
  EXPECT_NE(out.find("---main levels.c:59\n"), std::string::npos) << out;
  EXPECT_NE(out.find(" Scale levels.c:23 (inlined)\n"), std::string::npos) << out;
  EXPECT_NE(out.find(fmt::format(" {:#x}\n", kBase + 0x9999)), std::string::npos) << out;
}

TEST(ParseCallGraphArgTest, ErrorsNameTheWord) {
  CallGraphParams p;
  bool order_set = false;
  std::string err;
  EXPECT_FALSE(ParseCallGraphArg("graph,bogus", &p, &order_set, &err));
  EXPECT_EQ(err, "unknown -g/--call-graph word 'bogus'");
  EXPECT_FALSE(ParseCallGraphArg("-1", &p, &order_set, &err));
  EXPECT_EQ(err, "unknown -g/--call-graph word '-1'");
  EXPECT_FALSE(ParseCallGraphArg("0.5x", &p, &order_set, &err));
  EXPECT_EQ(err, "unknown -g/--call-graph word '0.5x'");
}

TEST(PrintCallchainTest, GraphCalleeMatchesPerf) {
  Fixture fx;
  CallchainNode root = fx.LeafACalleeTree();
  EXPECT_EQ(Print(root, Params("graph,0.5", false), 11000, 5000),
            "            |\n"
            "            ---leaf_a\n"
            "               |          \n"
            "               |--36.36%--helper\n"
            "               |          compute\n"
            "               |          main\n"
            "               |          \n"
            "                --9.09%--main\n"
            "\n");
}

TEST(PrintCallchainTest, GraphThresholdDropsSmallBranches) {
  Fixture fx;
  CallchainNode root = fx.LeafACalleeTree();
  EXPECT_EQ(Print(root, Params("graph,10", false), 11000, 5000),
            "            |\n"
            "            ---leaf_a\n"
            "               |          \n"
            "                --36.36%--helper\n"
            "                          compute\n"
            "                          main\n"
            "\n");
}

TEST(PrintCallchainTest, SkipFirstSymWhenSortingBySym) {
  // perf report --no-children -s sym: the row's own symbol is not repeated.
  Fixture fx;
  CallchainNode root = fx.LeafACalleeTree();
  CallGraphParams p = Params("graph,0.5", false);
  p.skip_first_sym = true;
  EXPECT_EQ(Print(root, p, 11000, 5000),
            "            |          \n"
            "            |--36.36%--helper\n"
            "            |          compute\n"
            "            |          main\n"
            "            |          \n"
            "             --9.09%--main\n"
            "\n");
}

TEST(PrintCallchainTest, FractalCalleeMatchesPerf) {
  Fixture fx;
  CallchainNode root = fx.LeafACalleeTree();
  EXPECT_EQ(Print(root, Params("fractal,0.5", false), 11000, 5000),
            "            |\n"
            "            ---leaf_a\n"
            "               |          \n"
            "               |--80.00%--helper\n"
            "               |          compute\n"
            "               |          main\n"
            "               |          \n"
            "                --20.00%--main\n"
            "\n");
}

TEST(PrintCallchainTest, FlatAndFoldedCalleeMatchPerf) {
  Fixture fx;
  CallchainNode root = fx.LeafACalleeTree();
  EXPECT_EQ(Print(root, Params("flat", false), 11000, 5000),
            "           36.36%\n"
            "                leaf_a\n"
            "                helper\n"
            "                compute\n"
            "                main\n"
            "\n"
            "           9.09%\n"
            "                leaf_a\n"
            "                main\n"
            "\n");
  EXPECT_EQ(Print(root, Params("folded", false), 11000, 5000),
            "36.36% leaf_a;helper;compute;main\n"
            "9.09% leaf_a;main\n");
}

TEST(PrintCallchainTest, NestedGraphCallerMatchesPerf) {
  Fixture fx;
  CallchainNode root = fx.CallerTree();
  EXPECT_EQ(Print(root, Params("graph,0.5", true), 11000, 11000),
            "            |\n"
            "            ---main\n"
            "               |          \n"
            "               |--90.91%--compute\n"
            "               |          |          \n"
            "               |          |--63.64%--helper\n"
            "               |          |          |          \n"
            "               |          |          |--36.36%--leaf_a\n"
            "               |          |          |          \n"
            "               |          |           --27.27%--leaf_b\n"
            "               |          |          \n"
            "               |           --9.09%--0x7f0000009abc\n"
            "               |          \n"
            "                --9.09%--leaf_a\n"
            "\n");
}

TEST(PrintCallchainTest, NestedFractalCallerMatchesPerf) {
  Fixture fx;
  CallchainNode root = fx.CallerTree();
  EXPECT_EQ(Print(root, Params("fractal,0.5", true), 11000, 11000),
            "            |\n"
            "            ---main\n"
            "               |          \n"
            "               |--90.91%--compute\n"
            "               |          |          \n"
            "               |          |--87.50%--helper\n"
            "               |          |          |          \n"
            "               |          |          |--57.14%--leaf_a\n"
            "               |          |          |          \n"
            "               |          |           --42.86%--leaf_b\n"
            "               |          |          \n"
            "               |           --12.50%--0x7f0000009abc\n"
            "               |          \n"
            "                --9.09%--leaf_a\n"
            "\n");
}

TEST(PrintCallchainTest, NestedFlatCallerMatchesPerf) {
  // perf's flat mode prints callchain_cumul_hits (hit + children_hit) as the value
  // ("main;compute" is 90.91%, not its own 18.18%), and orders equal hits by
  // __sort_chain_flat's post-order walk over children in rb_root_in order (higher
  // dso/address first), so "main;leaf_a" precedes "main;compute;0x7f0000009abc".
  Fixture fx;
  CallchainNode root = fx.CallerTree();
  EXPECT_EQ(Print(root, Params("flat", true), 11000, 11000),
            "           36.36%\n                main\n                compute\n                helper\n"
            "                leaf_a\n\n"
            "           27.27%\n                main\n                compute\n                helper\n"
            "                leaf_b\n\n"
            "           90.91%\n                main\n                compute\n\n"
            "           9.09%\n                main\n                leaf_a\n\n"
            "           9.09%\n                main\n                compute\n                0x7f0000009abc\n\n");
}

TEST(PrintCallchainTest, NestedFoldedCallerOrdersTiesAsPerf) {
  // Equal hits are ordered by perf's post-order walk (see above); folded values are
  // node->hit.
  Fixture fx;
  CallchainNode root = fx.CallerTree();
  EXPECT_EQ(Print(root, Params("folded", true), 11000, 11000),
            "36.36% main;compute;helper;leaf_a\n"
            "27.27% main;compute;helper;leaf_b\n"
            "18.18% main;compute\n"
            "9.09% main;leaf_a\n"
            "9.09% main;compute;0x7f0000009abc\n");
}

TEST(PrintCallchainTest, NoneAndEmptyPrintNothing) {
  Fixture fx;
  CallchainNode root = fx.CallerTree();
  EXPECT_EQ(Print(root, Params("none", true), 11000, 11000), "");
  CallchainNode empty;
  EXPECT_EQ(Print(empty, Params("graph", true), 11000, 0), "");
  EXPECT_EQ(Print(empty, Params("folded", true), 11000, 0), "");
}

}  // namespace
}  // namespace perflens
