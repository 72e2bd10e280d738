// FormatHeader against `perf report --header-only` output of perf 6.1 for real corpus
// files (goldens and how they were made: tests/report/testdata/README.md). On a
// mismatch the actual text is written to <build>/header_printer/<golden> for diffing.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "report/header_printer.h"

namespace perflens {
namespace {

std::vector<std::string> ComparableLines(const std::string& text) {
  // Skip what depends on the machine running the test: file mtime and local time zone.
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("# captured on", 0) != 0 && line.rfind("# reference time:", 0) != 0) out.push_back(line);
  return out;
}

struct Case {
  const char* corpus_file;
  const char* golden;
  bool full;
};

class HeaderPrinterGoldenTest : public ::testing::TestWithParam<Case> {};

TEST_P(HeaderPrinterGoldenTest, MatchesPerf61) {
  const Case& c = GetParam();
  std::filesystem::path input = std::filesystem::path(PERFLENS_CORPUS_DIR) / c.corpus_file;
  if (!std::filesystem::exists(input)) GTEST_SKIP() << "corpus file absent: " << input;
  std::ifstream golden_in(std::filesystem::path(PERFLENS_SOURCE_DIR) / "tests/report/testdata" / c.golden);
  ASSERT_TRUE(golden_in) << c.golden;
  std::stringstream golden;
  golden << golden_in.rdbuf();

  auto file = PerfFile::Open(input.string());
  ASSERT_TRUE(file.ok()) << file.error().message;
  HeaderFormatOptions options;
  options.full = c.full;
  std::string actual = FormatHeader(**file, options);

  std::vector<std::string> want = ComparableLines(golden.str()), got = ComparableLines(actual);
  EXPECT_EQ(got, want);
  if (got != want) {
    std::filesystem::path dir = std::filesystem::path(PERFLENS_BINARY_DIR) / "header_printer";
    std::filesystem::create_directories(dir);
    std::ofstream(dir / c.golden) << actual;
  }
  EXPECT_NE(actual.find("# captured on    : "), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, HeaderPrinterGoldenTest,
    ::testing::Values(
        Case{"perf_data_converter/perf.data.hybrid_topology", "hybrid_topology.header.txt", false},
        Case{"perf_data_converter/perf.data.hybrid_topology", "hybrid_topology.header-I.txt", true},
        Case{"perf_data_converter/perf.data.group_desc-4.14", "group_desc-4.14.header.txt", false},
        Case{"eclipse-linuxtools/multievent-data/perf.data", "eclipse-multievent.header.txt", false},
        Case{"perf_data_converter/perf.data.piped.header_features_aligned-6.12",
             "piped.header_features_aligned-6.12.header.txt", false},
        Case{"linux-perf-data/sleep.compressed.pipe.data", "sleep.compressed.pipe.header.txt", false}),
    [](const auto& info) {
      std::string name = info.param.golden;
      for (char& ch : name)
        if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return name;
    });

TEST(FormatEventAttrFieldsTest, PrintsNonZeroFieldsInPerfOrder) {
  EventAttr a;
  a.type = 1;
  a.size = 128;
  a.config = 0x9;
  a.sample_period = 4000;
  a.sample_type = kSampleIp | kSampleTid | kSampleTime | kSampleIdentifier | kSampleRegsIntr;
  a.read_format = kReadId | kReadLost;
  a.flags = (1ULL << 0) | (2ULL << 15) | (1ULL << 34);  // disabled, precise_ip=2, build_id
  a.branch_sample_type = (1 << 0) | (1 << 17);
  a.clockid = 1;
  EXPECT_EQ(FormatEventAttrFields(a),
            ", type = 1, size = 128, config = 0x9, { sample_period, sample_freq } = 4000, "
            "sample_type = IP|TID|TIME|IDENTIFIER|REGS_INTR, read_format = ID|LOST, disabled = 1, "
            "precise_ip = 2, build_id = 1, branch_sample_type = USER|HW_INDEX, clockid = 1");
  EXPECT_EQ(FormatEventAttrFields(EventAttr{}), "");
}

}  // namespace
}  // namespace perflens
