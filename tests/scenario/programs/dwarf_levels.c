// dwarf_levels.c: a few call levels of plain C with no frame pointers, the program of
// the `--call-graph dwarf` replay fixtures dwarf_c, dwarf_inline, dwarf_clang_lld,
// dwarf_stripped and dwarf_m32 (../fixtures/README.md). Two stacks under main:
//   main -> RunRounds -> Outer -> Middle -> Leaf{Mix,Sum}  (Mix: Rotl and Scale, small
//   static functions gcc inlines at -O2 unless -fno-inline)
//   main -> RunRounds -> Checksum -> Leaf Sum
// Each build is given its own -DNAME="..." (its fixture's name), so that no two of them
// share a build-id (the build-id cache has one entry per id; strip keeps the note).
// Usage: dwarf_levels [seconds]   (default 0.3)
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))
#ifndef NAME
#define NAME "dwarf_levels"
#endif

static volatile unsigned long g_sink;
static unsigned long g_data[512];

static unsigned long Rotl(unsigned long x, int r) { return (x << r) | (x >> (64 - r)); }
static unsigned long Scale(unsigned long x) { return x * 0x9e3779b97f4a7c15ul + 7; }

NOINLINE static unsigned long LeafMix(unsigned long seed, int n) {
  unsigned long h = seed;
  for (int i = 0; i < n; i++) h = Rotl(Scale(h ^ g_data[i & 511]), 17);
  return h;
}
NOINLINE static unsigned long LeafSum(int n) {
  unsigned long s = 0;
  for (int i = 0; i < n; i++) s += g_data[i & 511] * (unsigned long)i;
  return s;
}
NOINLINE static unsigned long Middle(unsigned long seed) {
  return LeafMix(seed, 4000) + LeafSum(1000);
}
NOINLINE static unsigned long Outer(unsigned long seed) { return Middle(seed) ^ Middle(seed + 1); }
NOINLINE static unsigned long Checksum(void) { return LeafSum(3000); }

static double Now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}
NOINLINE static unsigned long RunRounds(double seconds) {
  unsigned long rounds = 0;
  double start = Now();
  while (Now() - start < seconds) {
    for (int i = 0; i < 20; i++) g_sink += Outer(rounds + i) + Checksum();
    rounds++;
  }
  return rounds;
}

int main(int argc, char** argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 0.3;
  for (int i = 0; i < 512; i++) g_data[i] = (unsigned long)i * 2654435761u;
  printf(NAME ": %lu rounds\n", RunRounds(seconds));
  return 0;
}
