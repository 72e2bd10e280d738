// The one predicate of the documented differences (scenario_util.h SameField /
// CompareRows): each allowed difference agrees, and the near misses do not.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "scenario_util.h"

namespace perflens::scenario {
namespace {

TEST(DifferencePredicate, CommTruncationIsAPrefixOnly) {
  EXPECT_EQ(SameField(FieldKind::kComm, "forkexe", "forkexec.sh"), Difference::kCommTruncation);
  EXPECT_EQ(SameField(FieldKind::kComm, "forkexe", "other"), Difference::kDiffers);
  EXPECT_EQ(SameField(FieldKind::kComm, "forkexec.sh", "forkexe"), Difference::kDiffers)
      << "perflens never truncates";
  EXPECT_EQ(SameField(FieldKind::kComm, "", "forkexec.sh"), Difference::kDiffers);
  EXPECT_EQ(SameField(FieldKind::kExact, "forkexe", "forkexec.sh"), Difference::kDiffers)
      << "only a comm field may be truncated";
}

TEST(DifferencePredicate, PltNamingOnlyForPltNames) {
  EXPECT_EQ(SameField(FieldKind::kSym, "[.] _init", "[.] labs@plt"), Difference::kPltNaming);
  EXPECT_EQ(SameField(FieldKind::kSym, "[.] @plt", "[.] .plt"), Difference::kPltNaming);
  EXPECT_EQ(SameField(FieldKind::kSym, "[.] 0x0000000000026006", "[.] .plt"), Difference::kPltNaming);
  EXPECT_EQ(SameField(FieldKind::kSym, "[unknown]+0x6", ".plt+0x6"), Difference::kPltNaming);
  EXPECT_EQ(SameField(FieldKind::kSym, "[.] _init", "[.] main"), Difference::kDiffers);
  EXPECT_EQ(SameField(FieldKind::kSym, "[.] main", "[.] labs@plt"), Difference::kDiffers);
  EXPECT_EQ(SameField(FieldKind::kSym, "[k] _init", "[.] labs@plt"), Difference::kDiffers);
}

TEST(DifferencePredicate, UnresolvedAddressMayDifferInLevelOnly) {
  EXPECT_EQ(SameField(FieldKind::kSym, "[.] 0000000000000000", "[k] 0000000000000000"),
            Difference::kUnresolvedLevel);
  EXPECT_EQ(SameField(FieldKind::kSym, "[.] hot", "[k] hot"), Difference::kDiffers);
  EXPECT_EQ(SameField(FieldKind::kSym, "[.] 0x0000000000001234", "[k] 0x0000000000001235"),
            Difference::kDiffers);
}

TEST(DifferencePredicate, FoldedStackFramesUseTheSymbolRules) {
  EXPECT_EQ(SameField(FieldKind::kStack, "sort;main;[sort]", "sort;main;.plt"), Difference::kPltNaming);
  EXPECT_EQ(SameField(FieldKind::kStack, "sort;main;[sort]", "sort;main;walk"), Difference::kDiffers);
  EXPECT_EQ(SameField(FieldKind::kStack, "sort;main", "cat;main"), Difference::kDiffers);
}

TEST(DifferencePredicate, SplitRowsMustSumToPerflensRow) {
  std::vector<Row> perf = {{{"[.] hot"}, {"43.12%", "43.12%"}, ""},
                           {{"[.] hot"}, {"0.19%", "0.19%"}, ""},
                           {{"[.] main"}, {"100.00%", "0.00%"}, ""}};
  std::vector<Row> lens = {{{"[.] hot"}, {"43.30%", "43.30%"}, ""},
                           {{"[.] main"}, {"100.00%", "0.00%"}, ""}};
  RowsAgreement a = CompareRows(perf, lens, kChildrenKinds);
  EXPECT_TRUE(a.failures.empty()) << a.Report();
  EXPECT_EQ(a.agreeing_rows, 3);
  ASSERT_EQ(a.allowed.size(), 1u);
  EXPECT_EQ(a.allowed[0].rfind("split rows: ", 0), 0u) << a.allowed[0];
  // perflens printing only one of perf's rows is a real difference.
  lens[0].values = {"43.12%", "43.12%"};
  a = CompareRows(perf, lens, kChildrenKinds);
  EXPECT_FALSE(a.failures.empty());
  EXPECT_LT(a.agreeing_rows, 3);
  // Sample counts add up exactly: 60 + 1 is not 62.
  std::vector<Row> p2 = {{{"e", "hot", "hot", "[.] hot"}, {"60", "60000"}, ""},
                         {{"e", "hot", "hot", "[.] hot"}, {"1", "1000"}, ""}};
  std::vector<Row> l2 = {{{"e", "hot", "hot", "[.] hot"}, {"62", "61000"}, ""}};
  EXPECT_FALSE(CompareRows(p2, l2, kSelfKinds).failures.empty());
  l2[0].values = {"61", "61000"};
  EXPECT_TRUE(CompareRows(p2, l2, kSelfKinds).failures.empty());
}

// perf's `_init` stretched over .plt is one row where perflens names each slot: the
// perflens `@plt` rows join that row when their values add up, and only then.
TEST(DifferencePredicate, PltInitMayBeSeveralPerflensRows) {
  std::vector<Row> perf = {{{"e", "prog", "prog", "[.] _init"}, {"8", "8000"}, ""},
                           {{"e", "prog", "prog", "[.] main"}, {"2", "2000"}, ""}};
  std::vector<Row> lens = {{{"e", "prog", "prog", "[.] gettimeofday@plt"}, {"6", "6000"}, ""},
                           {{"e", "prog", "prog", "[.] main"}, {"2", "2000"}, ""},
                           {{"e", "prog", "prog", "[.] clock_gettime@plt"}, {"2", "2000"}, ""}};
  RowsAgreement a = CompareRows(perf, lens, kSelfKinds);
  EXPECT_TRUE(a.failures.empty()) << a.Report();
  EXPECT_EQ(a.agreeing_rows, 2);
  ASSERT_EQ(a.allowed.size(), 1u);
  EXPECT_EQ(a.allowed[0].rfind("PLT naming, split rows: ", 0), 0u) << a.allowed[0];
  lens[2].values = {"1", "1000"};  // 6 + 1 is not 8
  EXPECT_FALSE(CompareRows(perf, lens, kSelfKinds).failures.empty());
  lens[2].key[3] = "[.] other";  // not a PLT name: stays a perflens-only row
  lens[2].values = {"2", "2000"};
  EXPECT_FALSE(CompareRows(perf, lens, kSelfKinds).failures.empty());
}

// A folded --no-children entry for a PLT stub ends its stacks in its own symbol: with
// the row's PLT naming difference the lines below agree once the names are swapped
// (a live CI failure: perf `@plt`, perflens `offset_0x26150@plt`), and only then.
TEST(DifferencePredicate, PltEntryBodyMayNameItsOwnSymbolDifferently) {
  std::vector<Row> perf = {{{"prog", "libc.so.6", "[.] @plt"}, {"0.23%"}, "0.23% prog;main;@plt\n"}};
  std::vector<Row> lens = {
      {{"prog", "libc.so.6", "[.] offset_0x26150@plt"}, {"0.23%"}, "0.23% prog;main;offset_0x26150@plt\n"}};
  RowsAgreement a = CompareRows(perf, lens, kGraphKinds);
  EXPECT_TRUE(a.failures.empty()) << a.Report();
  EXPECT_EQ(a.AllowedWith(Difference::kPltNaming), 1);
  lens[0].body = "0.23% prog;other;offset_0x26150@plt\n";  // a different caller: a real difference
  EXPECT_FALSE(CompareRows(perf, lens, kGraphKinds).failures.empty());
}

TEST(DifferencePredicate, RowsThatReallyDifferFail) {
  std::vector<Row> perf = {{{"e", "forkexe", "[kernel.kallsyms]", "[k] do_wp_page"}, {"1", "1000"}, ""},
                           {{"e", "hot", "hot", "[.] hash_mix"}, {"76", "76000"}, ""}};
  std::vector<Row> lens = {{{"e", "forkexec.sh", "[kernel.kallsyms]", "[k] do_wp_page"}, {"1", "1000"}, ""},
                           {{"e", "hot", "hot", "[.] hash_mix"}, {"76", "76000"}, ""}};
  RowsAgreement a = CompareRows(perf, lens, kSelfKinds);
  EXPECT_TRUE(a.failures.empty()) << a.Report();
  ASSERT_EQ(a.allowed.size(), 1u);
  EXPECT_EQ(a.allowed[0].rfind("comm truncation: ", 0), 0u) << a.allowed[0];
  EXPECT_DOUBLE_EQ(a.Percent(), 100.0);
  // Another sample count, another symbol, another comm, or another DSO: real differences.
  for (int field : {-1, 1, 2, 3}) {
    std::vector<Row> bad = lens;
    if (field < 0)
      bad[1].values = {"75", "75000"};
    else
      bad[1].key[static_cast<size_t>(field)] = "other";
    RowsAgreement b = CompareRows(perf, bad, kSelfKinds);
    EXPECT_FALSE(b.failures.empty()) << field;
    EXPECT_LT(b.Percent(), 5.0) << field;  // hash_mix holds 76 of the 77 samples
  }
  // A perflens row perf does not have fails too.
  std::vector<Row> extra = lens;
  extra.push_back({{"e", "hot", "hot", "[.] walk_array"}, {"1", "1000"}, ""});
  EXPECT_FALSE(CompareRows(perf, extra, kSelfKinds).failures.empty());
}

TEST(DifferencePredicate, GraphEntryBodiesCompareAsSortedLines) {
  const std::string perf =
      "    60.00%  hot  hot  [.] main\n"
      "            |\n"
      "            |--30.00%--a\n"
      "            |--30.00%--b\n";
  const std::string tie_order =
      "    60.00%  hot  hot  [.] main\n"
      "            |\n"
      "            |--30.00%--b\n"
      "            |--30.00%--a\n";
  const std::string other =
      "    60.00%  hot  hot  [.] main\n"
      "            |\n"
      "            |--30.00%--a\n"
      "            |--30.00%--c\n";
  EXPECT_TRUE(CompareRows(GraphRows(perf), GraphRows(tie_order), kGraphKinds).failures.empty());
  EXPECT_FALSE(CompareRows(GraphRows(perf), GraphRows(other), kGraphKinds).failures.empty());
}

}  // namespace
}  // namespace perflens::scenario
