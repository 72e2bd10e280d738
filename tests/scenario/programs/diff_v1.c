/* perflens diff fixture, version 1: work is split 3:1 between alpha() and beta(). */
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) void alpha(unsigned long n) {
  for (unsigned long i = 0; i < n; i++) sink += i * 3;
}

__attribute__((noinline)) void beta(unsigned long n) {
  for (unsigned long i = 0; i < n; i++) sink ^= i;
}

__attribute__((noinline)) void gone(unsigned long n) {
  for (unsigned long i = 0; i < n; i++) sink += i >> 1;
}

int main(int argc, char **argv) {
  unsigned long n = argc > 1 ? strtoul(argv[1], 0, 10) : 20000000;
  for (int r = 0; r < 4; r++) {
    alpha(3 * n);
    beta(n);
    gone(n);
  }
  return 0;
}
