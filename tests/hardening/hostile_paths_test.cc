// Hostile paths named by MMAP2 records: a FIFO, a device, /proc/self/mem, a directory,
// a huge sparse file. Symbolization opens only regular files within size limits and
// never blocks: each report finishes (alarm() kills a blocked test) and prints the dso
// with an unresolved address. With --symfs, data paths never leave the symfs root.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "hardening/hardening_util.h"

namespace perflens::hardening {
namespace {

namespace fs = std::filesystem;

// Kills the test binary (SIGALRM) if a report blocks.
class AlarmGuard {
 public:
  explicit AlarmGuard(unsigned secs) { alarm(secs); }
  ~AlarmGuard() { alarm(0); }
};

// Asserts the report of a sample in a map of `path` finishes and shows the sample in
// dso `short_name` unresolved: map at 0x400000 with pgoff 0, ip 0x401234 → file offset
// 0x1234, printed as perf prints an address without a symbol.
void ExpectUnresolved(const std::string& path, const std::string& short_name, SymbolizeOptions so = {}) {
  AlarmGuard guard(60);
  ReportRun run = RunReport(OneSampleInMap(path), so);
  ASSERT_EQ(run.open_error, "");
  EXPECT_TRUE(HasRow(run.out, "100.00% victim " + short_name + " [.] 0x0000000000001234")) << run.out;
}

TEST(HostilePathsTest, Fifo) {
  TempDir dir;
  std::string fifo = dir / "fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  ExpectUnresolved(fifo, "fifo");
}

// perf treats a /dev/zero mapping as anonymous memory: executable → JIT code described
// by /tmp/perf-PID.map (identity map, so the raw ip is printed). Here that map file is
// a FIFO, which must not block either.
TEST(HostilePathsTest, DevZeroAndFifoPerfMap) {
  const uint32_t pid = 1500000000u + static_cast<uint32_t>(getpid()) % 100000000u;
  const std::string map = fmt::format("/tmp/perf-{}.map", pid);
  unlink(map.c_str());
  ASSERT_EQ(mkfifo(map.c_str(), 0600), 0);
  AlarmGuard guard(60);
  ReportRun run = RunReport(OneSampleInMap("/dev/zero", pid));
  unlink(map.c_str());
  EXPECT_TRUE(HasRow(run.out, fmt::format("100.00% victim [JIT] tid {} [.] 0x0000000000401234", pid))) << run.out;
}

TEST(HostilePathsTest, DevZeroAsNonExecData) {
  // A mapping named like a device that perf does not call anonymous.
  ExpectUnresolved("/dev/null", "null");
}

TEST(HostilePathsTest, ProcSelfMem) { ExpectUnresolved("/proc/self/mem", "mem"); }

TEST(HostilePathsTest, Directory) {
  TempDir dir;
  ASSERT_TRUE(fs::create_directory(dir / "lib.so"));
  ExpectUnresolved(dir / "lib.so", "lib.so");
}

// 3 GiB sparse file starting with an ELF header: over the 2 GiB ELF size limit.
TEST(HostilePathsTest, HugeSparseFile) {
  TempDir dir;
  std::string big = dir / "huge.so";
  int fd = open(big.c_str(), O_CREAT | O_WRONLY, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "\x7f" "ELF\x02\x01\x01", 7), 7);
  if (ftruncate(fd, 3LL << 30) != 0) {
    close(fd);
    GTEST_SKIP() << "no sparse files here";
  }
  close(fd);
  ExpectUnresolved(big, "huge.so");
}

// The same hostile paths under --symfs: the symfs copy is what is opened.
TEST(HostilePathsTest, FifoUnderSymfs) {
  TempDir symfs;
  fs::create_directories(symfs / "usr/lib");
  ASSERT_EQ(mkfifo((symfs / "usr/lib/libfifo.so").c_str(), 0600), 0);
  SymbolizeOptions so;
  so.symfs = symfs.path();
  ExpectUnresolved("/usr/lib/libfifo.so", "libfifo.so", so);
}

// A small ELF with a known function, compiled with the system C compiler.
struct TargetElf {
  std::string path;
  uint64_t fn_offset = 0;  // file offset of target_fn (PIE: text p_vaddr == p_offset)
};

std::optional<TargetElf> BuildTargetElf(const std::string& dir) {
  std::string src = dir + "/t.c", bin = dir + "/app";
  FILE* f = fopen(src.c_str(), "w");
  if (!f) return std::nullopt;
  fputs("int target_fn(int x) { return x * 3 + 1; }\nint main(int c, char** v) { return target_fn(c); }\n", f);
  fclose(f);
  if (system(("cc -O0 -fPIE -pie -o " + bin + " " + src + " 2>/dev/null").c_str()) != 0) return std::nullopt;
  FILE* nm = popen(("nm " + bin + " 2>/dev/null").c_str(), "r");
  if (!nm) return std::nullopt;
  char line[512];
  TargetElf t{bin, 0};
  while (fgets(line, sizeof line, nm)) {
    unsigned long long addr;
    char type, name[256];
    if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 && std::string(name) == "target_fn") t.fn_offset = addr;
  }
  pclose(nm);
  if (t.fn_offset == 0 || t.fn_offset >= 0x10000) return std::nullopt;
  return t;
}

class SymfsEscapeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(tmp_ / "outside");
    fs::create_directories(tmp_ / "symfs/bin");
    auto t = BuildTargetElf(tmp_ / "outside");
    if (!t) GTEST_SKIP() << "no C compiler / nm";
    target_ = *t;
  }
  // Report of one sample at target_fn in a map of `mmap_path`, with --symfs.
  std::string Report(const std::string& mmap_path) {
    AlarmGuard guard(60);
    auto bytes = OneSampleInMap(mmap_path);
    // OneSampleInMap samples at 0x401234: move the ip onto target_fn instead.
    const uint64_t old_ip = 0x401234, new_ip = 0x400000 + target_.fn_offset;
    for (size_t i = 0; i + 8 <= bytes.size(); ++i) {
      if (std::memcmp(bytes.data() + i, &old_ip, 8) == 0) std::memcpy(bytes.data() + i, &new_ip, 8);
    }
    SymbolizeOptions so;
    so.symfs = tmp_ / "symfs";
    return RunReport(bytes, so).out;
  }
  TempDir tmp_;
  TargetElf target_;
};

TEST_F(SymfsEscapeTest, FileInsideSymfsResolves) {
  fs::copy_file(target_.path, tmp_ / "symfs/bin/app");
  std::string out = Report("/bin/app");
  EXPECT_NE(out.find("[.] target_fn"), std::string::npos) << out;
}

TEST_F(SymfsEscapeTest, DotDotDoesNotEscape) {
  for (const char* path : {"/../outside/app", "/bin/../../outside/app", "../outside/app"}) {
    SCOPED_TRACE(path);
    std::string out = Report(path);
    EXPECT_EQ(out.find("target_fn"), std::string::npos) << out;
    EXPECT_NE(out.find("[.] 0x"), std::string::npos) << out;
  }
}

TEST_F(SymfsEscapeTest, AbsoluteSymlinkDoesNotEscape) {
  fs::create_symlink(target_.path, tmp_ / "symfs/bin/app");
  std::string out = Report("/bin/app");
  EXPECT_EQ(out.find("target_fn"), std::string::npos) << out;
  EXPECT_TRUE(HasRow(out, fmt::format("100.00% victim app [.] 0x{:016x}", target_.fn_offset))) << out;
}

TEST_F(SymfsEscapeTest, RelativeSymlinkDoesNotEscape) {
  fs::create_symlink("../../outside/app", tmp_ / "symfs/bin/app");
  std::string out = Report("/bin/app");
  EXPECT_EQ(out.find("target_fn"), std::string::npos) << out;
}

TEST_F(SymfsEscapeTest, SymlinkedDirectoryDoesNotEscape) {
  fs::remove(tmp_ / "symfs/bin");
  fs::create_directory_symlink(tmp_ / "outside", tmp_ / "symfs/bin");
  std::string out = Report("/bin/app");
  EXPECT_EQ(out.find("target_fn"), std::string::npos) << out;
}

}  // namespace
}  // namespace perflens::hardening
