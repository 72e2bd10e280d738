// callchain_syscalls.c: spends most of its time in the kernel through several user
// callers (ReadZero, WriteNull, StatPaths, PipePingPong), so call graphs have deep
// [kernel.kallsyms] chains (entry_SYSCALL_64 -> do_syscall_64 -> ksys_read -> ...)
// joined to distinct user stacks. Usage: callchain_syscalls [seconds]   (default 0.4)
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static char g_buf[32768];
static long g_bytes;

static double Now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}
NOINLINE static void ReadZero(int fd) { g_bytes += read(fd, g_buf, sizeof g_buf); }
NOINLINE static void WriteNull(int fd) { g_bytes += write(fd, g_buf, sizeof g_buf); }
NOINLINE static void StatPaths(void) {
  struct stat st;
  static const char* const kPaths[] = {"/", "/tmp", "/usr/bin", "/proc/self/status"};
  for (int i = 0; i < 4; i++) g_bytes += stat(kPaths[i], &st) == 0 ? 1 : 0;
}
NOINLINE static void PipePingPong(int fds[2]) {
  g_bytes += write(fds[1], g_buf, 512);
  g_bytes += read(fds[0], g_buf, 512);
}
NOINLINE static void OpenClose(void) {
  int fd = open("/dev/null", O_RDONLY);
  if (fd >= 0) close(fd);
}

int main(int argc, char** argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 0.4;
  int zero = open("/dev/zero", O_RDONLY), null = open("/dev/null", O_WRONLY);
  int fds[2];
  if (zero < 0 || null < 0 || pipe(fds) != 0) return 1;
  double start = Now();
  while (Now() - start < seconds) {
    for (int i = 0; i < 20; i++) {
      ReadZero(zero);
      WriteNull(null);
      StatPaths();
      PipePingPong(fds);
      OpenClose();
    }
  }
  printf("callchain_syscalls: %ld\n", g_bytes);
  return 0;
}
