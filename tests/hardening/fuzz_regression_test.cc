// Replays every input under tests/fuzz/corpus/regressions/<target>/ (crashes, hangs and
// OOMs the fuzzers found, each fixed) and the seed corpora through the same entry points
// as the libFuzzer targets (tests/fuzz/fuzz_entries.h), in a normal build. Each entry
// returns 1 when one of its invariants (tests/fuzz/fuzz_invariants.h) broke, so the
// replay fails on a wrong count or a malformed output, not only on a crash.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "fuzz/fuzz_entries.h"
#include "fuzz/fuzz_export.h"

namespace perflens {
namespace {

namespace fs = std::filesystem;
using Entry = int (*)(const uint8_t*, size_t);

const std::map<std::string, Entry>& Entries() {
  static const std::map<std::string, Entry> m = {
      {"reader", fuzz::FuzzReader},         {"decompress", fuzz::FuzzDecompress},
      {"sample", fuzz::FuzzSample},         {"feature", fuzz::FuzzFeature},
      {"perf_map", fuzz::FuzzPerfMap},      {"kallsyms", fuzz::FuzzKallsyms},
      {"report", fuzz::FuzzReport},         {"json", fuzz::FuzzJson},
      {"call_graph", fuzz::FuzzCallGraph},  {"script", fuzz::FuzzScript},
      {"dump", fuzz::FuzzDump},             {"header", fuzz::FuzzHeader},
      {"dwarf", fuzz::FuzzDwarf},           {"jitdump", fuzz::FuzzJitdump},
      {"tracing_data", fuzz::FuzzTracingData}, {"export", fuzz::FuzzExport},
  };
  return m;
}

std::vector<uint8_t> ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// Runs every regular file under `dir` through `entry`; returns how many ran.
int ReplayDir(const fs::path& dir, Entry entry) {
  int n = 0;
  if (!fs::is_directory(dir)) return 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    SCOPED_TRACE(e.path().string());
    std::vector<uint8_t> bytes = ReadAll(e.path());
    fuzz::LastFailure().clear();
    EXPECT_EQ(entry(bytes.data(), bytes.size()), 0) << fuzz::LastFailure();
    ++n;
  }
  return n;
}

const fs::path kCorpus = fs::path(PERFLENS_SOURCE_DIR) / "tests/fuzz/corpus";

TEST(FuzzRegressionTest, EveryRegressionDirNamesATarget) {
  const fs::path dir = kCorpus / "regressions";
  ASSERT_TRUE(fs::is_directory(dir));
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!e.is_directory()) continue;
    EXPECT_TRUE(Entries().count(e.path().filename().string())) << e.path();
  }
}

TEST(FuzzRegressionTest, ReplaysRegressions) {
  int total = 0;
  for (const auto& [name, entry] : Entries()) total += ReplayDir(kCorpus / "regressions" / name, entry);
  RecordProperty("replayed", total);
}

// The seed dirs of a target: its own, or those of the target whose input it shares
// (tests/fuzz/run.sh seed_dirs).
std::vector<std::string> SeedDirs(const std::string& target) {
  if (target == "json" || target == "call_graph" || target == "script" || target == "dump" || target == "header" ||
      target == "export")
    return {"report"};
  if (target == "decompress") return {"decompress", "reader"};
  return {target};
}

TEST(FuzzRegressionTest, ReplaysSeeds) {
  for (const auto& [name, entry] : Entries()) {
    SCOPED_TRACE(name);
    for (const std::string& dir : SeedDirs(name)) EXPECT_GT(ReplayDir(kCorpus / dir / "seeds", entry), 0) << dir;
  }
}

// The entry points themselves reject short inputs without touching them.
TEST(FuzzRegressionTest, EmptyInputs) {
  for (const auto& [name, entry] : Entries()) {
    SCOPED_TRACE(name);
    EXPECT_EQ(entry(nullptr, 0), 0) << fuzz::LastFailure();
  }
}

