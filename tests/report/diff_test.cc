// perf diff --stdio on in-memory recordings: -c parsing, and the order of rows that tie
// on every value (perf's output sort falls through to the sort keys), rows only in one
// file and unresolved addresses. The expected texts are perf 6.1's `perf diff` output
// for the same bytes: PERFLENS_DIFF_TEST_DUMP=DIR writes them as DIR/old.data and
// DIR/new.data (pid 47123; give perf /tmp/perf-47123.map with the map below).
//
// The recordings: pid P ("jitapp") with an anonymous executable map at 0x7f0000000000
// whose symbols come from /tmp/perf-P.map, cpu-clock samples of period 1000.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/mapped_file.h"
#include "report/diff.h"
#include "report/report.h"
#include "testutil/perf_data_writer.h"

namespace perflens {
namespace {

using testutil::PerfDataWriter;
using testutil::SampleFields;

constexpr uint64_t kBase = 0x7f0000000000;
constexpr char kMap[] =
    "7f0000001000 100 main\n7f0000002000 100 compute\n7f0000003000 100 helper\n"
    "7f0000004000 100 leaf_a\n7f0000005000 100 leaf_b\n";

TEST(ParseDiffComputeTest, AcceptsPerfsMethods) {
  DiffOptions o;
  ASSERT_TRUE(ParseDiffCompute("delta", &o).ok());
  EXPECT_EQ(o.compute, DiffCompute::kDelta);
  ASSERT_TRUE(ParseDiffCompute("ratio", &o).ok());
  EXPECT_EQ(o.compute, DiffCompute::kRatio);
  ASSERT_TRUE(ParseDiffCompute("delta-abs", &o).ok());
  EXPECT_EQ(o.compute, DiffCompute::kDeltaAbs);
  ASSERT_TRUE(ParseDiffCompute("wdiff:2,-3", &o).ok());
  EXPECT_EQ(o.compute, DiffCompute::kWdiff);
  EXPECT_EQ(o.wdiff_w1, 2);
  EXPECT_EQ(o.wdiff_w2, -3);
}

TEST(ParseDiffComputeTest, RefusesWhatPerfRefuses) {
  DiffOptions o;
  for (const char* bad : {"wdiff", "wdiff:1", "wdiff:1,", "wdiff:0,1", "wdiff:1,0", "delta:1", "nosuch", "cycles"})
    EXPECT_FALSE(ParseDiffCompute(bad, &o).ok()) << bad;
  EXPECT_EQ(o.compute, DiffCompute::kDeltaAbs);  // unchanged
}

class DiffTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // A pid of this process's own: parallel test processes never share a map file.
    pid_ = 10000 + static_cast<uint32_t>(getpid()) % 50000;
    if (getenv("PERFLENS_DIFF_TEST_DUMP")) pid_ = 47123;
    map_path_ = "/tmp/perf-" + std::to_string(pid_) + ".map";
    std::ofstream(map_path_) << kMap;
  }
  void TearDown() override { std::remove(map_path_.c_str()); }

  // A recording of `n[i]` samples at each of `ips[i]`.
  std::vector<uint8_t> Recording(const std::vector<uint64_t>& ips, const std::vector<int>& n) const {
    PerfDataWriter w;
    EventAttr a;
    a.type = 1;  // software, config 0: cpu-clock
    a.size = 128;
    a.sample_type = kSampleIp | kSampleTid | kSamplePeriod;
    a.sample_period = 1000;
    w.AddAttr(a);
    w.Comm(pid_, pid_, "jitapp");
    PerfDataWriter::Mmap2Fields m;
    m.pid = m.tid = pid_;
    m.start = kBase;
    m.len = 0x10000;
    m.prot = 5;      // PROT_READ | PROT_EXEC
    m.flags = 0x22;  // MAP_PRIVATE | MAP_ANONYMOUS
    m.filename = "//anon";
    w.Mmap2(m);
    for (size_t i = 0; i < ips.size(); ++i)
      for (int k = 0; k < n[i]; ++k) {
        SampleFields s;
        s.pid = s.tid = pid_;
        s.ip = ips[i];
        s.period = 1000;
        w.Sample(0, s);
      }
    return w.Finish();
  }

