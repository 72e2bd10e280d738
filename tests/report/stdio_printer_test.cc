// perf report --stdio layout, end to end on an in-memory recording: header, dots,
// separator mode (-t '|'), --percent-limit, -n, pid/cpu columns, call graphs, and the
// "# Samples: 4K of event" unit. The expected texts are perf 6.1's output for the same
// bytes (written out and read with `perf report --stdio -i`), without perf's random
// "# (Tip: ...)" trailer.
//
// The recording: pid P ("jitapp") with an anonymous executable map at 0x7f0000000000
// whose symbols come from /tmp/perf-P.map (main, compute, helper, leaf_a, leaf_b), 11
// cpu-clock samples of period 1000 with callchains (see callchain_tree_test.cc). Each
// test uses its own pid so that parallel test processes never share a map file.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/mapped_file.h"
#include "report/report.h"
#include "report/stdio_printer.h"
#include "testutil/perf_data_writer.h"

namespace perflens {
namespace {

using testutil::PerfDataWriter;
using testutil::SampleFields;

constexpr uint64_t kBase = 0x7f0000000000;

// The anonymous executable map at kBase whose symbols come from /tmp/perf-PID.map.
PerfDataWriter::Mmap2Fields JitMap(uint32_t pid) {
  PerfDataWriter::Mmap2Fields m;
  m.pid = m.tid = pid;
  m.start = kBase;
  m.len = 0x10000;
  m.prot = 5;      // PROT_READ | PROT_EXEC
  m.flags = 0x22;  // MAP_PRIVATE | MAP_ANONYMOUS
  m.filename = "//anon";
  return m;
}

EventAttr CpuClock(bool callchain) {
  EventAttr a;
  a.type = 1;  // software, config 0: cpu-clock
  a.size = 128;
  a.sample_type = kSampleIp | kSampleTid | kSamplePeriod | (callchain ? static_cast<uint64_t>(kSampleCallchain) : 0);
  a.sample_period = 1000;
  return a;
}

std::vector<uint8_t> JitRecording(uint32_t pid) {
  PerfDataWriter w;
  w.AddAttr(CpuClock(true));
  w.Comm(pid, pid, "jitapp");
  w.Mmap2(JitMap(pid));
  auto add = [&](std::vector<uint64_t> ips, int n) {
    for (int i = 0; i < n; ++i) {
      SampleFields s;
      s.pid = s.tid = pid;
      s.ip = ips[0];
      s.period = 1000;
      s.callchain.push_back(kContextUser);
      s.callchain.insert(s.callchain.end(), ips.begin(), ips.end());
      w.Sample(0, s);
    }
  };
  const uint64_t main_ = kBase + 0x1040, compute = kBase + 0x2030, helper = kBase + 0x3020;
  const uint64_t leaf_a = kBase + 0x4010, leaf_b = kBase + 0x5010, unknown = kBase + 0x9abc;
  add({leaf_a, helper, compute, main_}, 4);
  add({leaf_b, helper, compute, main_}, 3);
  add({compute, main_}, 2);
  add({leaf_a, main_}, 1);
  add({unknown, compute, main_}, 1);
  return w.Finish();
}

class StdioPrinterTest : public ::testing::Test {
 protected:
  // Writes /tmp/perf-<pid>.map for a pid of this test process's own (five digits, as
  // perf's text below has them) and removes it afterwards: ctest runs tests in parallel
  // processes, which must not share or delete each other's map.
  void UseJitPid(const char* leaf_b_name = "leaf_b") {
    pid_ = 10000 + static_cast<uint32_t>(getpid()) % 50000;  // below sample_sums_test's 60000..64999
    map_path_ = "/tmp/perf-" + std::to_string(pid_) + ".map";
    std::ofstream(map_path_) << "7f0000001000 100 main\n7f0000002000 100 compute\n7f0000003000 100 helper\n"
                                "7f0000004000 100 leaf_a\n7f0000005000 100 "
                             << leaf_b_name << "\n";
  }
  void TearDown() override {
    if (!map_path_.empty()) std::remove(map_path_.c_str());
  }
  std::string Run(std::vector<uint8_t> bytes, ReportOptions o) {
    auto file = PerfFile::FromBytes(MappedFile::FromBuffer(std::move(bytes)));
    EXPECT_TRUE(file.ok());
    if (!file.ok()) return "";
    o.symbolize.kallsyms = "/nonexistent-perflens/kallsyms";
    o.symbolize.buildid_dir = "/nonexistent-perflens/buildid";
    auto r = Report::Create(file->get(), o);
    EXPECT_TRUE(r.ok()) << r.error().message;
    if (!r.ok()) return "";
    EXPECT_TRUE((*r)->Process().ok());
    std::string out;
    Status st = PrintReportStdio(**r, &out);
    EXPECT_TRUE(st.ok());
    return out;
  }
  std::string RunJit(ReportOptions o) { return Run(JitRecording(pid_), o); }
  // perf's text for pid 47123 (as recorded) with this test's pid.
  std::string ForPid(std::string text) const {
    const std::string pid = std::to_string(pid_);
    for (size_t at = 0; (at = text.find("47123", at)) != std::string::npos; at += pid.size()) text.replace(at, 5, pid);
    return text;
  }

