// dwarf_fork.c: fork(), then work in both processes, for the kernel+user
// `--call-graph dwarf` replay fixture dwarf_fork (../fixtures/README.md). Parent:
// main -> ParentWork -> Crunch (user) ; child: main -> ChildWork -> ReadZeros -> read(2)
// (kernel frames under the unwound user stack) and -> Crunch. The parent waits.
// Usage: dwarf_fork [seconds]   (default 0.3)
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned long g_sink;
static char g_buf[1 << 16];

static double Now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}
NOINLINE static unsigned long Crunch(unsigned long x, int n) {
  for (int i = 0; i < n; i++) x = x * 6364136223846793005ul + 1442695040888963407ul;
  return x;
}
NOINLINE static void ReadZeros(int fd) {
  for (int i = 0; i < 16; i++)
    if (read(fd, g_buf, sizeof g_buf) < 0) abort();
  g_sink += g_buf[100];
}
NOINLINE static void ChildWork(double seconds) {
  int fd = open("/dev/zero", O_RDONLY);
  if (fd < 0) abort();
  double start = Now();
  while (Now() - start < seconds) {
    ReadZeros(fd);
    g_sink += Crunch(g_sink, 100000);
  }
  close(fd);
}
NOINLINE static void ParentWork(double seconds) {
  double start = Now();
  while (Now() - start < seconds) g_sink += Crunch(g_sink, 50000);
}

int main(int argc, char** argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 0.3;
  pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid == 0) {
    ChildWork(seconds);
    _exit(0);
  }
  ParentWork(seconds);
  int status = 0;
  waitpid(pid, &status, 0);
  printf("dwarf_fork: child exited %d\n", WEXITSTATUS(status));
  return 0;
}
