// dwarf_templates.cc: C++ at -O2 without frame pointers for the `--call-graph dwarf`
// replay fixture dwarf_cxx (../fixtures/README.md): a function template instantiated
// twice, a lambda called through std::function, and a class template's member, so the
// unwound frames carry demangled template and lambda names:
//   main -> Drive -> Apply<Accumulate<double>> -> std::function -> lambda -> Kernel<double>
//   main -> Drive -> Apply<Accumulate<long>> -> Accumulate<long>::operator() -> Kernel<long>
// Usage: dwarf_templates [seconds]   (default 0.3)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#define NOINLINE __attribute__((noinline))

namespace dw {

template <typename T>
NOINLINE T Kernel(const std::vector<T>& v, T seed) {
  T acc = seed;
  for (size_t i = 0; i < v.size(); i++) acc = acc * T(3) / T(2) + v[i];
  return acc;
}

template <typename T>
struct Accumulate {
  std::vector<T> values;
  NOINLINE T operator()(T seed) const { return Kernel(values, seed); }
};

template <typename F, typename T>
NOINLINE T Apply(const F& f, T seed, int times) {
  T acc = T(0);
  for (int i = 0; i < times; i++) acc += f(seed + T(i));
  return acc;
}

volatile double g_sink;

NOINLINE void Drive(double seconds) {
  Accumulate<double> dbl{std::vector<double>(2000, 0.5)};
  Accumulate<long> lng{std::vector<long>(2000, 3)};
  std::function<double(double)> through = [&dbl](double s) { return dbl(s) * 0.5; };
  auto start = std::chrono::steady_clock::now();
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) {
    g_sink += Apply(through, 1.0, 20);
    g_sink += double(Apply(lng, 1L, 20));
  }
}

}  // namespace dw

int main(int argc, char** argv) {
  dw::Drive(argc > 1 ? std::atof(argv[1]) : 0.3);
  std::printf("dwarf_templates: done\n");
  return 0;
}
