// Real recordings from ../shared/corpus (file mode, pipe mode, zstd-compressed), cut at
// every byte offset and with random byte flips (fixed seeds), through the whole report
// pipeline: it must finish (the ctest timeout catches a hang), without sanitizer
// reports, and every run either opens with a reason or produces a report.
#include <gtest/gtest.h>

#include <chrono>
#include <random>

#include "hardening/hardening_util.h"

namespace perflens::hardening {
namespace {

struct CorpusCase {
  const char* path;
  const char* kind;
};

// Small files, one per reader path: file mode, legacy PERFFILE, pipe mode with zstd
// COMPRESSED, file mode with COMPRESSED2, pipe mode with COMPRESSED2 and trailing text.
constexpr CorpusCase kCases[] = {
    {"autofdo/ro_sample.perf", "file"},
    {"eclipse-linuxtools/swtbot-fibTest/perf_new.data", "file"},
    {"perf_data_converter/perf.data.piped.header_features-4.16", "pipe"},
    {"linux-perf-data/sleep.compressed.pipe.data", "pipe+zstd"},
    {"linux-perf-data/sleep.compressed2.data", "file+zstd2"},
};

// Runs the pipeline on `bytes`; returns true if a report was produced.
bool Survives(std::vector<uint8_t> bytes) {
  ReportRun run = RunReport(std::move(bytes));
  if (!run.open_error.empty()) return false;
  EXPECT_NE(run.out.find("# Total Lost Samples:"), std::string::npos) << run.out.substr(0, 400);
  return true;
}

class HostileFileTest : public ::testing::TestWithParam<CorpusCase> {
 protected:
  void SetUp() override {
    auto b = ReadCorpusFile(GetParam().path);
    if (!b) GTEST_SKIP() << "corpus file missing: " << GetParam().path;
    bytes_ = std::move(*b);
  }
  std::vector<uint8_t> bytes_;
};

TEST_P(HostileFileTest, IntactFileReports) {
  ReportRun run = RunReport(bytes_);
  ASSERT_EQ(run.open_error, "");
  EXPECT_NE(run.out.find("# Samples:"), std::string::npos) << run.out;
}

TEST_P(HostileFileTest, TruncatedAtEveryOffset) {
  size_t reported = 0;
  auto start = std::chrono::steady_clock::now();
  for (size_t len = 0; len < bytes_.size(); ++len) {
    SCOPED_TRACE(len);
    if (Survives(std::vector<uint8_t>(bytes_.begin(), bytes_.begin() + len))) ++reported;
    if (HasFailure()) return;
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  RecordProperty("seconds", std::to_string(secs));
  // Cut after the header and attrs, a prefix is still a (shorter) recording.
  EXPECT_GT(reported, bytes_.size() / 2);
}

TEST_P(HostileFileTest, RandomByteFlips) {
  std::mt19937_64 rng(0x9e3779b97f4a7c15ULL);
  for (int round = 0; round < 400; ++round) {
    std::vector<uint8_t> b = bytes_;
    int flips = 1 + static_cast<int>(rng() % 16);
    for (int i = 0; i < flips; ++i) b[rng() % b.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
    SCOPED_TRACE(round);
    Survives(std::move(b));
    if (HasFailure()) return;
  }
}

// Flips confined to the first 4 KiB (header, attrs, early records) where one byte
// changes the most; every value of a size byte is tried for the first record headers.
TEST_P(HostileFileTest, HeaderByteFlips) {
  std::mt19937_64 rng(12345);
  const size_t span = std::min<size_t>(bytes_.size(), 4096);
  for (int round = 0; round < 400; ++round) {
    std::vector<uint8_t> b = bytes_;
    b[rng() % span] = static_cast<uint8_t>(rng());
    if (round % 2) b[rng() % span] = 0xff;
    SCOPED_TRACE(round);
    Survives(std::move(b));
    if (HasFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, HostileFileTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<CorpusCase>& info) {
                           std::string name = std::to_string(info.index) + "_" + info.param.kind;
                           for (char& c : name)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

}  // namespace
}  // namespace perflens::hardening
