// Helpers for the hostile-input tests: run the whole report pipeline on bytes in
// memory, build a one-sample recording whose MMAP2 names a chosen path, read corpus files.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "base/mapped_file.h"
#include "perfdata/perf_event.h"
#include "perfdata/perf_file.h"
#include "report/report.h"
#include "report/stdio_printer.h"
#include "testutil/perf_data_writer.h"

namespace perflens::hardening {

struct ReportRun {
  std::string open_error;  // PerfFile::FromBytes failed with this
  std::string out;         // PrintReportStdio output
  std::vector<std::string> summary;
  ReadStats stats;
};

// FromBytes → Report::Create → Process → PrintReportStdio. `symbolize.kallsyms` and
// `buildid_dir` default to paths that do not exist, so no real kernel data is read.
inline ReportRun RunReport(std::vector<uint8_t> bytes, SymbolizeOptions so = {}, ReaderOptions ro = {}) {
  ReportRun run;
  auto file = PerfFile::FromBytes(MappedFile::FromBuffer(std::move(bytes)), ro);
  if (!file.ok()) {
    run.open_error = file.error().message;
    return run;
  }
  if (so.kallsyms.empty()) so.kallsyms = "/nonexistent-perflens/kallsyms";
  if (so.buildid_dir.empty()) so.buildid_dir = "/nonexistent-perflens/buildid";
  ReportOptions o;
  o.symbolize = so;
  auto report = Report::Create(file->get(), o);
  EXPECT_TRUE(report.ok());
  if (!report.ok()) return run;
  Status st = (*report)->Process();
  EXPECT_TRUE(st.ok()) << st.error().message;
  Status pr = PrintReportStdio(**report, &run.out);
  EXPECT_TRUE(pr.ok());
  run.summary = (*report)->SummaryLines();
  run.stats = (*report)->read_stats();
  return run;
}

inline EventAttr CyclesAttr(uint64_t extra_sample_type = 0) {
  EventAttr a;
  a.type = 0;
  a.size = 136;
  a.sample_period = 1000;
  a.sample_type = kSampleIp | kSampleTid | kSampleTime | kSamplePeriod | extra_sample_type;
  a.flags = 1ULL << 18;  // sample_id_all
  return a;
}

// A file-mode recording: COMM "victim" for `pid`, an MMAP2 of `filename` at
// [start, +0x10000) with pgoff 0 (and `build_id` when given), one sample at start + 0x1234.
inline std::vector<uint8_t> OneSampleInMap(const std::string& filename, uint32_t pid = 42,
                                           uint64_t start = 0x400000, std::vector<uint8_t> build_id = {}) {
  testutil::PerfDataWriter w;
  int ev = w.AddAttr(CyclesAttr(), {1});
  w.Comm(pid, pid, "victim", false, testutil::SidAt(pid, 100));
  testutil::PerfDataWriter::Mmap2Fields m;
  m.pid = m.tid = pid;
  m.start = start;
  m.len = 0x10000;
  m.filename = filename;
  m.build_id = std::move(build_id);
  w.Mmap2(m, testutil::SidAt(pid, 200));
  testutil::SampleFields s;
  s.ip = start + 0x1234;
  s.pid = s.tid = pid;
  s.time = 300;
  s.period = 1000;
  w.Sample(ev, s);
  return w.Finish();
}

// Whether some line of `out` holds the whitespace-separated tokens of `row`, in order
// and adjacent ("victim app [.] 0x1234" matches "100.00%  victim   app   [.] 0x1234").
inline bool HasRow(const std::string& out, const std::string& row) {
  auto split = [](std::string_view s) {
    std::vector<std::string_view> t;
    size_t i = 0;
    while (i < s.size()) {
      size_t j = s.find_first_of(" \t", i);
      if (j == std::string_view::npos) j = s.size();
      if (j > i) t.push_back(s.substr(i, j - i));
      i = j + 1;
    }
    return t;
  };
  const auto want = split(row);
  size_t pos = 0;
  while (pos < out.size()) {
    size_t nl = out.find('\n', pos);
    if (nl == std::string::npos) nl = out.size();
    const auto got = split(std::string_view(out).substr(pos, nl - pos));
    for (size_t i = 0; i + want.size() <= got.size(); ++i)
      if (std::equal(want.begin(), want.end(), got.begin() + i)) return true;
    pos = nl + 1;
  }
  return false;
}

// File header fields (perf_file_header).
inline constexpr size_t kAttrSize = 16, kAttrsOff = 24, kAttrsSize = 32, kDataOff = 40, kDataSize = 48;

inline uint64_t Get(const std::vector<uint8_t>& b, size_t at) {
  uint64_t v;
  std::memcpy(&v, b.data() + at, 8);
  return v;
}
inline void Put(std::vector<uint8_t>& b, size_t at, uint64_t v) { std::memcpy(b.data() + at, &v, 8); }

// A file-mode header with `nr` zeroed attrs of `attr_size` bytes at offset 104, and
// `tail` more zero bytes after them; the data section starts at the end (empty).
inline std::vector<uint8_t> AttrsOnlyFile(uint64_t nr, uint64_t attr_size, uint64_t tail = 0) {
  std::vector<uint8_t> b(104 + nr * attr_size + tail, 0);
  std::memcpy(b.data(), "PERFILE2", 8);
  Put(b, 8, 104);
  Put(b, kAttrSize, attr_size);
  Put(b, kAttrsOff, 104);
  Put(b, kAttrsSize, nr * attr_size);
  Put(b, kDataOff, b.size());
  return b;
}

inline std::vector<uint8_t> SmallFile() { return OneSampleInMap("/nonexistent/app"); }

inline std::string OpenError(std::vector<uint8_t> b) {
  auto f = PerfFile::FromBytes(MappedFile::FromBuffer(std::move(b)));
  return f.ok() ? "" : f.error().message;
}
inline std::optional<std::vector<uint8_t>> ReadCorpusFile(const std::string& rel) {
  std::ifstream in(std::string(PERFLENS_CORPUS_DIR) + "/" + rel, std::ios::binary);
  if (!in) return std::nullopt;
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "perflens-hard-XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace perflens::hardening
