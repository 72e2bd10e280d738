// Folded stacks (`perflens script -F folded`): exact lines on a synthetic file, weights
// summing to the sample count / total period, and a strict parser over every line.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/mapped_file.h"
#include "perfdata/perf_event.h"
#include "report/script_printer.h"
#include "testutil/perf_data_writer.h"

namespace perflens {
namespace {

namespace fs = std::filesystem;
using testutil::PerfDataWriter;
using testutil::SampleFields;

constexpr uint64_t kKernelText = 0xffffffff81000000;
constexpr uint64_t kJitStart = 0x7f0000000000;

struct FoldedLine {
  std::vector<std::string> frames;  // comm first
  uint64_t weight = 0;
};

// Accepts "frame;frame;... <decimal>" with non-empty frames; false otherwise.
bool ParseFoldedLine(const std::string& line, FoldedLine* out) {
  size_t space = line.rfind(' ');
  if (space == std::string::npos || space == 0 || space + 1 == line.size()) return false;
  std::string weight = line.substr(space + 1);
  if (weight.find_first_not_of("0123456789") != std::string::npos) return false;
  out->weight = std::stoull(weight);
  out->frames.clear();
  std::string stack = line.substr(0, space);
  size_t start = 0;
  while (true) {
    size_t semi = stack.find(';', start);
    std::string frame = stack.substr(start, semi == std::string::npos ? std::string::npos : semi - start);
    if (frame.empty()) return false;
    out->frames.push_back(frame);
    if (semi == std::string::npos) break;
    start = semi + 1;
  }
  return true;
}

// Parses every line; checks they are sorted and unique; returns the weight sum.
uint64_t CheckFolded(const std::string& text, size_t* nr_lines = nullptr) {
  std::istringstream in(text);
  uint64_t sum = 0;
  size_t n = 0;
  std::string prev_stack;
  for (std::string line; std::getline(in, line); ++n) {
    FoldedLine fl;
    EXPECT_TRUE(ParseFoldedLine(line, &fl)) << line;
    std::string stack = line.substr(0, line.rfind(' '));
    if (n) {
      EXPECT_LT(prev_stack, stack) << "not sorted/unique at line " << n + 1;
    }
    prev_stack = stack;
    sum += fl.weight;
  }
  if (nr_lines) *nr_lines = n;
  return sum;
}

struct FoldedRun {
  std::string text;
  uint64_t samples = 0;
};

FoldedRun RunFolded(const std::vector<uint8_t>& bytes, ScriptOptions options) {
  auto file = PerfFile::FromBytes(MappedFile::FromBuffer(bytes));
  EXPECT_TRUE(file.ok());
  options.fields = {"folded"};
  auto script = Script::Create(file->get(), options);
  EXPECT_TRUE(script.ok()) << script.error().message;
  FoldedRun r;
  EXPECT_TRUE((*script)->Run([&](std::string_view s) { r.text += s; }).ok());
  r.samples = (*script)->counters().nr_samples;
  return r;
}

class FoldedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("perflens_folded_" + std::to_string(getpid()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "kallsyms") << "ffffffff81000000 T _text\nffffffff81000100 T do_syscall_64\n"
                                        "ffffffff81000200 T entry_SYSCALL_64\nffffffff81000300 T _etext\n";
    std::ofstream(jit_map_) << "7f0000000100 40 leaf\n7f0000000200 80 ns::Caller;odd(int)\n7f0000000300 80 main\n";
    options_.symbolize.kallsyms = (dir_ / "kallsyms").string();
  }
  void TearDown() override {
    fs::remove_all(dir_);
    fs::remove(jit_map_);
  }

  std::vector<uint8_t> Build() {
    PerfDataWriter w;
    EventAttr a;
    a.type = 1;
    a.size = 128;
    a.sample_type = kSampleIp | kSampleTid | kSampleTime | kSamplePeriod | kSampleCallchain;
    int ev = w.AddAttr(a);
    w.Comm(pid_, pid_, "my prog");
    w.Mmap(UINT32_MAX, 0, kKernelText, 0x1000000, kKernelText, "[kernel.kallsyms]_text", {}, kMiscKernel);
    w.Mmap(pid_, pid_, kJitStart, 0x1000, 0, "//anon");
    auto sample = [&](uint64_t time, uint64_t period, std::vector<uint64_t> chain) {
      SampleFields s;
      s.pid = s.tid = pid_;
      s.time = time;
      s.period = period;
      s.ip = chain.size() > 1 ? chain[1] : 0;
      s.callchain = std::move(chain);
      w.Sample(ev, s);
    };
    const std::vector<uint64_t> user = {kContextUser, kJitStart + 0x110, kJitStart + 0x210, kJitStart + 0x310};
    sample(100, 10, user);
    sample(200, 20, user);
    sample(300, 5, {kContextKernel, kKernelText + 0x110, kKernelText + 0x210, kContextUser, kJitStart + 0x310});
    sample(400, 7, {kContextUser, kJitStart + 0x900, 0x42});
    return w.Finish();
  }

