// perflens writes no files: the local vdso image lives in a memfd. A report run leaves
// $TMPDIR as it found it, and so does a process killed by any signal.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "hardening/hardening_util.h"
#include "symbolize/vdso.h"

namespace perflens::hardening {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> List(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  return names;
}

// A recording with a sample in the 64-bit [vdso] carrying this machine's vdso build-id,
// so that symbolization loads the local vdso and uses it.
std::optional<std::vector<uint8_t>> VdsoRecording() {
  LocalVdsos vdsos;
  auto local = vdsos.Get(DsoKind::kVdso);
  if (!local.ok() || local->build_id.empty()) return std::nullopt;
  std::vector<uint8_t> bid(local->build_id.bytes.begin(), local->build_id.bytes.begin() + local->build_id.size);
  return OneSampleInMap("[vdso]", 42, 0x7fff12340000, bid);
}

// Sets $TMPDIR for the scope.
class ScopedTmpdir {
 public:
  explicit ScopedTmpdir(const std::string& dir) {
    if (const char* old = getenv("TMPDIR")) old_ = old;
    setenv("TMPDIR", dir.c_str(), 1);
  }
  ~ScopedTmpdir() {
    if (old_) setenv("TMPDIR", old_->c_str(), 1);
    else unsetenv("TMPDIR");
  }

 private:
  std::optional<std::string> old_;
};

// In a child: load the local vdso, then die of `sig`. perflens writes no file, so
// nothing is left in $TMPDIR whatever ends the process (issue #10 finding 7: QUIT,
// SEGV, ABRT, BUS, ALRM, XCPU and KILL used to leave the temp copy behind).
void ExpectNothingLeftOnSignal(int sig) {
  TempDir tmp;
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    setenv("TMPDIR", tmp.path().c_str(), 1);
    signal(sig, SIG_DFL);
    LocalVdsos vdsos;
    auto local = vdsos.Get(DsoKind::kVdso);
    if (!local.ok()) _exit(77);
    if (access(local->path.c_str(), R_OK) != 0) _exit(78);
    raise(sig);
    _exit(79);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 77) GTEST_SKIP() << "no local vdso";
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), sig);
  EXPECT_TRUE(List(tmp.path()).empty());
}

TEST(TempFilesTest, NothingLeftOnSigkill) { ExpectNothingLeftOnSignal(SIGKILL); }
TEST(TempFilesTest, NothingLeftOnSigquit) { ExpectNothingLeftOnSignal(SIGQUIT); }
TEST(TempFilesTest, NothingLeftOnSigterm) { ExpectNothingLeftOnSignal(SIGTERM); }

// The CLI: `perflens report` on a recording with a [vdso] sample, $TMPDIR fresh.
TEST(TempFilesTest, ReportRunLeavesNoNewFiles) {
  const std::string cli = std::string(PERFLENS_BINARY_DIR) + "/src/cli/perflens";
  if (access(cli.c_str(), X_OK) != 0) GTEST_SKIP() << "perflens not built: " << cli;
  TempDir work, tmp, symfs;
  std::string data = work / "perf.data";
  {
    ScopedTmpdir env(tmp.path());
    auto bytes = VdsoRecording();
    if (!bytes) GTEST_SKIP() << "no local vdso with a build-id";
    std::ofstream(data, std::ios::binary).write(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  }
  ASSERT_TRUE(List(tmp.path()).empty());
  // No --symfs: under one, this machine's own vdso is never read.
  std::string cmd = fmt::format("TMPDIR='{}' '{}' report --stdio -i '{}' --buildid-dir '{}' "
                                "--kallsyms /dev/null >'{}' 2>&1",
                                tmp.path(), cli, data, symfs.path(), work / "out.txt");
  ASSERT_EQ(system(cmd.c_str()), 0) << cmd;
  std::ifstream in(work / "out.txt");
  std::string out((std::istreambuf_iterator<char>(in)), {});
  EXPECT_TRUE(HasRow(out, "100.00% victim [vdso]")) << out;
  EXPECT_EQ(out.find("perflens: [vdso]"), std::string::npos) << out;  // no load problem
  EXPECT_TRUE(List(tmp.path()).empty());
  EXPECT_TRUE(List(symfs.path()).empty());
  std::vector<std::string> names = List(work.path());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"out.txt", "perf.data"}));
}

}  // namespace
}  // namespace perflens::hardening
