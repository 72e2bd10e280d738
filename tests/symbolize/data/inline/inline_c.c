#include <stdio.h>
static inline unsigned leaf(unsigned h, unsigned v) {
  h ^= v;
  h *= 0x9e3779b1u;
  return h ^ (h >> 15);
}
static inline unsigned middle(unsigned h, unsigned i) {
  for (int k = 0; k < 8; ++k) h = leaf(h, i + k);
  return h;
}
__attribute__((noinline)) unsigned outer(unsigned n) {
  unsigned s = 0;
  for (unsigned i = 0; i < n; ++i) s += middle(s, i);
  return s;
}
int main(int argc, char** argv) {
  (void)argv;
  printf("%u\n", outer(100000000u * argc));
  return 0;
}
