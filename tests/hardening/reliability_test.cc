// Regression tests for the reliability audit (issue #10), one or more per finding.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <zstd.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <span>
#include <thread>

#include "base/text_escape.h"
#include "hardening/hardening_util.h"
#include "report/json_printer.h"

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

  // The CLI: perf's exit status for an input it cannot open (255) and perf's advice, then
  // -f on every subcommand that reads a file.
  const std::string cli = std::string(PERFLENS_BINARY_DIR) + "/src/cli/perflens";
  if (access(cli.c_str(), X_OK) != 0) GTEST_SKIP() << "perflens not built: " << cli;
  for (const char* cmd : {"report", "script", "header", "dump", "stats", "buildid-list"}) {
    std::string base = fmt::format("'{}' {} -i '{}' >/dev/null 2>&1", cli, cmd, path);
    EXPECT_EQ(WEXITSTATUS(system(base.c_str())), 255) << base;
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

// ---- Memory bounds (findings 3-5): the CLI in a child, its peak RSS from wait4 ----

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

struct ChildRun {
  int status = -1;
  long max_rss_kb = 0;
  std::string err;
};

std::string Cli() { return std::string(PERFLENS_BINARY_DIR) + "/src/cli/perflens"; }

// Runs perflens with `args`; stdin is `stdin_path`, or a pipe fed by `feed(fd)` on a
// thread when stdin_path is empty. stdout goes to /dev/null, stderr is captured.
ChildRun RunCli(const std::vector<std::string>& args, const std::string& stdin_path,
                const std::function<void(int)>& feed = {}) {
  ChildRun run;
  TempDir dir;
  const std::string err_path = dir / "stderr.txt";
  int in_pipe[2] = {-1, -1};
  if (stdin_path.empty() && pipe(in_pipe) != 0) return run;
  pid_t pid = fork();
  if (pid == 0) {
    int in = stdin_path.empty() ? in_pipe[0] : open(stdin_path.c_str(), O_RDONLY);
    dup2(in, 0);
    if (in_pipe[1] >= 0) close(in_pipe[1]);
    int out = open("/dev/null", O_WRONLY);
    dup2(out, 1);
    int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(err, 2);
    std::vector<char*> argv;
    std::string cli = Cli();
    argv.push_back(cli.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(cli.c_str(), argv.data());
    _exit(127);
  }
  std::thread feeder;
  if (in_pipe[0] >= 0) {
    close(in_pipe[0]);
    feeder = std::thread([&] {
      signal(SIGPIPE, SIG_IGN);
      feed(in_pipe[1]);
      close(in_pipe[1]);
    });
  }
  struct rusage ru = {};
  wait4(pid, &run.status, 0, &ru);
  if (feeder.joinable()) feeder.join();
  run.max_rss_kb = ru.ru_maxrss;
  std::ifstream e(err_path);
  run.err.assign(std::istreambuf_iterator<char>(e), {});
  return run;
}

bool WriteFully(int fd, std::span<const uint8_t> b) {
  size_t done = 0;
  while (done < b.size()) {
    ssize_t n = write(fd, b.data() + done, b.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// A 40-byte sample of CyclesAttr() (ip, pid/tid, time, period), little endian.
void AppendSample(std::vector<uint8_t>* out, uint64_t ip, uint32_t pid, uint64_t time) {
  uint8_t r[40] = {};
  uint32_t type = kRecordSample;
  uint16_t misc = kMiscUser, size = 40;
  std::memcpy(r, &type, 4);
  std::memcpy(r + 4, &misc, 2);
  std::memcpy(r + 6, &size, 2);
  std::memcpy(r + 8, &ip, 8);
  std::memcpy(r + 16, &pid, 4);
  std::memcpy(r + 20, &pid, 4);
  std::memcpy(r + 24, &time, 8);
  uint64_t period = 1000;
  std::memcpy(r + 32, &period, 8);
  out->insert(out->end(), r, r + 40);
}

// The start of a pipe-mode recording: attr, COMM and MMAP2 of pid 7 (/bin/app).
std::vector<uint8_t> PipePrologue() {
  PerfDataWriter w(PerfDataWriter::kPipe);
  w.AddAttr(CyclesAttr(), {1});
  w.Comm(7, 7, "app", false, SidAt(7, 1));
  w.Mmap2(Mmap(7, 7, 0x400000, 0x100000, "/bin/app"), SidAt(7, 2));
  return w.Finish();
}

// Finding 4: a pipe was buffered whole (RSS ~3x the stream). A 256 MB stream with a
// FINISHED_ROUND every 1 MB is now read round by round.
TEST(ReliabilityTest, PipeStreamMemoryDoesNotGrowWithTheStream) {
  if (access(Cli().c_str(), X_OK) != 0) GTEST_SKIP() << "perflens not built";
  const size_t total = kSanitized ? (32u << 20) : (256u << 20);
  uint64_t samples = 0;
  ChildRun run = RunCli({"report", "-i", "-", "--stdio", "--kallsyms", "/dev/null", "--symfs", "/nonexistent"}, "",
                        [&](int fd) {
                          if (!WriteFully(fd, PipePrologue())) return;
                          std::vector<uint8_t> round;
                          uint64_t t = 10, sent = 0;
                          while (sent < total) {
                            round.clear();
                            while (round.size() < (1u << 20)) {
                              AppendSample(&round, 0x401000 + (t % 64) * 16, 7, t);
                              ++t;
                              ++samples;
                            }
                            const uint8_t fin[8] = {kRecordFinishedRound, 0, 0, 0, 0, 0, 8, 0};
                            round.insert(round.end(), fin, fin + 8);
                            if (!WriteFully(fd, round)) return;
                            sent += round.size();
                          }
                        });
  ASSERT_TRUE(WIFEXITED(run.status)) << run.status << run.err;
  EXPECT_EQ(WEXITSTATUS(run.status), 0) << run.err;
  EXPECT_EQ(run.err.find("warning"), std::string::npos) << run.err;
  std::printf("[ memory ] pipe stream of %zu MB, %lu samples: peak RSS %ld MB\n", total >> 20,
              static_cast<unsigned long>(samples), run.max_rss_kb >> 10);
  if (!kSanitized) {
    EXPECT_LE(run.max_rss_kb, 128 << 10);
  }
}

// A stream gives the same report as the same bytes read as a file, and garbage on a
// pipe is refused as soon as its first 8 bytes arrive (`< /dev/zero` used to buffer
// gigabytes first).
TEST(ReliabilityTest, StreamReportsLikeTheFileAndRefusesGarbageAtOnce) {
  if (access(Cli().c_str(), X_OK) != 0) GTEST_SKIP() << "perflens not built";
  PerfDataWriter w(PerfDataWriter::kPipe);
  int ev = w.AddAttr(CyclesAttr(), {1});
  w.Comm(7, 7, "app", false, SidAt(7, 1));
  w.Mmap2(Mmap(7, 7, 0x400000, 0x100000, "/bin/app"), SidAt(7, 2));
  for (uint64_t t = 0; t < 3000; ++t) {
    w.Sample(ev, At(7, 7, 0x401000 + (t % 7) * 0x100, 100 + t));
    if (t % 500 == 499) w.FinishedRound();
  }
  w.BeginCompressed();
  for (uint64_t t = 0; t < 2000; ++t) w.Sample(ev, At(7, 7, 0x402000 + (t % 3) * 0x100, 5000 + t));
  w.EndCompressed({1000, 30000});
  std::vector<uint8_t> bytes = w.Finish();
  TempDir dir;
  const std::string file = dir / "pipe.data";
  {
    std::ofstream out(file, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  for (const char* mode : {"--stdio", "--json"}) {
    auto cmd = [&](const std::string& input, const std::string& out) {
      return fmt::format("'{}' report -i {} {} -n --kallsyms /dev/null --symfs /nonexistent > '{}' 2>/dev/null", Cli(),
                         input, mode, out);
    };
    ASSERT_EQ(system(cmd(file, dir / "file.txt").c_str()), 0);
    ASSERT_EQ(system(("cat '" + file + "' | " + cmd("-", dir / "stream.txt")).c_str()), 0);
    std::ifstream a(dir / "file.txt"), b(dir / "stream.txt");
    std::string from_file((std::istreambuf_iterator<char>(a)), {}), from_stream((std::istreambuf_iterator<char>(b)), {});
    EXPECT_NE(from_file.find("5000"), std::string::npos) << from_file;  // samples of both parts
    // The JSON names its input; the rows must be the same.
    if (std::string(mode) == "--json") {
      nlohmann::json jf = nlohmann::json::parse(from_file), js = nlohmann::json::parse(from_stream);
      EXPECT_EQ(jf["events"], js["events"]);
    } else {
      EXPECT_EQ(from_file, from_stream);
    }
  }
  // /dev/zero never ends: the magic check must come first.
  ChildRun zero = RunCli({"report", "-i", "-"}, "/dev/zero");
  ASSERT_TRUE(WIFEXITED(zero.status));
  EXPECT_EQ(WEXITSTATUS(zero.status), 255);  // perf's status for an input it cannot read
  EXPECT_EQ(zero.err, "perflens: <stdin>: not a perf.data file (bad magic at offset 0)\n");
  if (!kSanitized) {
    EXPECT_LE(zero.max_rss_kb, 64 << 10);
  }
}

// Finding 3: a zstd bomb. ~600 MB of identical samples (one timestamp, no round)
// compress to a few hundred KB; decompression stops at the cap with one clear error,
// the queue is flushed early, and memory stays bounded. Padding the file sparsely to
// 1 GB apparent size does not raise the cap (it counts compressed bytes read).
TEST(ReliabilityTest, ZstdBombStopsWithBoundedMemory) {
  if (access(Cli().c_str(), X_OK) != 0) GTEST_SKIP() << "perflens not built";
  PerfDataWriter w;
  w.AddAttr(CyclesAttr(), {1});
  w.Comm(7, 7, "app", false, SidAt(7, 1));
  w.Mmap2(Mmap(7, 7, 0x400000, 0x100000, "/bin/app"), SidAt(7, 2));
  std::vector<uint8_t> block;
  while (block.size() < (1u << 20)) AppendSample(&block, 0x401000, 7, 42);
  ZSTD_CStream* cs = ZSTD_createCStream();
  ZSTD_initCStream(cs, 3);
  std::vector<uint8_t> compressed, out(ZSTD_CStreamOutSize());
  const int blocks = kSanitized ? 300 : 600;
  for (int i = 0; i < blocks; ++i) {
    ZSTD_inBuffer ib{block.data(), block.size(), 0};
    while (ib.pos < ib.size) {
      ZSTD_outBuffer ob{out.data(), out.size(), 0};
      ZSTD_compressStream2(cs, &ob, &ib, ZSTD_e_continue);
      compressed.insert(compressed.end(), out.data(), out.data() + ob.pos);
    }
  }
  for (size_t rc = 1; rc != 0;) {
    ZSTD_inBuffer ib{nullptr, 0, 0};
    ZSTD_outBuffer ob{out.data(), out.size(), 0};
    rc = ZSTD_compressStream2(cs, &ob, &ib, ZSTD_e_end);
    compressed.insert(compressed.end(), out.data(), out.data() + ob.pos);
  }
  ZSTD_freeCStream(cs);
  for (size_t off = 0; off < compressed.size(); off += 65000)
    w.Raw(kRecordCompressed, 0, std::span<const uint8_t>(compressed).subspan(off, std::min<size_t>(65000, compressed.size() - off)));
  std::vector<uint8_t> bytes = w.Finish();
  ASSERT_LT(bytes.size(), 1u << 20);
  TempDir dir;
  const std::string file = dir / "bomb.data";
  {
    std::ofstream f(file, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  for (bool sparse : {false, true}) {
    if (sparse) {
    ASSERT_EQ(truncate(file.c_str(), 1LL << 30), 0);
  }
    ChildRun run = RunCli({"report", "-i", file, "--stdio", "--no-children", "--kallsyms", "/dev/null", "--symfs",
                           "/nonexistent"},
                          "/dev/null");
    ASSERT_TRUE(WIFEXITED(run.status)) << run.status << run.err;
    EXPECT_EQ(WEXITSTATUS(run.status), 0) << run.err;
    if (!kSanitized) {
      EXPECT_NE(run.err.find("decompressed data exceeds the 268435456-byte cap"), std::string::npos) << run.err;
      EXPECT_NE(run.err.find("the ordering queue reached 256 MiB"), std::string::npos) << run.err;
      EXPECT_LE(run.max_rss_kb, 512 << 10);
    }
    std::printf("[ memory ] zstd bomb of %zu bytes (%s): peak RSS %ld MB\n", bytes.size(),
                sparse ? "padded sparsely to 1 GB" : "as is", run.max_rss_kb >> 10);
  }
}

// Finding 5: header sections whose counts fit their bytes but cost 8-16x in memory.
// A 256 MB CMDLINE of empty strings, and 2M attrs.
TEST(ReliabilityTest, HeaderSectionsCannotAmplifyMemory) {
  if (access(Cli().c_str(), X_OK) != 0) GTEST_SKIP() << "perflens not built";
  const uint32_t nr = kSanitized ? (8u << 20) : (64u << 20);
  std::vector<uint8_t> cmdline(4 + 4ull * nr, 0);
  std::memcpy(cmdline.data(), &nr, 4);
  PerfDataWriter w;
  w.AddAttr(CyclesAttr(), {1});
  w.AddFeature(kFeatCmdline, std::move(cmdline));
  TempDir dir;
  const std::string file = dir / "cmdline.data";
  {
    std::vector<uint8_t> b = w.Finish();
    std::ofstream f(file, std::ios::binary);
    f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  }
  ChildRun run = RunCli({"header", "-i", file}, "/dev/null");
  ASSERT_TRUE(WIFEXITED(run.status)) << run.err;
  EXPECT_EQ(WEXITSTATUS(run.status), 0) << run.err;
  EXPECT_NE(run.err.find(fmt::format("cmdline: count {} takes the section past 65536 entries", nr)), std::string::npos)
      << run.err;
  EXPECT_EQ(run.err.find("not finished"), std::string::npos) << "a finished file with no records: " << run.err;
  std::printf("[ memory ] %u-string CMDLINE section: peak RSS %ld MB\n", nr, run.max_rss_kb >> 10);
  if (!kSanitized) {
    EXPECT_LE(run.max_rss_kb, 512 << 10);
  }

  // 2M attrs of 80 bytes: refused with the count.
  EXPECT_EQ(OpenError(AttrsOnlyFile(2'000'000, 80)), "<memory>: attrs section at 0x68 holds 2000000 attrs, more than the 65536 events perflens reads");
}

// Finding 6: the input truncated while perflens reads it (here: script blocked on a
// full stdout pipe) raised SIGBUS. Now: exit 1 and the offset that vanished.
TEST(ReliabilityTest, InputShrinkingWhileReadIsAClearError) {
  if (access(Cli().c_str(), X_OK) != 0) GTEST_SKIP() << "perflens not built";
  PerfDataWriter w;
  int ev = w.AddAttr(CyclesAttr(), {1});
  w.Comm(7, 7, "app", false, SidAt(7, 1));
  for (uint64_t t = 0; t < 200000; ++t) w.Sample(ev, At(7, 7, 0x401000, 10 + t));
  std::vector<uint8_t> bytes = w.Finish();
  TempDir dir;
  const std::string file = dir / "shrinks.data", err_path = dir / "err.txt";
  {
    std::ofstream f(file, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  int out[2];
  ASSERT_EQ(pipe(out), 0);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], 1);
    close(out[0]);
    int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(err, 2);
    std::string cli = Cli();
    execl(cli.c_str(), cli.c_str(), "script", "-i", file.c_str(), "--kallsyms", "/dev/null", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  // The first output shows perflens is reading; it then blocks on the full pipe.
  char buf[4096];
  ASSERT_GT(read(out[0], buf, sizeof(buf)), 0);
  ASSERT_EQ(truncate(file.c_str(), 4096), 0);
  while (read(out[0], buf, sizeof(buf)) > 0) {
  }
  close(out[0]);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  std::ifstream e(err_path);
  std::string err((std::istreambuf_iterator<char>(e)), {});
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_NE(err.find("perflens: " + file + ": the file shrank while it was read (no data at offset 0x"),
            std::string::npos)
      << err;
}

// A --kallsyms, --vmlinux or --vdso that cannot be read is refused before the input is
// read, with the path and the reason (perf: "Invalid file: PATH"); it was taken as "no
// kernel symbols" without a word.
TEST(ReliabilityTest, UnreadableSymbolFileOptionIsRefused) {
  if (access(Cli().c_str(), X_OK) != 0) GTEST_SKIP() << "perflens not built";
  TempDir dir;
  const std::string file = dir / "perf.data";
  {
    std::vector<uint8_t> bytes = OneSampleInMap("/bin/a");
    std::ofstream out(file, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  const std::string missing = dir / "missing";
  for (const char* option : {"--kallsyms", "--vmlinux", "--vdso"}) {
    for (const char* command : {"report", "script"}) {
      ChildRun run = RunCli({command, "-i", file, option, missing}, "/dev/null");
      ASSERT_TRUE(WIFEXITED(run.status)) << command << " " << option;
      EXPECT_EQ(WEXITSTATUS(run.status), 129) << command << " " << option << ": " << run.err;
      EXPECT_NE(run.err.find(std::string(option) + ": " + missing + ": No such file or directory"), std::string::npos)
          << run.err;
    }
  }
  // Readable: accepted (an empty kallsyms only leaves the kernel unresolved).
  ChildRun ok = RunCli({"report", "-i", file, "--kallsyms", "/dev/null"}, "/dev/null");
  ASSERT_TRUE(WIFEXITED(ok.status));
  EXPECT_EQ(WEXITSTATUS(ok.status), 0) << ok.err;
}

}  // namespace
}  // namespace perflens::hardening