// The output checks reject what they are meant to catch (they would otherwise pass
// anything, and the replay above could not fail).
TEST(FuzzRegressionTest, OutputChecksRejectBrokenOutput) {
  auto fails = [](auto&& check) {
    fuzz::Invariants inv;
    check(&inv);
    return !inv.ok() && inv.Finish() == 1 && !fuzz::LastFailure().empty();
  };
  const std::string sep = "# Samples: 3  of event 'cycles'\n 60.00%| 2|a|b|c\n 40.00%| 1|a|b|d\n\n";
  EXPECT_FALSE(fails([&](auto* inv) { fuzz::CheckSeparatedReport(sep, 1, 5, {3}, inv); }));
  EXPECT_TRUE(fails([&](auto* inv) { fuzz::CheckSeparatedReport(sep, 1, 5, {4}, inv); }));     // wrong sum
  EXPECT_TRUE(fails([&](auto* inv) { fuzz::CheckSeparatedReport(sep, 1, 5, {3, 1}, inv); }));  // a section missing
  EXPECT_TRUE(fails([&](auto* inv) { fuzz::CheckSeparatedReport(sep, 1, 4, {3}, inv); }));     // field count
  std::string nan = sep;
  nan.replace(nan.find("60.00%"), 6, "nan%");
  EXPECT_TRUE(fails([&](auto* inv) { fuzz::CheckSeparatedReport(nan, 1, 5, {3}, inv); }));
  std::string ctl = sep;
  ctl.replace(ctl.find("|c"), 2, "|\x1b[2J");
  EXPECT_TRUE(fails([&](auto* inv) { fuzz::CheckSeparatedReport(ctl, 1, 5, {3}, inv); }));
  // With Children the count is the third column (the CI failure of 2026-12-03 read Self).
  const std::string acc = "# Samples: 3  of event 'cycles'\n 90.00%| 60.00%| 2|a|b|c\n 40.00%| 40.00%| 1|a|b|d\n\n";
  EXPECT_FALSE(fails([&](auto* inv) { fuzz::CheckSeparatedReport(acc, 2, 6, {3}, inv); }));
  EXPECT_TRUE(fails([&](auto* inv) { fuzz::CheckSeparatedReport(acc, 2, 6, {2}, inv); }));  // wrong sum
  EXPECT_TRUE(fails([&](auto* inv) { fuzz::CheckSeparatedReport(acc, 1, 6, {3}, inv); }));  // Self read as count

  const std::string graph =
      "# Samples: 2  of event 'cycles'\n"
      "   100.00%    50.00%  2  comm  dso  [.] main\n"
      "            |\n"
      "            ---main\n"
      "               |          \n"
      "               |--50.00%--hot\n"
      "               |          --a-name\n"
      "               |          \n"
      "                --50.00%--cold\n\n";
  EXPECT_FALSE(fails([&](auto* inv) { fuzz::CheckCallGraphReport(graph, 2, {2}, inv); }));
  std::string inf = graph;
  inf.replace(inf.find("--50.00%--hot"), 13, "--inf%--hot");
  EXPECT_TRUE(fails([&](auto* inv) { fuzz::CheckCallGraphReport(inf, 2, {2}, inv); }));
  EXPECT_TRUE(fails([&](auto* inv) { fuzz::CheckCallGraphReport(graph, 2, {3}, inv); }));
  EXPECT_FALSE(fails([&](auto* inv) {
    fuzz::CheckCallGraphReport("# Samples: 1  of event 'x'\n   100.00%   100.00%  1  c  d  [.] f\n100.00% f;g\n", 2,
                               {1}, inv);
  }));
  EXPECT_TRUE(fails([&](auto* inv) {
    fuzz::CheckCallGraphReport("# Samples: 1  of event 'x'\n   100.00%   100.00%  1  c  d  [.] f\n-nan% f;g\n", 2,
                               {1}, inv);
  }));

  const std::string json =
      R"({"events":[{"event":"cycles","samples":3,"event_count":30,"rows":[)"
      R"({"samples":2,"period":20,"overhead":66.6},{"samples":1,"period":10,"overhead":33.3}]}],"warnings":[]})";
  EXPECT_FALSE(fails([&](auto* inv) { fuzz::CheckReportJson(json, false, {3}, inv); }));
  EXPECT_TRUE(fails([&](auto* inv) { fuzz::CheckReportJson(json.substr(0, json.size() - 1), false, {3}, inv); }));
  EXPECT_TRUE(fails([&](auto* inv) { fuzz::CheckReportJson(json, true, {3}, inv); }));  // no "children"
  std::string null_pct = json;
  null_pct.replace(null_pct.find("66.6"), 4, "null");  // NaN dumps as null
  EXPECT_TRUE(fails([&](auto* inv) { fuzz::CheckReportJson(null_pct, false, {3}, inv); }));
  std::string bad_utf8 = json;
  bad_utf8.replace(bad_utf8.find("cycles"), 6, "cyc\xff\xfe");
  EXPECT_TRUE(fails([&](auto* inv) { fuzz::CheckReportJson(bad_utf8, false, {3}, inv); }));
  std::string bad_sum = json;
  bad_sum.replace(bad_sum.find(R"("samples":3)"), 11, R"("samples":4)");
  EXPECT_TRUE(fails([&](auto* inv) { fuzz::CheckReportJson(bad_sum, false, {4}, inv); }));

  // A row with a call graph: children within their parent's samples.
  const std::string chain_json =
      R"({"events":[{"event":"cycles","samples":3,"event_count":30,"rows":[)"
      R"({"samples":3,"period":30,"overhead":100.0,"callchain":[{"period":30,"samples":3,"percent":100.0,)"
      R"("frames":[{"name":"main","dso":"a"}],"children":[{"period":20,"samples":2,"percent":66.7,)"
      R"("frames":[{"name":"hot","dso":"a"}],"children":[]},{"period":10,"samples":1,"percent":33.3,)"
      R"("frames":[{"name":"cold","dso":"a"}],"children":[]}]}]}]}],"warnings":[]})";
  EXPECT_FALSE(fails([&](auto* inv) { fuzz::CheckReportJson(chain_json, false, {3}, inv); }));
  std::string too_many = chain_json;
  too_many.replace(too_many.find(R"("samples":2)"), 11, R"("samples":3)");  // children: 4 > 3
  EXPECT_TRUE(fails([&](auto* inv) { fuzz::CheckReportJson(too_many, false, {3}, inv); }));
  std::string no_dso = chain_json;
  no_dso.replace(no_dso.find(R"("name":"hot","dso":"a")"), 22, R"("name":"hot")");
  EXPECT_TRUE(fails([&](auto* inv) { fuzz::CheckReportJson(no_dso, false, {3}, inv); }));
  std::string bad_pct = chain_json;
  bad_pct.replace(bad_pct.find("66.7"), 4, "null");
  EXPECT_TRUE(fails([&](auto* inv) { fuzz::CheckReportJson(bad_pct, false, {3}, inv); }));

  EXPECT_FALSE(fails([&](auto* inv) { fuzz::CheckFolded("a;b 2\na;c 1\n", 2, 3, inv); }));
  EXPECT_TRUE(fails([&](auto* inv) { fuzz::CheckFolded("a;c 1\na;b 2\n", 2, 3, inv); }));  // unsorted
  EXPECT_TRUE(fails([&](auto* inv) { fuzz::CheckFolded("a;b 2\na;c 1\n", 2, 4, inv); }));
  EXPECT_TRUE(fails([&](auto* inv) { fuzz::CheckFolded("a;b 2\na;c x\n", 2, 3, inv); }));

  auto dump = [&](std::string_view text, uint64_t records) {
    return fails([&](auto* inv) {
      fuzz::DumpTextChecker c(inv);
      c.Feed(text);
      inv->Expect(c.records() == records, "records {}", c.records());
    });
  };
  const std::string d =
      "0 0x10 [0x28]: PERF_RECORD_COMM: a:1/1\n5 0x38 [0x30]: PERF_RECORD_SAMPLE(IP, 0x2): 1/1: "
      "0x1 period: 1 addr: 0x0 event: x\n... FP chain: nr:1\n.....  0: 0000000000000001\n";
  EXPECT_FALSE(dump(d, 2));
  EXPECT_TRUE(dump(d, 3));
  EXPECT_TRUE(dump(d + "forged line\n", 2));
  EXPECT_TRUE(dump(d + "# warning: w\n0 0x68 [0x8]: PERF_RECORD_FINISHED_ROUND\n", 3));
  EXPECT_TRUE(fails([&](auto* inv) { fuzz::CheckNoControlBytes("t", "a\tb\n", false, inv); }));
  EXPECT_FALSE(fails([&](auto* inv) { fuzz::CheckNoControlBytes("t", "a\tb\n", true, inv); }));
}

