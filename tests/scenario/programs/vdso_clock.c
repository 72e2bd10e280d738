// vdso_clock.c: calls clock_gettime(CLOCK_MONOTONIC) in a tight loop, so most samples
// land in the vDSO (__vdso_clock_gettime) and glibc's clock_gettime wrapper.
// Built 64-bit and, when gcc-multilib is installed, 32-bit (-m32).
// Usage: vdso_clock [seconds]   (default 0.4)
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char** argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 0.4;
  struct timespec start, ts;
  clock_gettime(CLOCK_MONOTONIC, &start);
  unsigned long calls = 0;
  do {
    clock_gettime(CLOCK_MONOTONIC, &ts);
    calls++;
  } while ((ts.tv_sec - start.tv_sec) + (ts.tv_nsec - start.tv_nsec) * 1e-9 < seconds);
  printf("vdso_clock: %lu calls\n", calls);
  return 0;
}
