// callchain_vdso.c: a hot loop in the vDSO reached through two callers, so the
// [vdso] frames (__vdso_clock_gettime, __vdso_gettimeofday) sit under distinct user
// stacks: main -> TimeMonotonic -> clock_gettime and main -> TimeOfDay -> gettimeofday.
// Usage: callchain_vdso [seconds]   (default 0.4)
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static volatile long g_sink;

NOINLINE static double TimeMonotonic(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}
NOINLINE static long TimeOfDay(void) {
  struct timeval tv;
  gettimeofday(&tv, NULL);
  return tv.tv_usec;
}
NOINLINE static void Burst(int n) {
  for (int i = 0; i < n; i++) g_sink += TimeOfDay();
}

int main(int argc, char** argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 0.4;
  double start = TimeMonotonic();
  unsigned long calls = 0;
  while (TimeMonotonic() - start < seconds) {
    Burst(3);
    calls += 4;
  }
  printf("callchain_vdso: %lu calls\n", calls);
  return 0;
}
