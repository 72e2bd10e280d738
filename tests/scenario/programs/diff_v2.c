/* perflens diff fixture, version 2: alpha() got cheaper, beta() dearer, gone() is
   gone and fresh() is new; extra code before alpha() moves every address. */
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) void padding(unsigned long n) {
  for (unsigned long i = 0; i < n; i++) sink += i * 7 + (i >> 3) - (i << 2);
}

__attribute__((noinline)) void alpha(unsigned long n) {
  for (unsigned long i = 0; i < n; i++) sink += i * 3;
}

__attribute__((noinline)) void beta(unsigned long n) {
  for (unsigned long i = 0; i < n; i++) sink ^= i;
}

__attribute__((noinline)) void fresh(unsigned long n) {
  for (unsigned long i = 0; i < n; i++) sink -= i;
}

int main(int argc, char **argv) {
  unsigned long n = argc > 1 ? strtoul(argv[1], 0, 10) : 20000000;
  for (int r = 0; r < 4; r++) {
    alpha(n);
    beta(3 * n);
    fresh(n);
    padding(n / 64);
  }
  return 0;
}