  uint32_t pid_ = 0;
  std::string map_path_;
};

const char kPreamble[] =
    "# To display the perf.data header info, please use --header/--header-only options.\n"
    "#\n#\n# Total Lost Samples: 0\n#\n"
    "# Samples: 11  of event 'cpu-clock:HG'\n"
    "# Event count (approx.): 11000\n#\n";

TEST_F(StdioPrinterTest, NoChildrenGraphMatchesPerf) {
  UseJitPid();
  ReportOptions o;
  o.children = false;
  EXPECT_EQ(RunJit(o), ForPid(std::string(kPreamble) +
                              "# Overhead  Command  Shared Object     Symbol                \n"
                              "# ........  .......  ................  ......................\n"
                              "#\n"
                              "    45.45%  jitapp   [JIT] tid 47123   [.] leaf_a\n"
                              "            |\n"
                              "            ---leaf_a\n"
                              "               |          \n"
                              "               |--36.36%--helper\n"
                              "               |          compute\n"
                              "               |          main\n"
                              "               |          \n"
                              "                --9.09%--main\n"
                              "\n"
                              "    27.27%  jitapp   [JIT] tid 47123   [.] leaf_b\n"
                              "            |\n"
                              "            ---leaf_b\n"
                              "               helper\n"
                              "               compute\n"
                              "               main\n"
                              "\n"
                              "    18.18%  jitapp   [JIT] tid 47123   [.] compute\n"
                              "            |\n"
                              "            ---compute\n"
                              "               main\n"
                              "\n"
                              "     9.09%  jitapp   [JIT] tid 47123   [.] 0x00007f0000009abc\n"
                              "            |\n"
                              "            ---0x7f0000009abc\n"
                              "               compute\n"
                              "               main\n"
                              "\n\n\n"));
}

TEST_F(StdioPrinterTest, SeparatorModeMatchesPerf) {
  UseJitPid();
  ReportOptions o;
  o.children = false;
  o.call_graph = "none";
  o.field_separator = "|";
  // No dots line, no left margin, " %-*s" numbers, the DSO column not widened to 16.
  EXPECT_EQ(RunJit(o), ForPid(std::string(kPreamble) +
                              "# Overhead|Command|Shared Object  |Symbol                \n"
                              " 45.45% |jitapp |[JIT] tid 47123|[.] leaf_a\n"
                              " 27.27% |jitapp |[JIT] tid 47123|[.] leaf_b\n"
                              " 18.18% |jitapp |[JIT] tid 47123|[.] compute\n"
                              " 9.09%  |jitapp |[JIT] tid 47123|[.] 0x00007f0000009abc\n"
                              "\n\n"));
}

TEST_F(StdioPrinterTest, PercentLimitHidesSmallRowsButKeepsWidths) {
  UseJitPid();
  ReportOptions o;
  o.children = false;
  o.call_graph = "none";
  o.percent_limit = 20;
  EXPECT_EQ(RunJit(o), ForPid(std::string(kPreamble) +
                              "# Overhead  Command  Shared Object     Symbol                \n"
                              "# ........  .......  ................  ......................\n"
                              "#\n"
                              "    45.45%  jitapp   [JIT] tid 47123   [.] leaf_a\n"
                              "    27.27%  jitapp   [JIT] tid 47123   [.] leaf_b\n"
                              "\n\n"));
}

TEST_F(StdioPrinterTest, SamplesColumnAndPidKeyMatchPerf) {
  UseJitPid();
  ReportOptions o;
  o.children = false;
  o.call_graph = "none";
  o.show_nr_samples = true;
  o.sort = "pid,dso";
  EXPECT_EQ(RunJit(o), ForPid(std::string(kPreamble) +
                              "# Overhead       Samples      Pid:Command  Shared Object  \n"
                              "# ........  ............  ...............  ...............\n"
                              "#\n"
                              "   100.00%            11    47123:jitapp   [JIT] tid 47123\n"
                              "\n\n"));
}

TEST_F(StdioPrinterTest, CpuColumnWithoutRecordedCpuMatchesPerf) {
  UseJitPid();
  ReportOptions o;
  o.children = false;
  o.call_graph = "none";
  o.sort = "comm,dso,sym,cpu";
  EXPECT_EQ(RunJit(o), ForPid(std::string(kPreamble) +
                              "# Overhead  Command  Shared Object     Symbol                  CPU\n"
                              "# ........  .......  ................  ......................  ...\n"
                              "#\n"
                              "    45.45%  jitapp   [JIT] tid 47123   [.] leaf_a              -001\n"
                              "    27.27%  jitapp   [JIT] tid 47123   [.] leaf_b              -001\n"
                              "    18.18%  jitapp   [JIT] tid 47123   [.] compute             -001\n"
                              "     9.09%  jitapp   [JIT] tid 47123   [.] 0x00007f0000009abc  -001\n"
                              "\n\n"));
}

// `# Samples:` uses perf's convert_unit: strictly more than 1000 → K (integer division).
std::string SamplesLine(int n) {
  PerfDataWriter w;
  w.AddAttr(CpuClock(false));
  w.Comm(9, 9, "spin");
  for (int i = 0; i < n; ++i) {
    SampleFields s;
    s.pid = s.tid = 9;
    s.ip = 0x401000 + (i % 3) * 0x10;
    s.period = 1;
    w.Sample(0, s);
  }
  auto file = PerfFile::FromBytes(MappedFile::FromBuffer(w.Finish()));
  ReportOptions o;
  o.symbolize.kallsyms = "/nonexistent-perflens/kallsyms";
  o.symbolize.buildid_dir = "/nonexistent-perflens/buildid";
  auto r = Report::Create(file->get(), o);
  EXPECT_TRUE((*r)->Process().ok());
  std::string out;
  EXPECT_TRUE(PrintReportStdio(**r, &out).ok());
  size_t at = out.find("# Samples:");
  return at == std::string::npos ? "" : out.substr(at, out.find('\n', at) - at);
}

TEST(StdioPrinterUnitsTest, SamplesLineUnit) {
  EXPECT_EQ(SamplesLine(1000), "# Samples: 1000  of event 'cpu-clock:HG'");
  EXPECT_EQ(SamplesLine(1001), "# Samples: 1K of event 'cpu-clock:HG'");
  EXPECT_EQ(SamplesLine(4500), "# Samples: 4K of event 'cpu-clock:HG'");
}

TEST(StdioPrinterUnitsTest, UnresolvedRowsWidenTheDsoColumn) {
  // Samples in no map: "[unknown]" (9 chars) is printed in a 16-wide column, as perf.
  PerfDataWriter w;
  w.AddAttr(CpuClock(false));
  w.Comm(9, 9, "spin");
  SampleFields s;
  s.pid = s.tid = 9;
  s.ip = 0x401000;
  s.period = 1;
  w.Sample(0, s);
  auto file = PerfFile::FromBytes(MappedFile::FromBuffer(w.Finish()));
  ReportOptions o;
  o.symbolize.kallsyms = "/nonexistent-perflens/kallsyms";
  auto r = Report::Create(file->get(), o);
  ASSERT_TRUE((*r)->Process().ok());
  std::string out;
  ASSERT_TRUE(PrintReportStdio(**r, &out).ok());
  EXPECT_NE(out.find("# Overhead  Command  Shared Object     Symbol                \n"
                     "# ........  .......  ................  ......................\n"
                     "#\n"
                     "   100.00%  spin     [unknown]         [.] 0x0000000000401000\n"),
            std::string::npos)
      << out;
}

// The second thread changes nothing: many batches of samples (with callchains, a
// comm change and a new map mid-stream, rows merged by ResolvePlaceholderComms) give
// byte-identical reports with and without it, in every call-graph mode.
// perf record -z: the records come out of COMPRESSED records, and the reading thread
// hands views into the decompressed bytes to the resolving thread, so they must stay
// valid after the reader has moved on (PerfFile keeps them until the next read).
TEST_F(StdioPrinterTest, CompressedRecordsReadOnAnotherThread) {
  UseJitPid();
  const uint32_t pid = pid_;
  auto record = [&](bool compressed) {
    PerfDataWriter w;
    w.AddAttr(CpuClock(true));
    w.Mmap2(JitMap(pid));
    const uint64_t fns[] = {kBase + 0x1040, kBase + 0x2030, kBase + 0x3020, kBase + 0x4010};
    for (int block = 0; block < 8; ++block) {
      if (compressed) w.BeginCompressed();
      for (int i = 0; i < 3000; ++i) {
        SampleFields s;
        s.pid = s.tid = pid;
        s.period = 1000 + static_cast<uint64_t>(i % 5);
        s.callchain = {kContextUser, fns[(i + block) % 4], fns[(i / 4) % 4]};
        s.ip = s.callchain[1];
        w.Sample(0, s);
      }
      if (block == 4) w.Comm(pid, pid, "renamed");
      if (compressed) w.EndCompressed({1000, 70000});
    }
    return w.Finish();
  };
  const std::vector<uint8_t> plain = record(false), packed = record(true);
  ASSERT_LT(packed.size(), plain.size() / 4);
  for (const char* g : {"graph,0.5", "none"}) {
    ReportOptions o;
    o.call_graph = g;
    o.use_threads = false;
    const std::string expected = Run(plain, o);
    ASSERT_NE(expected.find("leaf_a"), std::string::npos) << expected;
    ASSERT_NE(expected.find("renamed"), std::string::npos) << expected;
    EXPECT_EQ(Run(packed, o), expected) << g;
    o.use_threads = true;
    EXPECT_EQ(Run(packed, o), expected) << g;
  }
}

// A chain perf discards (a guest context marker in a host sample) adds nothing to the
// row's call graph: perf's callchain_append returns on an empty cursor, so folded and
// flat output have no "value" line without frames (perflens printed "25.00% ").
TEST_F(StdioPrinterTest, DiscardedChainsPrintNoEmptyFoldedLine) {
  UseJitPid();
  PerfDataWriter w;
  w.AddAttr(CpuClock(true));
  w.Mmap2(JitMap(pid_));
  for (int i = 0; i < 4; ++i) {
    SampleFields s;
    s.pid = s.tid = pid_;
    s.period = 1000;
    s.callchain = {kContextUser, kBase + 0x4010, kBase + 0x3020};
    if (i == 3) s.callchain = {kContextGuest, kBase + 0x4010, kBase + 0x3020};
    s.ip = kBase + 0x4010;
    w.Sample(0, s);
  }
  for (const char* g : {"folded,0", "flat,0"}) {
    ReportOptions o;
    o.children = false;
    o.call_graph = g;
    const std::string out = Run(w.Finish(), o);
    EXPECT_NE(out.find("100.00%"), std::string::npos) << out;  // the row keeps all 4 samples
    EXPECT_NE(out.find("leaf_a"), std::string::npos) << out;
    for (size_t at = out.find('%'); at != std::string::npos; at = out.find('%', at + 1))
      EXPECT_NE(out.substr(at, 3), "% \n") << g << "\n" << out;
    if (std::string(g) == "folded,0") {
      EXPECT_NE(out.find("75.00% leaf_a;helper"), std::string::npos) << out;
    }
  }
}

TEST_F(StdioPrinterTest, SecondThreadGivesTheSameReport) {
  UseJitPid();
  const uint32_t pid = pid_;
  PerfDataWriter w;
  w.AddAttr(CpuClock(true));
  const uint64_t fns[] = {kBase + 0x1040, kBase + 0x2030, kBase + 0x3020, kBase + 0x4010, kBase + 0x5010,
                          kBase + 0x9abc};
  uint64_t x = 12345;
  for (int i = 0; i < 20000; ++i) {
    if (i == 3) w.Mmap2(JitMap(pid));  // the first samples have no map
    if (i == 7000) w.Comm(pid, pid, "renamed");
    if (i == 100) w.Comm(pid, pid + 1, "worker");
    SampleFields s;
    s.pid = pid;
    s.tid = i % 3 == 0 ? pid + 1 : pid;  // the worker thread, sampled before its COMM too
    s.period = 1000 + static_cast<uint64_t>(i % 7);
    s.callchain.push_back(kContextUser);
    const int depth = 1 + i % 5;
    for (int d = 0; d < depth; ++d) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      s.callchain.push_back(fns[(x >> 33) % 6]);
    }
    s.ip = s.callchain[1];
    w.Sample(0, s);
  }
  const std::vector<uint8_t> bytes = w.Finish();
  for (const char* g : {"graph,0.5", "fractal,0", "folded,0", "none"}) {
    for (bool children : {true, false}) {
      ReportOptions o;
      o.call_graph = g;
      o.children = children;
      o.use_threads = false;
      std::string one = Run(bytes, o);
      o.use_threads = true;
      std::string two = Run(bytes, o);
      ASSERT_GT(one.size(), 300u);
      EXPECT_NE(one.find("renamed"), std::string::npos);
      EXPECT_EQ(one, two) << g << (children ? " --children" : " --no-children");
    }
  }
}

// Unmapped callchain nodes take the level of the node before them in print order
// (perf's fill_callchain_info reuses one addr_location along the chain), the sample's
// for the first: a kernel sample whose user chain is 0x1 <- main <- 0x2 prints
// "[k] 0x2" (root, first in caller order) and "[.] 0x1" (after main). perf 6.1 prints
// the same rows for these bytes (`perf report --stdio --children -g none`).
TEST_F(StdioPrinterTest, UnmappedChainNodesTakeThePreviousLevel) {
  UseJitPid();
  PerfDataWriter w;
  w.AddAttr(CpuClock(true));
  w.Comm(pid_, pid_, "jitapp");
  w.Mmap2(JitMap(pid_));
  SampleFields s;
  s.misc = kMiscKernel;
  s.pid = s.tid = pid_;
  s.ip = 0xffffffff81000010;  // no kernel map: [k] [unknown]
  s.period = 1000;
  s.callchain = {kContextKernel, s.ip, kContextUser, 0x1, kBase + 0x1040, 0x2};
  w.Sample(0, s);
  ReportOptions o;
  o.children = true;
  o.call_graph = "none";
  std::string out = Run(w.Finish(), o);
  EXPECT_NE(out.find("[k] 0x0000000000000002"), std::string::npos) << out;
  EXPECT_NE(out.find("[.] 0x0000000000000001"), std::string::npos) << out;
  EXPECT_NE(out.find("[.] main"), std::string::npos) << out;
  EXPECT_NE(out.find("[k] 0xffffffff81000010"), std::string::npos) << out;
}

// -t: the separator's first character inside a value becomes '.' (perf's
// repsep_snprintf), so C++ names with commas keep a -t , report parseable.
TEST_F(StdioPrinterTest, SeparatorInsideValuesBecomesDot) {
  UseJitPid();
  std::ofstream(map_path_) << "7f0000001000 100 std::map<int, int>::find\n";
  PerfDataWriter w;
  w.AddAttr(CpuClock(false));
  w.Comm(pid_, pid_, "a,b");
  w.Mmap2(JitMap(pid_));
  SampleFields s;
  s.pid = s.tid = pid_;
  s.ip = kBase + 0x1010;
  s.period = 1000;
  w.Sample(0, s);
  ReportOptions o;
  o.field_separator = ",";
  std::string out = Run(w.Finish(), o);
  // (Text columns keep their width in -t mode, as perf pads them.)
  EXPECT_NE(out.find("100.00%,a.b    ,[JIT] tid " + std::to_string(pid_) + ",[.] std::map<int. int>::find\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("int, int"), std::string::npos) << out;
}

// Pipe mode: perf 6.1 picks the caller order while Children is still on by default and
// then turns Children off, so a piped recording's graphs print root first (checked on
// a `perf record -g -o -` recording); an explicit order still wins.
TEST_F(StdioPrinterTest, PipeModeGraphsAreCallerFirst) {
  UseJitPid();
  PerfDataWriter w(PerfDataWriter::kPipe);
  w.AddAttr(CpuClock(true));
  w.Comm(pid_, pid_, "jitapp");
  w.Mmap2(JitMap(pid_));
  SampleFields s;
  s.pid = s.tid = pid_;
  s.ip = kBase + 0x4010;  // leaf_a <- helper <- main
  s.period = 1000;
  s.callchain = {kContextUser, kBase + 0x4010, kBase + 0x3020, kBase + 0x1040};
  w.Sample(0, s);
  const std::vector<uint8_t> bytes = w.Finish();
  std::string out = Run(bytes, ReportOptions{});
  EXPECT_EQ(out.find("Children"), std::string::npos) << out;
  EXPECT_NE(out.find("---main\n"), std::string::npos) << out;
  ReportOptions callee;
  callee.call_graph = "graph,0.5,callee";
  out = Run(bytes, callee);
  EXPECT_NE(out.find("---leaf_a\n"), std::string::npos) << out;
}

// --ignore-callees helper (perf 6.1's output for these bytes): with callee order the
// samples below helper are charged to it and their chains start there; with caller
// order (Children) the callers above helper are dropped instead and it keeps its callees.
TEST_F(StdioPrinterTest, IgnoreCalleesMatchesPerf) {
  UseJitPid();
  ReportOptions o;
  o.children = false;
  o.call_graph = "folded";
  o.ignore_callees = "helper";
  EXPECT_EQ(RunJit(o), ForPid(std::string(kPreamble) +
                              "# Overhead  Command  Shared Object     Symbol                \n"
                              "# ........  .......  ................  ......................\n"
                              "#\n"
                              "    63.64%  jitapp   [JIT] tid 47123   [.] helper\n"
                              "63.64% helper;compute;main\n"
                              "    18.18%  jitapp   [JIT] tid 47123   [.] compute\n"
                              "18.18% compute;main\n"
                              "     9.09%  jitapp   [JIT] tid 47123   [.] leaf_a\n"
                              "9.09% leaf_a;main\n"
                              "     9.09%  jitapp   [JIT] tid 47123   [.] 0x00007f0000009abc\n"
                              "9.09% 0x7f0000009abc;compute;main\n"
                              "\n\n"));
  o.children = true;
  EXPECT_EQ(RunJit(o), ForPid(std::string(kPreamble) +
                              "# Children      Self  Command  Shared Object     Symbol                \n"
                              "# ........  ........  .......  ................  ......................\n"
                              "#\n"
                              "    63.64%    63.64%  jitapp   [JIT] tid 47123   [.] helper\n"
                              "36.36% helper;leaf_a\n"
                              "27.27% helper;leaf_b\n"
                              "    45.45%     9.09%  jitapp   [JIT] tid 47123   [.] leaf_a\n"
                              "36.36% leaf_a\n"
                              "9.09% main;leaf_a\n"
                              "    36.36%     0.00%  jitapp   [JIT] tid 47123   [.] main\n"
                              "18.18% main;compute\n"
                              "9.09% main;leaf_a\n"
                              "9.09% main;compute;0x7f0000009abc\n"
                              "    27.27%    18.18%  jitapp   [JIT] tid 47123   [.] compute\n"
                              "18.18% main;compute\n"
                              "9.09% compute;0x7f0000009abc\n"
                              "    27.27%     0.00%  jitapp   [JIT] tid 47123   [.] leaf_b\n"
                              "27.27% leaf_b\n"
                              "     9.09%     9.09%  jitapp   [JIT] tid 47123   [.] 0x00007f0000009abc\n"
                              "9.09% main;compute;0x7f0000009abc\n"
                              "\n\n"));
  // Without callchains in use (-g none, no Children) perf applies none of it.
  o.children = false;
  o.call_graph = "none";
  const std::string flat = RunJit(o);
  EXPECT_NE(flat.find(ForPid("45.45%  jitapp   [JIT] tid 47123   [.] leaf_a")), std::string::npos) << flat;
  EXPECT_EQ(flat.find("helper"), std::string::npos) << flat;
}

// --hierarchy (perf 6.1's output for these bytes): a level per key indented by 3, the
// headers joined with " / ", the last level's call graphs.
TEST_F(StdioPrinterTest, HierarchyMatchesPerf) {
  UseJitPid();
  ReportOptions o;
  o.children = false;
  o.call_graph = "folded";
  o.hierarchy = true;
  EXPECT_EQ(RunJit(o), ForPid(std::string(kPreamble) +
                              "#       Overhead  Command / Shared Object / Symbol\n"
                              "# ..............  ................................\n"
                              "#\n"
                              "   100.00%        jitapp \n"
                              "      100.00%        [JIT] tid 47123 \n"
                              "          45.45%        [.] leaf_a\n"
                              "36.36% leaf_a;helper;compute;main\n"
                              "9.09% leaf_a;main\n"
                              "          27.27%        [.] leaf_b\n"
                              "27.27% leaf_b;helper;compute;main\n"
                              "          18.18%        [.] compute\n"
                              "18.18% compute;main\n"
                              "           9.09%        [.] 0x00007f0000009abc\n"
                              "9.09% 0x7f0000009abc;compute;main\n"
                              "\n\n"));
  o.fields = "overhead,sym";  // perf refuses -F with --hierarchy
  auto file = PerfFile::FromBytes(MappedFile::FromBuffer(JitRecording(pid_)));
  ASSERT_TRUE(file.ok());
  auto r = Report::Create(file->get(), o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "--hierarchy and --fields options cannot be used together");
}

// Two functions of one name (leaf_b's address named leaf_a, as two files' static
// functions): perf's hierarchy tells symbols apart by dso and address (sort__sym_cmp),
// so the level keeps two leaf_a entries, as the flat report keeps two rows.
TEST_F(StdioPrinterTest, HierarchyKeepsFunctionsOfOneNameApart) {
  UseJitPid("leaf_a");
  ReportOptions o;
  o.children = false;
  o.call_graph = "none";
  o.sort = "dso,sym";
  o.hierarchy = true;
  const std::string out = RunJit(o);
  EXPECT_NE(out.find("       45.45%     [.] leaf_a\n"), std::string::npos) << out;
  EXPECT_NE(out.find("       27.27%     [.] leaf_a\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("72.73%"), std::string::npos) << out;
}

// --sort time: a recording without PERF_SAMPLE_TIME gives every sample time -1, which
// perf cuts to the 12-wide column ("%-.*s"). The Children are the truth: perf 6.1 credits
// a sample's own function twice under the time key (README, differs on purpose: its
// leaf_a has Children 90.91%, compute 109.09%); each row here once per sample.
TEST_F(StdioPrinterTest, TimeKeyChildrenCountEachRowOnce) {
  UseJitPid();
  ReportOptions o;
  o.children = true;
  o.call_graph = "none";
  o.sort = "time,sym";
  EXPECT_EQ(RunJit(o), std::string(kPreamble) +
                           "# Children      Self  Time          Symbol                \n"
                           "# ........  ........  ............  ......................\n"
                           "#\n"
                           "   100.00%     0.00%  18446744073.  [.] main\n"
                           "    90.91%    18.18%  18446744073.  [.] compute\n"
                           "    63.64%     0.00%  18446744073.  [.] helper\n"
                           "    45.45%    45.45%  18446744073.  [.] leaf_a\n"
                           "    27.27%    27.27%  18446744073.  [.] leaf_b\n"
                           "     9.09%     9.09%  18446744073.  [.] 0x00007f0000009abc\n"
                           "\n\n");
}

}  // namespace
}  // namespace perflens