  std::string Diff(std::vector<std::vector<uint8_t>> recordings, const DiffOptions& o) {
    if (const char* dir = getenv("PERFLENS_DIFF_TEST_DUMP"))
      for (size_t i = 0; i < recordings.size(); ++i)
        std::ofstream(std::string(dir) + "/" + std::to_string(i) + ".data", std::ios::binary)
            .write(reinterpret_cast<const char*>(recordings[i].data()), static_cast<std::streamsize>(recordings[i].size()));
    ReportOptions ro = DiffReportOptions(o);
    ro.symbolize.kallsyms = "/nonexistent-perflens/kallsyms";
    ro.symbolize.buildid_dir = "/nonexistent-perflens/buildid";
    std::vector<std::unique_ptr<PerfFile>> files;
    std::vector<std::unique_ptr<Report>> reports;
    std::vector<DiffInput> inputs;
    for (auto& bytes : recordings) {
      auto file = PerfFile::FromBytes(MappedFile::FromBuffer(std::move(bytes)));
      EXPECT_TRUE(file.ok());
      if (!file.ok()) return "";
      auto r = Report::Create(file->get(), ro);
      EXPECT_TRUE(r.ok());
      if (!r.ok()) return "";
      EXPECT_TRUE((*r)->Process().ok());
      files.push_back(std::move(*file));
      reports.push_back(std::move(*r));
      inputs.push_back({reports.back().get(), std::to_string(inputs.size()) + ".data"});
    }
    std::string out;
    EXPECT_TRUE(PrintDiffStdio(inputs, o, &out).ok());
    return out;
  }

  // perf's text for pid 47123 with this test's pid.
  std::string ForPid(std::string text) const {
    const std::string pid = std::to_string(pid_);
    for (size_t at = 0; (at = text.find("47123", at)) != std::string::npos; at += pid.size()) text.replace(at, 5, pid);
    return text;
  }

  uint32_t pid_ = 0;
  std::string map_path_;
};

constexpr uint64_t kMain = kBase + 0x1010, kCompute = kBase + 0x2010, kHelper = kBase + 0x3010,
                   kLeafA = kBase + 0x4010, kLeafB = kBase + 0x5010, kUnknown1 = kBase + 0x9abc,
                   kUnknown2 = kBase + 0x9def;

// Ties everywhere: leaf_a and leaf_b have equal shares in both files, main and compute
// are only in the new one with equal shares; the new file's two unresolved addresses
// are one row, paired with the baseline's one (+3.33%: 2 of 10 against 1 of 6).
TEST_F(DiffTest, TiesFollowTheSortKeysAsInPerf) {
  DiffOptions o;
  const std::string out = Diff({Recording({kLeafB, kLeafA, kHelper, kUnknown1}, {2, 2, 1, 1}),
                                Recording({kCompute, kLeafB, kMain, kLeafA, kUnknown2, kUnknown1}, {2, 2, 2, 2, 1, 1})},
                               o);
  EXPECT_EQ(out, ForPid(
          "# Event 'cpu-clock:HG'\n"
          "#\n"
          "# Baseline  Delta Abs  Shared Object     Symbol                \n"
          "# ........  .........  ................  ......................\n"
          "#\n"
          "              +20.00%  [JIT] tid 47123   [.] compute\n"
          "              +20.00%  [JIT] tid 47123   [.] main\n"
          "    33.33%    -13.33%  [JIT] tid 47123   [.] leaf_a\n"
          "    33.33%    -13.33%  [JIT] tid 47123   [.] leaf_b\n"
          "    16.67%     +3.33%  [JIT] tid 47123   [.] 0x00007f0000009abc\n"
          "    16.67%             [JIT] tid 47123   [.] helper\n"));
}

