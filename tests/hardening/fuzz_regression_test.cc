// Replays every input under tests/fuzz/corpus/regressions/<target>/ (crashes, hangs and
// OOMs the fuzzers found, each fixed) and the seed corpora through the same entry points
// as the libFuzzer targets (tests/fuzz/fuzz_entries.h), in a normal build.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "fuzz/fuzz_entries.h"

namespace perflens {
namespace {

namespace fs = std::filesystem;
using Entry = int (*)(const uint8_t*, size_t);

const std::map<std::string, Entry>& Entries() {
  static const std::map<std::string, Entry> m = {
      {"reader", fuzz::FuzzReader},     {"sample", fuzz::FuzzSample},
      {"feature", fuzz::FuzzFeature},   {"perf_map", fuzz::FuzzPerfMap},
      {"kallsyms", fuzz::FuzzKallsyms}, {"report", fuzz::FuzzReport},
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
    EXPECT_EQ(entry(bytes.data(), bytes.size()), 0);
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

TEST(FuzzRegressionTest, ReplaysSeeds) {
  for (const auto& [name, entry] : Entries()) {
    SCOPED_TRACE(name);
    EXPECT_GT(ReplayDir(kCorpus / name / "seeds", entry), 0);
  }
}

// The entry points themselves reject short inputs without touching them.
TEST(FuzzRegressionTest, EmptyInputs) {
  for (const auto& [name, entry] : Entries()) {
    SCOPED_TRACE(name);
    EXPECT_EQ(entry(nullptr, 0), 0);
  }
}

}  // namespace
}  // namespace perflens
