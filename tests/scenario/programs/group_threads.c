// group_threads.c: the main thread and two workers each spin for a fixed time, so that
// `perf record -s` (inherit_stat) writes a PERF_RECORD_READ per worker and counter when
// it exits (the per-thread counts of `perf report -T`).
// Usage: group_threads [seconds per thread]   (default 0.05)
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double Now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double g_seconds = 0.05;

__attribute__((noinline)) unsigned long spin(unsigned long x) {
  double start = Now();
  while (Now() - start < g_seconds)
    for (int i = 0; i < 100000; i++) x = x * 6364136223846793005ul + 1;
  return x;
}

static void* Worker(void* arg) { return (void*)spin((unsigned long)arg); }

int main(int argc, char** argv) {
  if (argc > 1) g_seconds = atof(argv[1]);
  pthread_t t[2];
  for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, Worker, (void*)i);
  unsigned long x = spin(7);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  printf("%lu\n", x & 1);
  return 0;
}