TEST_F(DiffTest, RatioPutsNewOnlyRowsLast) {
  DiffOptions o;
  o.compute = DiffCompute::kRatio;
  const std::string out = Diff({Recording({kLeafB, kLeafA, kHelper, kUnknown1}, {2, 2, 1, 1}),
                                Recording({kCompute, kLeafB, kMain, kLeafA, kUnknown2, kUnknown1}, {2, 2, 2, 2, 1, 1})},
                               o);
  EXPECT_EQ(out, ForPid(
          "# Event 'cpu-clock:HG'\n"
          "#\n"
          "# Baseline           Ratio  Shared Object     Symbol                \n"
          "# ........  ..............  ................  ......................\n"
          "#\n"
          "    16.67%        2.000000  [JIT] tid 47123   [.] 0x00007f0000009abc\n"
          "    33.33%        1.000000  [JIT] tid 47123   [.] leaf_a\n"
          "    33.33%        1.000000  [JIT] tid 47123   [.] leaf_b\n"
          "                       N/A  [JIT] tid 47123   [.] compute\n"
          "                       N/A  [JIT] tid 47123   [.] main\n"
          "    16.67%                  [JIT] tid 47123   [.] helper\n"));
}

// perf diff takes every unresolved address of a dso as one row (the files may come from
// different builds), printed with the lowest address (as a signed number: kernel
// addresses first), not the first sampled.
TEST_F(DiffTest, UnresolvedAddressesAreOneRow) {
  DiffOptions o;
  o.show_period = true;
  const std::string out = Diff({Recording({kUnknown2, kLeafA, kUnknown1}, {1, 2, 1}),
                                Recording({kUnknown1, kLeafA}, {1, 1})},
                               o);
  EXPECT_EQ(out, ForPid(
          "# Event 'cpu-clock:HG'\n"
          "#\n"
          "# Baseline     Base period  Delta Abs          Period  Shared Object     Symbol                \n"
          "# ........  ..............  .........  ..............  ................  ......................\n"
          "#\n"
          "    50.00%            2000     +0.00%            1000  [JIT] tid 47123   [.] leaf_a\n"
          "    50.00%            2000     +0.00%            1000  [JIT] tid 47123   [.] 0x00007f0000009abc\n"));
}

// On a terminal perf diff colours the baseline and compute cells by their size as a
// percentage (red from 5, green above 0.5; the ratio and wdiff values too).
TEST_F(DiffTest, ColoursAsPerfOnATerminal) {
  DiffOptions o;
  o.color = true;
  o.compute = DiffCompute::kRatio;
  const std::string out = Diff({Recording({kLeafB, kLeafA, kHelper, kUnknown1}, {2, 2, 1, 1}),
                                Recording({kCompute, kLeafB, kMain, kLeafA, kUnknown2, kUnknown1}, {2, 2, 2, 2, 1, 1})},
                               o);
  EXPECT_EQ(out, ForPid(
          "# Event 'cpu-clock:HG'\n"
          "#\n"
          "# Baseline           Ratio  Shared Object     Symbol                \n"
          "# ........  ..............  ................  ......................\n"
          "#\n"
          "  \033[31m  16.67%\033[m  \033[32m      2.000000\033[m  [JIT] tid 47123   [.] 0x00007f0000009abc\n"
          "  \033[31m  33.33%\033[m  \033[32m      1.000000\033[m  [JIT] tid 47123   [.] leaf_a\n"
          "  \033[31m  33.33%\033[m  \033[32m      1.000000\033[m  [JIT] tid 47123   [.] leaf_b\n"
          "                       N/A  [JIT] tid 47123   [.] compute\n"
          "                       N/A  [JIT] tid 47123   [.] main\n"
          "  \033[31m  16.67%\033[m                  [JIT] tid 47123   [.] helper\n"));
}

}  // namespace
}  // namespace perflens