  uint32_t pid_ = 3000000 + static_cast<uint32_t>(getpid() % 1000000);
  fs::path dir_;
  std::string jit_map_ = "/tmp/perf-" + std::to_string(pid_) + ".map";
  ScriptOptions options_;
};

TEST_F(FoldedTest, CallerFirstSortedWithKernelAndUnknownNames) {
  FoldedRun r = RunFolded(Build(), options_);
  std::string jit = fs::path(jit_map_).filename().string();
  EXPECT_EQ(r.text,
            "my_prog;[unknown];[" + jit + "] 1\n"
            "my_prog;main;entry_SYSCALL_64_[k];do_syscall_64_[k] 1\n"
            "my_prog;main;ns::Caller:odd(int);leaf 2\n");
  EXPECT_EQ(CheckFolded(r.text), r.samples);
}

TEST_F(FoldedTest, PeriodWeightSumsToTotalPeriod) {
  options_.folded_weight_period = true;
  FoldedRun r = RunFolded(Build(), options_);
  EXPECT_NE(r.text.find("my_prog;main;ns::Caller:odd(int);leaf 30\n"), std::string::npos) << r.text;
  EXPECT_EQ(CheckFolded(r.text), 10u + 20 + 5 + 7);
}

TEST(FoldedParserTest, RejectsMalformedLines) {
  FoldedLine fl;
  EXPECT_TRUE(ParseFoldedLine("a;b c;d 12", &fl));
  EXPECT_EQ(fl.frames, (std::vector<std::string>{"a", "b c", "d"}));
  EXPECT_EQ(fl.weight, 12u);
  EXPECT_FALSE(ParseFoldedLine("a;;b 1", &fl));
  EXPECT_FALSE(ParseFoldedLine("a;b", &fl));
  EXPECT_FALSE(ParseFoldedLine("a;b 1x", &fl));
}

TEST(FoldedStacksTest, AggregatesWithoutFrames) {
  FoldedStacks f;
  f.Add("a b", {}, 3);
  f.Add("a b", {}, 4);
  std::string out;
  f.Print(&out);
  EXPECT_EQ(out, "a_b 7\n");
  EXPECT_EQ(f.total_weight(), 7u);
}

// A real `perf record -g`: every line parses and the counts add up to the samples.
TEST(FoldedRealTest, RecordedCountsSumToSamples) {
  fs::path dir = fs::temp_directory_path() / ("perflens_folded_real_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string workload = (dir / "hot").string();
  std::string src = std::string(PERFLENS_SOURCE_DIR) + "/tests/scenario/programs/hot.c";
  std::string data = (dir / "perf.data").string();
  bool compiled = std::system(("cc -O2 -g -o " + workload + " " + src + " >/dev/null 2>&1").c_str()) == 0;
  bool recorded = compiled && std::system(("perf record -g -o " + data + " -- " + workload +
                                           " 0.2 >/dev/null 2>&1").c_str()) == 0;
  if (!recorded) {
    fs::remove_all(dir);
    GTEST_SKIP() << "cannot compile or perf record here";
  }
  auto file = PerfFile::Open(data);
  ASSERT_TRUE(file.ok()) << file.error().message;
  ScriptOptions options;
  options.fields = {"folded"};
  auto script = Script::Create(file->get(), options);
  ASSERT_TRUE(script.ok());
  std::string text;
  ASSERT_TRUE((*script)->Run([&](std::string_view s) { text += s; }).ok());
  size_t lines = 0;
  EXPECT_EQ(CheckFolded(text, &lines), (*script)->counters().nr_samples);
  EXPECT_GT(lines, 0u);
  EXPECT_NE(text.find("hot;"), std::string::npos);
  EXPECT_NE(text.find("hash_mix"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace perflens
