// Regression tests for the reliability audit (issue #10), one or more per finding.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>

#include "base/text_escape.h"
#include "hardening/hardening_util.h"

namespace perflens::hardening {
namespace {

using testutil::PerfDataWriter;
using testutil::SampleFields;
using testutil::SidAt;

testutil::PerfDataWriter::Mmap2Fields Mmap(uint32_t pid, uint32_t tid, uint64_t start, uint64_t len,
                                           const std::string& file) {
  testutil::PerfDataWriter::Mmap2Fields m;
  m.pid = pid;
  m.tid = tid;
  m.start = start;
  m.len = len;
  m.filename = file;
  return m;
}

SampleFields At(uint32_t pid, uint32_t tid, uint64_t ip, uint64_t time) {
  SampleFields s;
  s.pid = pid;
  s.tid = tid;
  s.ip = ip;
  s.time = time;
  s.period = 1000;
  return s;
}

// Finding 1 (fails under ASan before the fix): a thread first seen without a pid had a map set of its own; a lookup
// cached a Map* of it in the model, and when the thread learned its pid it switched to
// the leader's set, which freed the old one (ASan: heap-use-after-free in Map::Contains).
TEST(ReliabilityTest, ThreadThatLearnsItsPidUsesTheLeadersMaps) {
  PerfDataWriter w;
  int ev = w.AddAttr(CyclesAttr(), {1});
  w.Mmap2(Mmap(static_cast<uint32_t>(-1), 5, 0x1000, 0x1000, "/bin/a"), SidAt(static_cast<uint32_t>(-1), 10));
  w.Sample(ev, At(static_cast<uint32_t>(-1), 5, 0x1800, 20));
  w.Mmap2(Mmap(100, 100, 0x1000, 0x1000, "/bin/leader"), SidAt(100, 30));
  for (uint64_t t = 40; t < 43; ++t) w.Sample(ev, At(100, 5, 0x1800, t));
  ReportRun run = RunReport(w.Finish());
  ASSERT_EQ(run.open_error, "");
  EXPECT_TRUE(HasRow(run.out, "25.00% :5 a [.] 0x0000000000000800")) << run.out;
  EXPECT_TRUE(HasRow(run.out, "75.00% :5 leader [.] 0x0000000000000800")) << run.out;
}

// A recording whose comm, DSO path and (through a JIT map-less DSO) names carry a
// terminal escape, a newline and bytes that are not UTF-8.
std::vector<uint8_t> HostileNames() {
  PerfDataWriter w;
  int ev = w.AddAttr(CyclesAttr(), {1});
  w.Comm(7, 7, "ev\x1b[2Jil\xff\xfe", false, SidAt(7, 10));
  w.Mmap2(Mmap(7, 7, 0x400000, 0x10000, "/bin/x\nfake row\xc3"), SidAt(7, 20));
  w.Sample(ev, At(7, 7, 0x401234, 30));
  return w.Finish();
}

// Finding 2: report --json aborted (nlohmann type_error.316) on names that are not
// UTF-8. Invalid bytes become U+FFFD and the output parses.
TEST(ReliabilityTest, JsonWithNamesThatAreNotUtf8IsValidJson) {
  auto file = PerfFile::FromBytes(MappedFile::FromBuffer(HostileNames()));
  ASSERT_TRUE(file.ok()) << file.error().message;
  ReportOptions o;
  o.symbolize.kallsyms = "/nonexistent-perflens/kallsyms";
  o.symbolize.buildid_dir = "/nonexistent-perflens/buildid";
  auto report = Report::Create(file->get(), o);
  ASSERT_TRUE(report.ok());
  ASSERT_TRUE((*report)->Process().ok());
  std::string out;
  ASSERT_TRUE(PrintReportJson(**report, &out).ok());
  nlohmann::json doc = nlohmann::json::parse(out);  // throws (fails the test) if invalid
  const auto& row = doc["events"][0]["rows"][0];
  EXPECT_EQ(row["comm"], "ev\\x1b[2Jil\uFFFD\uFFFD");
  EXPECT_EQ(row["dso_path"], "/bin/x\nfake row\uFFFD");  // the path as recorded; JSON escapes the newline
  EXPECT_EQ(row["samples"], 1);
}

// Finding 10: control characters in names reached the terminal raw. Each one is
// printed as \xNN; no byte below 0x20 other than the report's own newlines remains.
TEST(ReliabilityTest, ControlCharactersInNamesAreEscaped) {
  ReportRun run = RunReport(HostileNames());
  ASSERT_EQ(run.open_error, "");
  EXPECT_NE(run.out.find("ev\\x1b[2Jil\xff\xfe"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("x\\x0afake row\xc3"), std::string::npos) << run.out;
  for (char c : run.out) EXPECT_TRUE(static_cast<unsigned char>(c) >= 0x20 || c == '\n') << int(c);
  EXPECT_EQ(EscapeControl("a\tb\x7f\x01"), "a\\x09b\\x7f\\x01");
}

// Finding 8: perf refuses a perf.data file that neither the current user nor root owns
// (it names files for the reader to open), unless -f/--force.
TEST(ReliabilityTest, FileOfAnotherUserNeedsForce) {
  TempDir dir;
  const std::string path = dir / "perf.data";
  std::vector<uint8_t> bytes = SmallFile();
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  const uid_t other = geteuid() == 4242 ? 4243 : 4242;
  if (chown(path.c_str(), other, static_cast<gid_t>(-1)) != 0) GTEST_SKIP() << "cannot chown (not root)";
  auto refused = PerfFile::Open(path);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message, fmt::format("{}: not owned by the current user or root (owner uid {}); use "
                                                 "-f/--force to read it anyway", path, other));
  ReaderOptions force;
  force.force = true;
  auto forced = PerfFile::Open(path, force);
  EXPECT_TRUE(forced.ok()) << forced.error().message;
  ASSERT_EQ(chown(path.c_str(), 0, static_cast<gid_t>(-1)), 0);  // root's files are read
  EXPECT_TRUE(PerfFile::Open(path).ok());
  ASSERT_EQ(chown(path.c_str(), other, static_cast<gid_t>(-1)), 0);

  // The CLI: exit 1 and perf's advice, then -f on every subcommand that reads a file.
  const std::string cli = std::string(PERFLENS_BINARY_DIR) + "/src/cli/perflens";
  if (access(cli.c_str(), X_OK) != 0) GTEST_SKIP() << "perflens not built: " << cli;
  for (const char* cmd : {"report", "script", "header", "dump", "stats", "buildid-list"}) {
    std::string base = fmt::format("'{}' {} -i '{}' >/dev/null 2>&1", cli, cmd, path);
    EXPECT_EQ(WEXITSTATUS(system(base.c_str())), 1) << base;
    std::string with_f = fmt::format("'{}' {} -f -i '{}' >/dev/null 2>&1", cli, cmd, path);
    EXPECT_EQ(WEXITSTATUS(system(with_f.c_str())), 0) << with_f;
  }
}

// Finding 9: a file perf record is still writing, or left when killed, has data_size 0
// and no feature sections. Its records run to the end of the file: all are reported,
// with one warning, and nothing is parsed as a feature index.
TEST(ReliabilityTest, UnfinishedRecordingIsReadToTheEnd) {
  PerfDataWriter w;
  int ev = w.AddAttr(CyclesAttr(), {1});
  w.Comm(7, 7, "running", false, SidAt(7, 10));
  w.Mmap2(Mmap(7, 7, 0x400000, 0x10000, "/bin/app"), SidAt(7, 20));
  for (uint64_t t = 0; t < 5; ++t) w.Sample(ev, At(7, 7, 0x401000, 30 + t));
  w.AddFeature(kFeatHostname, {4, 0, 0, 0, 'h', 0, 0, 0});  // a finished file would have an index after the data
  std::vector<uint8_t> b = w.Finish();
  const uint64_t data_end = Get(b, kDataOff) + Get(b, kDataSize);
  ASSERT_LT(data_end, b.size());
  b.resize(data_end);  // no feature sections were written yet
  Put(b, kDataSize, 0);
  auto file = PerfFile::FromBytes(MappedFile::FromBuffer(b));
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_TRUE((*file)->unfinished());
  ASSERT_EQ((*file)->env().warnings.size(), 1u);
  EXPECT_EQ((*file)->env().warnings[0],
            fmt::format("data size is 0 in the header: the recording was not finished (perf record still running or "
                        "killed); reading the {} bytes after offset {:#x} as records, without header features",
                        data_end - Get(b, kDataOff), Get(b, kDataOff)));
  ReportRun run = RunReport(b);
  EXPECT_EQ(run.stats.nr_records[kRecordSample], 5u);
  EXPECT_FALSE(run.stats.stopped.has_value());
  EXPECT_TRUE(HasRow(run.out, "100.00% running app")) << run.out;
}

}  // namespace
}  // namespace perflens::hardening
