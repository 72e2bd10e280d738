// `perflens stats` (PrintStats) against `perf report --stats` goldens of real recordings
// (quipper's test design: real files, golden outputs, a flag to regenerate them). Blank
// lines are ignored; every other line must be equal. The corpus lives outside the repo
// (../shared/corpus); tests of absent files are skipped.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/mapped_file.h"
#include "perfdata/perf_file.h"
#include "report/dump_printer.h"
#include "testutil/perf_data_writer.h"

namespace perflens {
namespace {

namespace fs = std::filesystem;

const std::string kGoldenDir = std::string(PERFLENS_SOURCE_DIR) + "/tests/perfdata/testdata/stats/";

struct GoldenCase {
  const char* name;    // golden file stem
  const char* corpus;  // path under the corpus dir, or nullptr: kGoldenDir/<name>.data
};

const GoldenCase kCases[] = {
    {"lost_samples-4.4", "perf_data_converter/perf.data.lost_samples-4.4"},
    {"piped.lost_samples-4.4", "perf_data_converter/perf.data.piped.lost_samples-4.4"},
    {"eclipse-defaultevent", "eclipse-linuxtools/defaultevent-data/perf.data"},
    {"eclipse-multievent", "eclipse-linuxtools/multievent-data/perf.data"},
    {"callgraph-3.8", "perf_data_converter/perf.data.callgraph-3.8"},
    {"ctx_switch_namespaces-4.14", "perf_data_converter/perf.data.ctx_switch_namespaces-4.14"},
    {"hw_and_sw-3.4", "perf_data_converter/perf.data.hw_and_sw-3.4"},
    {"piped.header_features-4.16", "perf_data_converter/perf.data.piped.header_features-4.16"},
    {"forkexit-3.8", "perf_data_converter/perf.data.forkexit-3.8"},
    {"compressed-zstd", nullptr},
};

std::string InputPath(const GoldenCase& c) {
  if (!c.corpus) return kGoldenDir + c.name + ".data";
  return std::string(PERFLENS_CORPUS_DIR) + "/" + c.corpus;
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> NonBlankLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) lines.push_back(l);
  return lines;
}

Result<std::string> Stats(const std::string& path) {
  auto file = PerfFile::Open(path);
  if (!file) return file.error();
  std::string out;
  Status st = PrintStats(**file, &out);
  if (!st) return st.error();
  return out;
}

class StatsGoldenTest : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(StatsGoldenTest, MatchesPerfReportStats) {
  const GoldenCase& c = GetParam();
  const std::string input = InputPath(c);
  if (!fs::exists(input)) GTEST_SKIP() << "corpus file absent: " << input;
  const std::string golden = kGoldenDir + c.name + ".txt";
  if (std::getenv("PERFLENS_UPDATE_GOLDENS")) {
    std::string cmd = "/usr/bin/perf report --stats -i '" + input + "' > '" + golden + "' 2>/dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  auto out = Stats(input);
  ASSERT_TRUE(out.ok()) << out.error().message;
  std::vector<std::string> want = NonBlankLines(ReadText(golden));
  ASSERT_FALSE(want.empty()) << "missing golden " << golden;
  std::vector<std::string> got = NonBlankLines(*out);
  if (got != want) {
    fs::path dir = fs::path(PERFLENS_BINARY_DIR) / "stats-actual";
    fs::create_directories(dir);
    std::ofstream(dir / (std::string(c.name) + ".actual.txt")) << *out;
    ADD_FAILURE() << "differs from " << golden << "; actual written to " << (dir / c.name).string()
                  << ".actual.txt";
  }
  EXPECT_EQ(got, want);
}

INSTANTIATE_TEST_SUITE_P(Corpus, StatsGoldenTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<GoldenCase>& info) {
                           std::string n = info.param.name;
                           for (char& ch : n)
                             if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

// Synthetic: the layout of every line, exact, on a file built in memory.
TEST(StatsTest, SyntheticFileExactText) {
  using testutil::PerfDataWriter;
  using testutil::SampleFields;
  PerfDataWriter w;
  EventAttr a;
  a.type = 1;
  a.size = 128;
  a.sample_type = kSampleIp | kSampleTid | kSamplePeriod | kSampleId;
  a.sample_period = 1000;
  w.AddAttr(a, {11});
  EventAttr b = a;
  b.config = 2;
  w.AddAttr(b, {22});
  w.Comm(7, 7, "a.out");
  w.Mmap(7, 7, 0x400000, 0x1000, 0, "/bin/a.out");
  for (int i = 0; i < 3; ++i) {
    SampleFields s;
    s.pid = s.tid = 7;
    s.ip = 0x400100;
    s.id = i < 2 ? 11 : 22;
    s.period = 1000;
    w.Sample(i < 2 ? 0 : 1, s);
  }
  w.Exit(7, 7, 7, 7, 0);
  auto file = PerfFile::FromBytes(MappedFile::FromBuffer(w.Finish()));
  ASSERT_TRUE(file.ok()) << file.error().message;
  std::string out;
  ASSERT_TRUE(PrintStats(**file, &out).ok());
  const std::string& n0 = (*file)->evsels()[0].name;
  const std::string& n1 = (*file)->evsels()[1].name;
  EXPECT_EQ(out, "\nAggregated stats:\n"
                 "           TOTAL events:          6\n"
                 "            MMAP events:          1  (16.7%)\n"
                 "            COMM events:          1  (16.7%)\n"
                 "            EXIT events:          1  (16.7%)\n"
                 "          SAMPLE events:          3  (50.0%)\n" +
                     n0 + " stats:\n          SAMPLE events:          2\n" + n1 +
                     " stats:\n          SAMPLE events:          1\n");
}

}  // namespace
}  // namespace perflens
