// debuginfod (issue #14): perflens fetches a binary it cannot find locally from a real
// `debuginfod` server (Debian package `debuginfod`) started here on a free port,
// serving a directory with the `pie` replay fixture's binary. The recording is read
// with an empty --buildid-dir and --symfs, so nothing local resolves `hot`; the
// output must then equal the fixture's golden (made with the local files), the file
// must be in the client cache (DEBUGINFOD_CACHE_PATH, a temp dir), and a second run
// with the server stopped must resolve from that cache. Without a URL nothing is
// fetched and no cache directory appears; a server that refuses connections is one
// explained line, not a hang. Every run sets DEBUGINFOD_URLS itself (ctest also
// empties it for all tests), so no test reaches beyond 127.0.0.1. Without the
// `debuginfod` binary the server tests skip.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "scenario_util.h"

namespace perflens::scenario {
namespace {

constexpr const char* kFixture = "pie";
constexpr const char* kHotBuildId = "2b482a6195ca77afbbd9d3654f9e24c39573ed47";
// The `vdso` fixture's [vdso] (rewritten to a build-id no kernel has: vdso_fixture_test.cc).
constexpr const char* kVdsoFixture = "vdso";
constexpr const char* kVdsoBuildId = "fee1deadfee1deadfee1deadfee1deadfee1dead";
constexpr const char* kSelfArgs =
    "report --stdio --no-children -F overhead,sample,period,comm,dso,sym -g none --percent-limit 0 -t '|'";
// modes.txt's `srcline` mode (expected-srcline.txt).
constexpr const char* kSrclineArgs = "report --stdio --no-children --sort sym,srcline -g none --percent-limit 0 -t '|'";

std::string FixturesDir() { return ScenarioSourceDir() + "/fixtures"; }
std::string HotBinary() {
  return FixturesDir() + "/cache/tmp/perflens-fixture/bin/hot/" + kHotBuildId + "/elf";
}
std::string VdsoImage() { return FixturesDir() + "/cache/[vdso]/" + kVdsoBuildId + "/vdso"; }

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string DebuginfodBinary() {
  for (const char* p : {"/usr/bin/debuginfod", "/usr/local/bin/debuginfod"})
    if (access(p, X_OK) == 0) return p;
  return "";
}

// A port nothing listens on right now (the kernel's choice for port 0).
int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof a;
  int port = -1;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  close(fd);
  return port;
}

// The HTTP status of GET `path` on 127.0.0.1:`port` (HEAD would do, but debuginfod
// answers GET for certain), -1 when nothing answers within a few seconds.
int HttpStatus(int port, const std::string& path) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  timeval tv{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(port));
  int status = -1;
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
    std::string req = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    if (send(fd, req.data(), req.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(req.size())) {
      char buf[64] = {};
      ssize_t n = recv(fd, buf, sizeof buf - 1, 0);
      // "HTTP/1.1 200 OK"
      if (n > 12 && std::string(buf, 5) == "HTTP/") status = std::atoi(buf + 9);
    }
  }
  close(fd);
  return status;
}

// A debuginfod child process serving `dir`, killed (and waited for) by Stop or the
// destructor. Its own upstream (DEBUGINFOD_URLS) is removed: it must not federate.
class DebuginfodServer {
 public:
  ~DebuginfodServer() { Stop(); }

  // Starts the server on a free port and waits until it serves every `ready_paths`. Tries a
  // few ports (another process may take the one chosen before the server binds it).
  // Returns "" or why it failed.
  std::string Start(const std::string& binary, const std::string& dir, const std::string& work,
                    const std::vector<std::string>& ready_paths) {
    std::string why;
    for (int attempt = 0; attempt < 5; ++attempt) {
      port_ = FreePort();
      if (port_ <= 0) return "no free port";
      std::string db = work + "/db" + std::to_string(attempt) + ".sqlite";
      log_ = work + "/server" + std::to_string(attempt) + ".log";
      pid_ = fork();
      if (pid_ < 0) return "fork failed";
      if (pid_ == 0) {
        int fd = open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) {
          dup2(fd, 1);
          dup2(fd, 2);
        }
        unsetenv("DEBUGINFOD_URLS");
        std::string port = std::to_string(port_);
        // -F: scan ELF files under dir; -t 0: one scan; -g 0: no grooming; -c 1: one
        // scanning thread (2 slow cores, shared).
        execl(binary.c_str(), binary.c_str(), "-F", "-p", port.c_str(), "-d", db.c_str(), "-t", "0", "-g", "0", "-c",
              "1", dir.c_str(), static_cast<char*>(nullptr));
        _exit(127);
      }
      // Generous: CI runs this under ASan on two loaded cores.
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
      while (std::chrono::steady_clock::now() < deadline) {
        int status = 0;
        if (waitpid(pid_, &status, WNOHANG) == pid_) {
          pid_ = -1;
          why = "debuginfod exited: " + ReadFileOrEmpty(log_).substr(0, 400);
          break;
        }
        bool ready = true;
        for (const std::string& path : ready_paths) ready = ready && HttpStatus(port_, path) == 200;
        if (ready) return "";
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
      }
      if (pid_ > 0) {
        Stop();
        return "debuginfod did not serve " + ready_paths.back() + " within 120 s: " +
               ReadFileOrEmpty(log_).substr(0, 400);
      }
    }
    return why;
  }

  void Stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    int status = 0;
    for (int i = 0; i < 100; ++i) {  // 10 s, then SIGKILL
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, &status, 0);
    pid_ = -1;
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }

 private:
  pid_t pid_ = -1;
  int port_ = -1;
  std::string log_;
};

class DebuginfodTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The pid keeps parallel test processes apart.
    std::string tmpl_s = "/tmp/perflens-debuginfod-" + std::to_string(getpid()) + "-XXXXXX";
    std::vector<char> tmpl(tmpl_s.begin(), tmpl_s.end());
    tmpl.push_back('\0');
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl.data();
    for (const char* sub : {"/home", "/symfs", "/buildid", "/served"})
      ASSERT_EQ(mkdir((dir_ + sub).c_str(), 0700), 0);
  }
  void TearDown() override {
    server_.Stop();
    RunShell("rm -rf " + ShellQuote(dir_), "/tmp");
  }

  // perflens report on the pie fixture with nothing local: `env` are extra
  // environment assignments (DEBUGINFOD_*), `extra` extra options.
  CommandResult Perflens(const std::string& env, const std::string& extra = "", const std::string& symfs = "",
                         const std::string& fixture = kFixture, const std::string& args = kSelfArgs) {
    return RunShell("env -u PERF_BUILDID_DIR -u DEBUGINFOD_URLS -u DEBUGINFOD_CACHE_PATH -u DEBUGINFOD_TIMEOUT HOME=" +
                        ShellQuote(dir_ + "/home") + " " + env + " " + ShellQuote(PerflensBinary()) + " " +
                        args + " -i " + ShellQuote(FixturesDir() + "/" + fixture + "/perf.data") +
                        " --buildid-dir " + ShellQuote(dir_ + "/buildid") + " --symfs " +
                        ShellQuote(symfs.empty() ? dir_ + "/symfs" : symfs) + " " + extra,
                    dir_);
  }
  static std::string Golden(const std::string& fixture = kFixture, const std::string& mode = "self") {
    return ReadFileOrEmpty(FixturesDir() + "/" + fixture + "/expected-" + mode + ".txt");
  }

  // Starts the server over a copy of the fixture binary, or says why not (skip).
  std::string StartServer() {
    std::string binary = DebuginfodBinary();
    if (binary.empty()) return "no debuginfod binary (Debian package debuginfod; scripts/install-deps.sh installs it)";
    CommandResult cp = RunShell("cp " + ShellQuote(HotBinary()) + " " + ShellQuote(dir_ + "/served/hot") + " && cp " +
                                    ShellQuote(VdsoImage()) + " " + ShellQuote(dir_ + "/served/vdso.so"),
                                dir_);
    if (cp.exit_code != 0) return "cannot copy the fixture binaries: " + cp.err;
    std::string why = server_.Start(binary, dir_ + "/served", dir_,
                                    {std::string("/buildid/") + kHotBuildId + "/executable",
                                     std::string("/buildid/") + kVdsoBuildId + "/executable"});
    if (!why.empty()) ADD_FAILURE() << why;
    return why;
  }

  std::string dir_;
  DebuginfodServer server_;
};

