// dwarf_recursion.c: recursion deeper than perf's user-stack copy, for the replay
// fixture dwarf_recursion (../fixtures/README.md). Each Recurse frame holds a 256-byte
// buffer, so at depth 40 the stack below the leaf is ~11 KB: with
// `--call-graph dwarf,4096` the copy ends inside the recursion and the unwound chains
// are partial (they stop before main). ShallowPath keeps some chains whole (gcc makes
// it a tail call: its frame is not in them):
//   main -> Round -> Recurse x40 -> Spin      (partial)
//   main -> Round -> [ShallowPath] -> Spin    (whole)
// Usage: dwarf_recursion [seconds]   (default 0.3)
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned long g_sink;

NOINLINE static unsigned long Spin(unsigned long x, int n) {
  for (int i = 0; i < n; i++) x = (x ^ (x >> 7)) * 0xff51afd7ed558ccdul;
  return x;
}
NOINLINE static unsigned long Recurse(int depth, unsigned long x) {
  volatile unsigned char pad[256];
  pad[depth & 255] = (unsigned char)x;
  if (depth == 0) return Spin(x, 200000);
  // pad is read after the call: the frame stays (no tail call, no loop).
  unsigned long r = Recurse(depth - 1, x + pad[depth & 255]);
  return r ^ pad[(depth + 1) & 255];
}
NOINLINE static unsigned long ShallowPath(unsigned long x) { return Spin(x, 100000); }
NOINLINE static void Round(unsigned long i) { g_sink += Recurse(40, i) + ShallowPath(i); }

static double Now(void) {
  struct timespec ts;
  // CPU time: the sample count (-F 1000, cpu-clock:u) does not depend on the load.
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 0.3;
  double start = Now();
  unsigned long rounds = 0;
  while (Now() - start < seconds) Round(rounds++);
  printf("dwarf_recursion: %lu rounds\n", rounds);
  return 0;
}