// The JSON export checks (fuzz_export.h) reject what they are meant to catch.
TEST(FuzzRegressionTest, ExportJsonChecksRejectBrokenOutput) {
  auto fails = [](auto&& check) {
    fuzz::Invariants inv;
    check(&inv);
    return !inv.ok() && inv.Finish() == 1 && !fuzz::LastFailure().empty();
  };
  const std::string ss =
      R"({"shared":{"frames":[{"name":"main"},{"name":"hot"}]},"profiles":[)"
      R"({"type":"sampled","samples":[[0,1],[0]],"weights":[2,1],"endValue":3}]})";
  EXPECT_FALSE(fails([&](auto* inv) { fuzz::CheckSpeedscope(ss, 3, inv); }));
  EXPECT_TRUE(fails([&](auto* inv) { fuzz::CheckSpeedscope(ss, 4, inv); }));  // total
  std::string range = ss;
  range.replace(range.find("[0,1]"), 5, "[0,2]");
  EXPECT_TRUE(fails([&](auto* inv) { fuzz::CheckSpeedscope(range, 3, inv); }));
  std::string end = ss;
  end.replace(end.find(R"("endValue":3)"), 12, R"("endValue":4)");
  EXPECT_TRUE(fails([&](auto* inv) { fuzz::CheckSpeedscope(end, 3, inv); }));
  std::string utf8 = ss;
  utf8.replace(utf8.find("hot"), 3, "h\xff");
  EXPECT_TRUE(fails([&](auto* inv) { fuzz::CheckSpeedscope(utf8, 3, inv); }));
  EXPECT_TRUE(fails([&](auto* inv) { fuzz::CheckSpeedscope(R"({"shared":{"frames":[{"name":1}]},"profiles":[]})", 0, inv); }));

  const std::string ff =
      R"({"threads":[{"stringArray":["main","hot"],)"
      R"("samples":{"length":2,"stack":[1,0],"time":[0,1.5],"weight":null},)"
      R"("stackTable":{"length":2,"prefix":[null,0],"frame":[0,1]},)"
      R"("frameTable":{"length":2,"func":[0,1]},"funcTable":{"length":2,"name":[0,1]},)"
      R"("resourceTable":{"length":0,"lib":[]},"markers":{"length":0,"data":[]}}]})";
  EXPECT_FALSE(fails([&](auto* inv) { fuzz::CheckFirefox(ff, 2, inv); }));
  EXPECT_TRUE(fails([&](auto* inv) { fuzz::CheckFirefox(ff, 3, inv); }));  // total
  auto broken = [&](std::string_view from, std::string_view to) {
    std::string t = ff;
    t.replace(t.find(from), from.size(), to);
    return fails([&](auto* inv) { fuzz::CheckFirefox(t, 2, inv); });
  };
  EXPECT_TRUE(broken(R"("prefix":[null,0])", R"("prefix":[null,1])"));  // prefix not below
  EXPECT_TRUE(broken(R"("frame":[0,1])", R"("frame":[0,2])"));
  EXPECT_TRUE(broken(R"("func":[0,1])", R"("func":[0,5])"));
  EXPECT_TRUE(broken(R"("name":[0,1])", R"("name":[0,2])"));
  EXPECT_TRUE(broken(R"("time":[0,1.5])", R"("time":[2,1.5])"));  // time going back
  EXPECT_TRUE(broken(R"("stack":[1,0])", R"("stack":[1])"));       // column too short
  EXPECT_TRUE(broken(R"("stack":[1,0])", R"("stack":[1,"x"])"));   // not a number
}

}  // namespace
}  // namespace perflens
