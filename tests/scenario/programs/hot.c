// hot.c: three hot functions with a fixed 3:2:1 share of the work. Built as PIE,
// non-PIE, static and stripped-with-debuglink by the scenario tests.
// Usage: hot [seconds]   (default 0.4)
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double Now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) unsigned long hash_mix(unsigned long x, int n) {
  for (int i = 0; i < n; i++) {
    x ^= x >> 13;
    x *= 0x9E3779B97F4A7C15ul;
    x ^= x << 7;
  }
  return x;
}

__attribute__((noinline)) double polynomial(double x, int n) {
  double acc = 0;
  for (int i = 0; i < n; i++) acc = acc * x + i * 0.5;
  return acc;
}

static long g_array[4096];

__attribute__((noinline)) long walk_array(int n) {
  long sum = 0;
  for (int i = 0; i < n; i++) sum += g_array[(i * 67) & 4095];
  return sum;
}

int main(int argc, char** argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 0.4;
  for (int i = 0; i < 4096; i++) g_array[i] = i * 3;
  volatile double sink = 0;
  double start = Now();
  while (Now() - start < seconds) {
    sink += (double)hash_mix((unsigned long)sink + 1, 300000);
    sink += polynomial(0.999, 200000);
    sink += (double)walk_array(300000);
  }
  printf("hot: %g\n", (double)sink);
  return 0;
}
