#include "cli/pager.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

extern char** environ;

namespace perflens {
namespace {

bool g_want_pager = false;
bool g_started = false;
pid_t g_pager_pid = -1;

// Closes our ends of the pipe so that the pager sees end of input, then waits for it:
// the shell prompt must not come back while the pager still has the terminal.
void WaitForPager() {
  if (g_pager_pid <= 0) return;
  std::fflush(stdout);
  std::fflush(stderr);
  close(1);
  close(2);
  while (waitpid(g_pager_pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  g_pager_pid = -1;
}

// Async-signal-safe part of the above, then the signal's default action.
void WaitForPagerOnSignal(int signo) {
  if (g_pager_pid > 0) {
    close(1);
    close(2);
    while (waitpid(g_pager_pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  signal(signo, SIG_DFL);
  raise(signo);
}

}  // namespace

std::string ChoosePagerCommand(const std::function<const char*(const char*)>& getenv,
                               const std::function<bool(const char*)>& executable) {
  const char* pager = getenv("PERF_PAGER");
  if (!pager) pager = getenv("PAGER");
  if (!pager && executable("/usr/bin/pager")) pager = "/usr/bin/pager";
  if (!pager && executable("/usr/bin/less")) pager = "/usr/bin/less";
  if (!pager || !*pager || std::strcmp(pager, "cat") == 0) return "";
  return pager;
}

void AddPagerFlags(CLI::App* app, PagerChoice* choice) {
  app->add_flag_callback("-P,--no-pager", [choice] { choice->no_pager = true; }, "Do not page the output");
  app->add_flag_callback("-p,--paginate", [choice] { choice->paginate = true; },
                         "Page the output of any command (when stdout is a terminal)");
}

void AddNoPagerFlag(CLI::App* sub, PagerChoice* choice) {
  sub->add_flag_callback("--no-pager", [choice] { choice->no_pager = true; },
                         "Do not page the output (perf: only `perf --no-pager CMD`)");
}

void WantPager(bool pages, const PagerChoice& choice) { g_want_pager = !choice.no_pager && (pages || choice.paginate); }

void StartPagerIfWanted() {
  if (!g_want_pager || g_started) return;
  g_started = true;
  if (!isatty(1)) return;
  const std::string command = ChoosePagerCommand([](const char* name) { return std::getenv(name); },
                                                 [](const char* path) { return access(path, X_OK) == 0; });
  if (command.empty()) return;
  // The child's environment, built here: between fork and exec a threaded process may
  // call only async-signal-safe functions (no setenv).
  std::vector<std::string> env_strings;
  bool has_less = false;
  for (char** e = environ; e && *e; ++e) {
    has_less |= std::strncmp(*e, "LESS=", 5) == 0;
    env_strings.emplace_back(*e);
  }
  if (!has_less) env_strings.emplace_back("LESS=FRSX");
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  const char* argv[] = {"sh", "-c", command.c_str(), nullptr};

  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return;
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return;
  }
  if (pid == 0) {
    dup2(fds[0], 0);  // dup2 clears O_CLOEXEC on the copy
    // As perf: start the pager only once there is input (a `less` quirk).
    fd_set in, ex;
    FD_ZERO(&in);
    FD_SET(0, &in);
    ex = in;
    select(1, &in, nullptr, &ex, nullptr);
    execve("/bin/sh", const_cast<char**>(argv), envp.data());
    _exit(127);
  }
  g_pager_pid = pid;
  dup2(fds[1], 1);
  if (isatty(2)) dup2(fds[1], 2);
  close(fds[0]);
  close(fds[1]);
  for (int signo : {SIGINT, SIGHUP, SIGTERM, SIGQUIT, SIGPIPE}) signal(signo, WaitForPagerOnSignal);
  std::atexit(WaitForPager);
}

}  // namespace perflens
