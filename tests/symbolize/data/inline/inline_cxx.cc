#include <cstdio>
#include <functional>
static inline __attribute__((always_inline)) unsigned mix(unsigned h, unsigned v) {
  h ^= v;
  h *= 0x9e3779b1u;
  return h ^ (h >> 15);
}
static inline unsigned step(unsigned h, unsigned i) {
  for (int k = 0; k < 8; ++k) h = mix(h, i + k);
  return h;
}
template <typename T> struct Acc {
  T total{};
  void add(T v) { total += step(v, 3); }
};
__attribute__((noinline)) unsigned run(const std::function<unsigned(unsigned)>& f, unsigned n) {
  unsigned s = 0;
  for (unsigned i = 0; i < n; ++i) s += f(i);
  return s;
}
int main(int argc, char**) {
  Acc<unsigned> acc;
  auto lam = [&](unsigned i) { acc.add(i); return acc.total; };
  unsigned r = run(lam, 100000000u * argc);
  std::printf("%u\n", r);
}
