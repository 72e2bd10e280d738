// syscalls.c: spends its time in the kernel: open/read/write/close on /dev/zero and
// /dev/null, so most samples are [k] rows in [kernel.kallsyms].
// Usage: syscalls [seconds]   (default 0.4)
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double Now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static char g_buf[65536];

int main(int argc, char** argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 0.4;
  double start = Now();
  long bytes = 0;
  while (Now() - start < seconds) {
    for (int i = 0; i < 50; i++) {
      int zero = open("/dev/zero", O_RDONLY);
      int null = open("/dev/null", O_WRONLY);
      if (zero < 0 || null < 0) return 1;
      bytes += read(zero, g_buf, sizeof g_buf);
      bytes += write(null, g_buf, sizeof g_buf);
      close(zero);
      close(null);
      getppid();
    }
  }
  printf("syscalls: %ld bytes\n", bytes);
  return 0;
}