TEST_F(DebuginfodTest, FetchesMissingBinaryIntoClientCacheAndReusesIt) {
  std::string why = StartServer();
  if (!why.empty()) GTEST_SKIP() << why;
  std::string cache = dir_ + "/client-cache";
  std::string env = "DEBUGINFOD_URLS=" + ShellQuote(server_.url()) + " DEBUGINFOD_CACHE_PATH=" + ShellQuote(cache);

  // Without debuginfod nothing resolves `hot` (the precondition of the test).
  CommandResult local = Perflens("");
  ASSERT_EQ(local.exit_code, 0) << local.err;
  ASSERT_NE(local.out, Golden());

  CommandResult fetched = Perflens(env);
  ASSERT_EQ(fetched.exit_code, 0) << fetched.err;
  EXPECT_EQ(fetched.out, Golden()) << fetched.err;
  EXPECT_TRUE(Exists(cache + "/" + kHotBuildId + "/executable")) << fetched.err;
  EXPECT_NE(fetched.err.find("debuginfod: fetched 1 file"), std::string::npos) << fetched.err;
  EXPECT_NE(fetched.err.find(server_.url()), std::string::npos) << fetched.err;

  // The binary stripped in --symfs: its .symtab comes from the server's debug file.
  std::string symfs = dir_ + "/stripped";
  std::string bin_dir = symfs + "/tmp/perflens-fixture/bin";
  CommandResult strip = RunShell("mkdir -p " + ShellQuote(bin_dir) + " && objcopy --strip-all " +
                                     ShellQuote(HotBinary()) + " " + ShellQuote(bin_dir + "/hot"),
                                 dir_);
  if (strip.exit_code == 0) {
    std::string cache2 = dir_ + "/client-cache2";
    CommandResult debuginfo = Perflens("DEBUGINFOD_URLS=" + ShellQuote(server_.url()) +
                                           " DEBUGINFOD_CACHE_PATH=" + ShellQuote(cache2),
                                       "", symfs);
    ASSERT_EQ(debuginfo.exit_code, 0) << debuginfo.err;
    EXPECT_EQ(debuginfo.out, Golden()) << debuginfo.err;
    EXPECT_TRUE(Exists(cache2 + "/" + kHotBuildId + "/debuginfo")) << debuginfo.err;
    EXPECT_FALSE(Exists(cache2 + "/" + kHotBuildId + "/executable")) << debuginfo.err;
  } else {
    ADD_FAILURE() << "objcopy --strip-all failed: " << strip.err;
  }

  // The binary without DWARF in --symfs (.symtab kept): its source lines come from the
  // server's debug file, fetched only when the srcline key first asks.
  std::string nodwarf = dir_ + "/nodwarf";
  CommandResult strip_debug = RunShell("mkdir -p " + ShellQuote(nodwarf + "/tmp/perflens-fixture/bin") +
                                           " && objcopy --strip-debug " + ShellQuote(HotBinary()) + " " +
                                           ShellQuote(nodwarf + "/tmp/perflens-fixture/bin/hot"),
                                       dir_);
  ASSERT_EQ(strip_debug.exit_code, 0) << strip_debug.err;
  std::string cache3 = dir_ + "/client-cache3";
  std::string env3 = "DEBUGINFOD_URLS=" + ShellQuote(server_.url()) + " DEBUGINFOD_CACHE_PATH=" + ShellQuote(cache3);
  CommandResult symbols_only = Perflens(env3, "", nodwarf);
  ASSERT_EQ(symbols_only.exit_code, 0) << symbols_only.err;
  EXPECT_EQ(symbols_only.out, Golden()) << symbols_only.err;
  EXPECT_FALSE(Exists(cache3 + "/" + kHotBuildId + "/debuginfo")) << "fetched without need";
  CommandResult lines = Perflens(env3, "", nodwarf, kFixture, kSrclineArgs);
  ASSERT_EQ(lines.exit_code, 0) << lines.err;
  EXPECT_EQ(lines.out, Golden(kFixture, "srcline")) << lines.err;
  EXPECT_TRUE(Exists(cache3 + "/" + kHotBuildId + "/debuginfo")) << lines.err;

  // The vdso image by its build-id: the [vdso] rows equal the golden's (made with the
  // image in the fixture cache); the program and libc are not served.
  CommandResult vdso = Perflens(env, "", "", kVdsoFixture);
  ASSERT_EQ(vdso.exit_code, 0) << vdso.err;
  auto vdso_rows = [](const std::string& text) {
    std::string rows;
    for (const std::string& line : SplitLines(text))
      if (line.find("|[vdso]") != std::string::npos) rows += line + "\n";
    return rows;
  };
  EXPECT_NE(vdso_rows(Golden(kVdsoFixture)), "");
  EXPECT_EQ(vdso_rows(vdso.out), vdso_rows(Golden(kVdsoFixture))) << vdso.err;
  EXPECT_TRUE(Exists(cache + "/" + kVdsoBuildId + "/executable")) << vdso.err;

  // Server gone: the client cache answers, through --debuginfod this time.
  server_.Stop();
  CommandResult cached =
      Perflens("DEBUGINFOD_CACHE_PATH=" + ShellQuote(cache), "--debuginfod " + ShellQuote(server_.url()));
  ASSERT_EQ(cached.exit_code, 0) << cached.err;
  EXPECT_EQ(cached.out, Golden()) << cached.err;
}

TEST_F(DebuginfodTest, NoUrlFetchesNothing) {
  std::string cache = dir_ + "/client-cache";
  for (const std::string& urls : {std::string(""), std::string("DEBUGINFOD_URLS=")}) {
    CommandResult r = Perflens(urls + " DEBUGINFOD_CACHE_PATH=" + ShellQuote(cache));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out, Golden());
    // (The temp dir's name holds "debuginfod" too.)
    EXPECT_EQ(r.err.find("debuginfod:"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("debuginfod executable"), std::string::npos) << r.err;
    EXPECT_FALSE(Exists(cache)) << "libdebuginfod was called without a URL";
  }
}

TEST_F(DebuginfodTest, ServerDownIsOneExplainedLine) {
  int port = FreePort();  // nothing listens there
  ASSERT_GT(port, 0);
  std::string url = "http://127.0.0.1:" + std::to_string(port);
  auto start = std::chrono::steady_clock::now();
  CommandResult r = Perflens("DEBUGINFOD_URLS=" + ShellQuote(url) + " DEBUGINFOD_CACHE_PATH=" +
                             ShellQuote(dir_ + "/client-cache"));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out, Golden());
  EXPECT_NE(r.err.find("debuginfod: fetched 0 files"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("failed"), std::string::npos) << r.err;
  EXPECT_LT(seconds, 60) << "a refused connection must not wait for the timeout";
}

}  // namespace
}  // namespace perflens::scenario
