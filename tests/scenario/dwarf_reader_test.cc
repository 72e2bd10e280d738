// `perf record --call-graph dwarf` (issue #2's reader scenarios): samples carry
// PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER. The reader must decode every sample
// with its register block and copied stack (dyn_size within size), count exactly as
// `perf report --stats` does, and the self report must agree with perf's (it depends
// only on the sample ip; tests/session/dwarf_unwind_test.cc checks the unwound chains).
// `live` tests (ctest label): they record now, so their checks are printed as
// differences and only a crash or < 95% agreement with perf fails them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "perfdata/perf_file.h"
#include "scenario_util.h"

namespace perflens::scenario {
namespace {

class DwarfReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why = PerfUnavailableReason();
    if (!why.empty()) GTEST_SKIP() << why;
    char tmpl[] = "/tmp/perflens-dwarf-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    CommandResult b = RunShell("cd " + dir_ + " && cc -O1 -g -fno-omit-frame-pointer -fno-inline -o hot " +
                                   ShellQuote(ScenarioSourceDir() + "/programs/hot.c"),
                               dir_);
    ASSERT_EQ(b.exit_code, 0) << b.err;
    CommandResult r = RunShell("cd " + dir_ + " && HOME=" + dir_ +
                                   " perf record -q -N --call-graph dwarf,4096 -F 1000 -o x.data ./hot 0.3",
                               dir_);
    // perf records here (PerfUnavailableReason is empty): a failure now is a failure.
    ASSERT_EQ(r.exit_code, 0) << "perf record --call-graph dwarf failed: " << r.err;
    live_.Start();
  }
  void TearDown() override {
    live_.Finish();
    if (!dir_.empty() && !HasFailure()) std::system(("rm -rf " + dir_).c_str());
  }
  std::string dir_;
  LiveDifferences live_;
};

TEST_F(DwarfReaderTest, SamplesDecodeWithRegistersAndStack) {
  auto file = PerfFile::Open(dir_ + "/x.data");
  ASSERT_TRUE(file.ok()) << file.error().message;
  const Evsel& ev = (*file)->evsels().at(0);
  ASSERT_TRUE(ev.attr.sample_type & kSampleRegsUser);
  ASSERT_TRUE(ev.attr.sample_type & kSampleStackUser);
  EXPECT_EQ(ev.attr.sample_stack_user, 4096u);
  long samples = 0, with_stack = 0, bad = 0;
  ReadStats stats;
  Status st = (*file)->ReadRecords(
      [&](const RecordView& r) {
        if (r.type != kRecordSample) return;
        Sample s;
        const Evsel* e = nullptr;
        if ((*file)->ParseSample(r, &s, &e) != SampleError::kNone || !e) {
          ++bad;
          return;
        }
        ++samples;
        if (s.user_stack_size) {
          ++with_stack;
          EXPECT_EQ(s.user_stack_size, 4096u);
          EXPECT_LE(s.user_stack_dyn_size, s.user_stack_size);
        }
        if (s.user_regs_abi) {
          EXPECT_EQ(s.user_regs.size, static_cast<uint64_t>(__builtin_popcountll(ev.attr.sample_regs_user)));
        }
      },
      &stats);
  ASSERT_TRUE(st.ok());
  EXPECT_FALSE(stats.stopped) << stats.stopped->message;
  EXPECT_EQ(bad, 0);
  EXPECT_GT(with_stack, samples / 2) << "user-mode samples carry a stack copy";

  // The same count as perf's own --stats.
  CommandResult perf = RunShell("perf report --stats -i " + dir_ + "/x.data 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}'", dir_);
  ASSERT_EQ(perf.exit_code, 0);
  EXPECT_EQ(samples, std::atol(perf.out.c_str()));
}

TEST_F(DwarfReaderTest, SelfReportAgreesWithPerf) {
  std::string args = std::string(" report -i ") + dir_ + "/x.data " + kReportArgs;
  CommandResult perf = RunShell("perf" + args, dir_);
  CommandResult ours = RunShell(PerflensBinary() + args, dir_);
  live_.Gate(ours.exit_code == 0, "perflens report exited with " + std::to_string(ours.exit_code) + ": " + ours.err);
  RowsAgreement rows = CompareRows(SelfRows(perf.out), SelfRows(ours.out), kSelfKinds);
  live_.GateAgreement("dwarf self report samples", rows.Percent(), rows.Report(20));
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  std::printf("[ dwarf ] self report rows: %s\n", rows.Summary().c_str());
  EXPECT_EQ(ParseReport(perf.out).TotalSamples(), ParseReport(ours.out).TotalSamples());
  EXPECT_GE(rows.Percent(), 99.5) << rows.Report(20);
}

}  // namespace
}  // namespace perflens::scenario
