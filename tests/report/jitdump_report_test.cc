// Jitdump without `perf inject --jit`, end to end on in-memory recordings: pid P maps its
// jitdump marker "<dir>/jit-P.dump" (as a JIT runtime does, PROT_EXEC) and an anonymous
// executable map at kBase; samples there resolve through the jitdump this test writes
// (both byte orders), ahead of a /tmp/perf-P.map with other names. A jitdump written by
// another pid, a damaged one, and one found under --symfs. perf 6.1 itself prints
// [unknown] (or the perf map's names) here: README "differs on purpose".
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/mapped_file.h"
#include "report/report.h"
#include "report/script_printer.h"
#include "report/stdio_printer.h"
#include "testutil/jitdump_writer.h"
#include "testutil/perf_data_writer.h"

namespace perflens {
namespace {

namespace fs = std::filesystem;
using testutil::Endian;
using testutil::JitdumpWriter;
using testutil::PerfDataWriter;
using testutil::SampleFields;

constexpr uint64_t kBase = 0x7f0000000000;

EventAttr CpuClock() {
  EventAttr a;
  a.type = 1;  // software, config 0: cpu-clock
  a.size = 128;
  a.sample_type = kSampleIp | kSampleTid | kSampleTime | kSamplePeriod;
  a.sample_period = 1000;
  a.flags = 1ULL << 20;  // exclude_guest
  return a;
}

class JitdumpReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("perflens_jitdump_" + std::to_string(getpid()));
    fs::create_directories(dir_);
    marker_ = (dir_ / ("jit-" + std::to_string(pid_) + ".dump")).string();
    perf_map_ = "/tmp/perf-" + std::to_string(pid_) + ".map";
    std::ofstream(perf_map_) << "7f0000001000 100 from_perf_map\n";
  }
  void TearDown() override {
    fs::remove_all(dir_);
    std::remove(perf_map_.c_str());
  }

  // Marker (the jitdump file itself, PROT_EXEC), then the anonymous code heap and
  // one sample at each of `ips`.
  std::vector<uint8_t> Recording(const std::string& marker_name, const std::vector<uint64_t>& ips) const {
    PerfDataWriter w;
    int ev = w.AddAttr(CpuClock());
    w.Comm(pid_, pid_, "node");
    PerfDataWriter::Mmap2Fields mk;
    mk.pid = mk.tid = pid_;
    mk.start = 0x7f1000000000;
    mk.len = 0x1000;
    mk.prot = 5;     // PROT_READ | PROT_EXEC
    mk.flags = 0x2;  // MAP_PRIVATE
    mk.filename = marker_name;
    w.Mmap2(mk);
    PerfDataWriter::Mmap2Fields anon;
    anon.pid = anon.tid = pid_;
    anon.start = kBase;
    anon.len = 0x10000;
    anon.prot = 5;
    anon.flags = 0x22;  // MAP_PRIVATE | MAP_ANONYMOUS
    anon.filename = "//anon";
    w.Mmap2(anon);
    uint64_t time = 1000;
    for (uint64_t ip : ips) {
      SampleFields s;
      s.pid = s.tid = pid_;
      s.ip = ip;
      s.time = ++time;
      s.period = 1000;
      w.Sample(ev, s);
    }
    return w.Finish();
  }

  std::string RunReport(std::vector<uint8_t> bytes, std::vector<std::string>* problems = nullptr) {
    auto file = PerfFile::FromBytes(MappedFile::FromBuffer(std::move(bytes)));
    EXPECT_TRUE(file.ok());
    if (!file.ok()) return "";
    ReportOptions o;
    o.children = false;
    o.symbolize = symbolize_;
    auto r = Report::Create(file->get(), o);
    EXPECT_TRUE(r.ok()) << r.error().message;
    if (!r.ok()) return "";
    EXPECT_TRUE((*r)->Process().ok());
    std::string out;
    EXPECT_TRUE(PrintReportStdio(**r, &out).ok());
    if (problems) *problems = (*r)->symbolizer().Problems();
    return out;
  }

  std::string RunScript(std::vector<uint8_t> bytes) {
    auto file = PerfFile::FromBytes(MappedFile::FromBuffer(std::move(bytes)));
    EXPECT_TRUE(file.ok());
    if (!file.ok()) return "";
    ScriptOptions o;
    o.symbolize = symbolize_;
    auto script = Script::Create(file->get(), o);
    EXPECT_TRUE(script.ok()) << script.error().message;
    if (!script.ok()) return "";
    std::string all;
    EXPECT_TRUE((*script)->Run([&](std::string_view s) { all += s; }).ok());
    return all;
  }

  static bool Has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

  uint32_t pid_ = 3000000 + static_cast<uint32_t>(getpid() % 1000000);
  fs::path dir_;
  std::string marker_, perf_map_;
  SymbolizeOptions symbolize_{.buildid_dir = "/nonexistent-perflens/buildid",
                              .kallsyms = "/nonexistent-perflens/kallsyms"};
};

class JitdumpEndianReportTest : public JitdumpReportTest, public ::testing::WithParamInterface<Endian> {};

