// A tiny CPU-bound workload for the perflens demo: a few hot functions with distinct
// costs, called from a loop that checks the clock (clock_gettime goes through the vdso).
// Build: cc -O1 -g -fno-omit-frame-pointer -fno-inline -o workload workload.c
// Run:   ./workload [milliseconds]    (default 300)
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

static uint64_t NowNs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

// Hot function 1: an integer hash loop.
__attribute__((noinline)) static uint64_t HashMix(uint64_t x, int rounds) {
  for (int i = 0; i < rounds; ++i) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 29;
  }
  return x;
}

// Hot function 2: floating point.
__attribute__((noinline)) static double Polynomial(double x, int terms) {
  double acc = 0, p = 1;
  for (int i = 0; i < terms; ++i) {
    acc += p / (i + 1);
    p *= x;
  }
  return acc;
}

// Hot function 3: a strided memory walk (the modulo makes it the most expensive).
__attribute__((noinline)) static uint64_t WalkArray(const uint32_t* a, size_t n) {
  uint64_t s = 0;
  for (size_t i = 0; i < n; ++i) s += a[(i * 7) % n];
  return s;
}

__attribute__((noinline)) static void DoWork(const uint32_t* a, size_t n) {
  sink += HashMix(sink + 1, 6000);
  sink += (uint64_t)Polynomial(0.999, 1500);
  sink += WalkArray(a, n);
}

int main(int argc, char** argv) {
  long ms = argc > 1 ? strtol(argv[1], NULL, 10) : 300;
  enum { kN = 4096 };
  static uint32_t array[kN];
  for (size_t i = 0; i < kN; ++i) array[i] = (uint32_t)(i * 2654435761u);
  const uint64_t end = NowNs() + (uint64_t)ms * 1000000u;
  uint64_t iterations = 0;
  while (NowNs() < end) {
    DoWork(array, kN);
    ++iterations;
  }
  printf("workload: %llu iterations in %ld ms\n", (unsigned long long)iterations, ms);
  return 0;
}
