// Real perf.data files from the shared corpus (PERFLENS_CORPUS_DIR/manifest.json): each
// must open and read to the end, with the manifest's SAMPLE count; files the manifest
// marks with walk_errors (known-corrupt) must stop cleanly with an error naming the
// offset; trailing junk after the last record may only stop the read at the file's end.
// Skipped when the corpus is not present.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/worker_pool.h"
#include "perfdata/perf_file.h"
#include "testutil/read_stats_text.h"

namespace perflens {
namespace {

struct CorpusEntry {
  std::string file;  // relative to the corpus dir
  std::string format;
  std::optional<uint64_t> samples;
  std::vector<std::string> walk_errors;
};

void PrintTo(const CorpusEntry& c, std::ostream* os) { *os << c.file; }

std::string CorpusDir() { return PERFLENS_CORPUS_DIR; }

std::vector<CorpusEntry> LoadCorpus() {
  std::vector<CorpusEntry> out;
  std::ifstream in(CorpusDir() + "/manifest.json");
  if (!in) return out;
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!j.is_array()) return out;
  for (const auto& e : j) {
    if (!e.is_object() || e.value("kind", "") != "perf.data") continue;
    CorpusEntry c;
    c.file = e.value("file", "");
    c.format = e.value("format", "");
    if (e.contains("samples") && e["samples"].is_number_unsigned()) c.samples = e["samples"].get<uint64_t>();
    if (e.contains("walk_errors") && e["walk_errors"].is_array())
      for (const auto& w : e["walk_errors"]) c.walk_errors.push_back(w.get<std::string>());
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<CorpusEntry> CorpusOrPlaceholder() {
  std::vector<CorpusEntry> v = LoadCorpus();
  if (v.empty()) v.push_back({"", "", std::nullopt, {}});  // reported as skipped
  return v;
}

std::string EntryName(const testing::TestParamInfo<CorpusEntry>& info) {
  std::string name = info.param.file.empty() ? "absent" : info.param.file;
  for (char& ch : name)
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name + "_" + std::to_string(info.index);
}

class CorpusTest : public testing::TestWithParam<CorpusEntry> {};

TEST_P(CorpusTest, OpensAndReadsToTheEnd) {
  const CorpusEntry& c = GetParam();
  if (c.file.empty()) GTEST_SKIP() << "no corpus manifest at " << CorpusDir();
  const std::string path = CorpusDir() + "/" + c.file;
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent";
  SCOPED_TRACE(path + " (" + c.format + ")");
  auto f = PerfFile::Open(path);
  ASSERT_TRUE(f.ok()) << f.error().message;
  ReadStats stats;
  uint64_t samples = 0, bad_samples = 0;
  Status st = (*f)->ReadRecords(
      [&](const RecordView& r) {
        if (r.type != kRecordSample) return;
        ++samples;
        Sample s;
        const Evsel* ev = nullptr;
        if ((*f)->ParseSample(r, &s, &ev) != SampleError::kNone) ++bad_samples;
      },
      &stats);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(samples, stats.nr_records[kRecordSample]);
  if (!c.walk_errors.empty()) {
    // Known-corrupt: reading stops at the bad record, naming where.
    ASSERT_TRUE(stats.stopped.has_value()) << "expected a stop: " << c.walk_errors[0];
    std::smatch m;
    if (std::regex_search(c.walk_errors[0], m, std::regex(R"(at (\d+))"))) {
      const std::string where = fmt::format("offset {:#x}", std::stoull(m[1].str()));
      EXPECT_NE(stats.stopped->message.find(where), std::string::npos)
          << stats.stopped->message << " (manifest: " << c.walk_errors[0] << ")";
    }
    return;
  }
  if (stats.stopped) {
    // Only junk at the very end is tolerated (pipe recordings with stderr text or a
    // stray byte appended: sleep.compressed2.pipe.data, perf.data.piped.extrabyte-3.4);
    // the stop must name an offset within the last bytes of the file.
    std::smatch m;
    const std::string& msg = stats.stopped->message;
    ASSERT_TRUE(std::regex_search(msg, m, std::regex("offset 0x([0-9a-f]+)"))) << msg;
    const uint64_t at = std::stoull(m[1].str(), nullptr, 16);
    EXPECT_LT((*f)->file_size() - at, 256u) << "stopped before the end: " << msg;
  }
  EXPECT_EQ(bad_samples, 0u);
  EXPECT_EQ(stats.nr_bad_records, 0u) << (stats.warnings.empty() ? "" : stats.warnings[0]);
  if (c.samples) {
    EXPECT_EQ(samples, *c.samples);
  }
}

// ReadRecordsParallel delivers what ReadRecords does — the same records in the same
// order, the same counts, unordered records, warnings and stop — on every corpus file
// it can read (mapped, file mode, not a directory), with ranges small enough that each
// file is cut many times.
TEST_P(CorpusTest, ReadsTheSameInParallel) {
  const CorpusEntry& c = GetParam();
  if (c.file.empty()) GTEST_SKIP() << "no corpus manifest at " << CorpusDir();
  const std::string path = CorpusDir() + "/" + c.file;
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent";
  auto f = PerfFile::Open(path);
  ASSERT_TRUE(f.ok()) << f.error().message;
  if (!(*f)->CanReadInParallel()) GTEST_SKIP() << "a pipe-mode file or a directory: read on one thread";
  std::vector<std::pair<uint64_t, uint32_t>> want;  // (offset, type) in delivery order
  ReadStats want_stats;
  ASSERT_TRUE((*f)->ReadRecords([&](const RecordView& r) { want.push_back({r.perf_data_offset, r.type}); },
                                &want_stats)
                  .ok());
  for (uint64_t window : {uint64_t{4096}, uint64_t{1} << 20}) {
    SCOPED_TRACE(fmt::format("window {}", window));
    auto g = PerfFile::Open(path);
    ASSERT_TRUE(g.ok());
    WorkerPool pool(2);
    PerfFile::ParallelRead pr;
    pr.pool = &pool;
    pr.window_bytes = window;
    pr.range_bytes = 512;
    uint64_t decoded = 0;
    pr.decode = [](size_t, const RecordView&, PerfFile::DecodedSample* d) {
      std::memset(d->bytes, 0, sizeof d->bytes);
      return true;
    };
    std::vector<std::pair<uint64_t, uint32_t>> got;
    ReadStats got_stats;
    ASSERT_TRUE((*g)->ReadRecordsParallel(
                        [&](const RecordView& r, const PerfFile::DecodedSample* d) {
                          got.push_back({r.perf_data_offset, r.type});
                          decoded += d != nullptr;
                        },
                        pr, &got_stats)
                    .ok());
    EXPECT_EQ(testutil::ReadStatsText(got_stats), testutil::ReadStatsText(want_stats));
    EXPECT_TRUE(got == want) << got.size() << " records, " << want.size() << " read on one thread";
    // Every sample comes decoded, but those from COMPRESSED data (decompressed in order).
    if (want_stats.compressed_bytes == 0) {
      EXPECT_EQ(decoded, want_stats.nr_records[kRecordSample]);
    } else {
      EXPECT_LE(decoded, want_stats.nr_records[kRecordSample]);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusTest, testing::ValuesIn(CorpusOrPlaceholder()), EntryName);

}  // namespace
}  // namespace perflens