TEST_P(JitdumpEndianReportTest, AnonSamplesNameJitdumpSymbolsAheadOfPerfMap) {
  JitdumpWriter jd(pid_, GetParam());
  jd.CodeLoad(kBase + 0x1000, 0x100, 1, "LazyCompile:*add a.js:1");
  jd.CodeLoad(kBase + 0x2000, 0x80, 2, "Builtin:Call");
  jd.CodeMove(kBase + 0x2000, kBase + 0x3000, 0x80, 2);
  jd.WriteTo(marker_);
  std::vector<uint8_t> rec = Recording(marker_, {kBase + 0x1010, kBase + 0x1020, kBase + 0x2010, kBase + 0x3040,
                                                 kBase + 0x9000});
  std::vector<std::string> problems;
  std::string report = RunReport(rec, &problems);
  const std::string jit = "[JIT] tid " + std::to_string(pid_);
  EXPECT_TRUE(Has(report, jit + "  [.] LazyCompile:*add a.js:1\n")) << report;
  EXPECT_TRUE(Has(report, "[.] Builtin:Call")) << report;
  EXPECT_TRUE(Has(report, "[.] 0x00007f0000009000")) << report;  // no symbol there
  EXPECT_FALSE(Has(report, "from_perf_map")) << report;           // the jitdump wins
  for (const std::string& p : problems) EXPECT_FALSE(Has(p, "jitdump")) << p;

  std::string script = RunScript(rec);
  EXPECT_TRUE(Has(script, "7f0000001010 LazyCompile:*add a.js:1+0x10 (" + perf_map_ + ")\n")) << script;
  EXPECT_TRUE(Has(script, "7f0000009000 [unknown] (")) << script;
  EXPECT_TRUE(Has(script, "7f0000003040 Builtin:Call+0x40 (")) << script;
}

INSTANTIATE_TEST_SUITE_P(BothOrders, JitdumpEndianReportTest, ::testing::Values(Endian::kLittle, Endian::kBig));

TEST_F(JitdumpReportTest, JitdumpOfAnotherPidFallsBackToPerfMap) {
  JitdumpWriter jd(pid_ + 1);
  jd.CodeLoad(kBase + 0x1000, 0x100, 1, "wrong_pid");
  jd.WriteTo(marker_);
  std::vector<std::string> problems;
  std::string report = RunReport(Recording(marker_, {kBase + 0x1010}), &problems);
  EXPECT_TRUE(Has(report, "[.] from_perf_map")) << report;
  EXPECT_FALSE(Has(report, "wrong_pid")) << report;
  bool noted = false;
  for (const std::string& p : problems) noted |= Has(p, "written by pid " + std::to_string(pid_ + 1));
  EXPECT_TRUE(noted) << ::testing::PrintToString(problems);
}

TEST_F(JitdumpReportTest, MarkerOfAnotherPidIsNoMarker) {
  JitdumpWriter jd(pid_ + 1);
  jd.CodeLoad(kBase + 0x1000, 0x100, 1, "other_process");
  const std::string other = (dir_ / ("jit-" + std::to_string(pid_ + 1) + ".dump")).string();
  jd.WriteTo(other);
  std::string report = RunReport(Recording(other, {kBase + 0x1010}));
  EXPECT_TRUE(Has(report, "[.] from_perf_map")) << report;
}

TEST_F(JitdumpReportTest, DamagedJitdumpKeepsGoodRecordsAndCountsTheRest) {
  JitdumpWriter jd(pid_);
  jd.CodeLoad(kBase + 0x1000, 0x100, 1, "good");
  jd.RawCodeLoad(kBase + 0x2000, 0x10, 2, "no-nul", 0x10);
  jd.RecordHeader(0, 0xffffffffu);  // huge total_size: the rest is unreadable
  jd.WriteTo(marker_);
  std::vector<std::string> problems;
  std::string report = RunReport(Recording(marker_, {kBase + 0x1010, kBase + 0x2004}), &problems);
  EXPECT_TRUE(Has(report, "[.] good")) << report;
  EXPECT_FALSE(Has(report, "from_perf_map")) << report;
  bool noted = false;
  for (const std::string& p : problems) noted |= Has(p, "2 damaged records skipped");
  EXPECT_TRUE(noted) << ::testing::PrintToString(problems);
}

TEST_F(JitdumpReportTest, NotAJitdumpFallsBackToPerfMap) {
  std::ofstream(marker_) << "not a jitdump at all, longer than forty bytes of header....";
  std::vector<std::string> problems;
  std::string report = RunReport(Recording(marker_, {kBase + 0x1010}), &problems);
  EXPECT_TRUE(Has(report, "[.] from_perf_map")) << report;
  bool noted = false;
  for (const std::string& p : problems) noted |= Has(p, "bad magic");
  EXPECT_TRUE(noted) << ::testing::PrintToString(problems);
}

TEST_F(JitdumpReportTest, MarkerIsReadInsideSymfs) {
  // Recorded as /recorded/jit-P.dump; the file is <dir>/recorded/jit-P.dump.
  const std::string recorded = "/recorded/jit-" + std::to_string(pid_) + ".dump";
  fs::create_directories(dir_ / "recorded");
  JitdumpWriter jd(pid_);
  jd.CodeLoad(kBase + 0x1000, 0x100, 1, "in_symfs");
  jd.WriteTo((dir_ / "recorded" / ("jit-" + std::to_string(pid_) + ".dump")).string());
  symbolize_.symfs = dir_.string();
  std::string report = RunReport(Recording(recorded, {kBase + 0x1010}));
  EXPECT_TRUE(Has(report, "[.] in_symfs")) << report;
}

}  // namespace
}  // namespace perflens
