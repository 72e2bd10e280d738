// Inline-heavy C++ for the dwarf_inline_cxx replay fixture (issue #13), built at -O2 -g
// without frame pointers and with inlining on: always_inline function templates three
// deep (Chain -> Fold -> Mix) instantiated for two types, a lambda inlined into
// std::transform, and a lambda called through std::function. Runs for about argv[1]
// seconds of CPU time.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <vector>

#define ALWAYS_INLINE inline __attribute__((always_inline))
#define NOINLINE __attribute__((noinline))

namespace inl {

template <typename T>
ALWAYS_INLINE T Mix(T x) {
  return x * T(3) + T(1);
}

template <typename T>
ALWAYS_INLINE T Fold(T x) {
  return Mix(Mix(x)) / T(2);
}

template <typename T>
ALWAYS_INLINE T Chain(T x) {
  return Fold(x) + Mix(x);
}

template <typename T>
NOINLINE T Kernel(const std::vector<T>& v) {
  T acc{};
  for (const T& e : v) acc = acc / T(2) + Chain(e);
  return acc;
}

NOINLINE void Scale(std::vector<unsigned>& v, unsigned k) {
  std::transform(v.begin(), v.end(), v.begin(), [k](unsigned x) { return Chain(x) * k + 1; });
}

NOINLINE double Apply(const std::function<double(double)>& f, std::vector<double>& v) {
  double s = 0;
  for (double& e : v) {
    e = f(e);
    s += e;
  }
  return s;
}

}  // namespace inl

static double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 0.25;
  std::vector<unsigned> u(4096);
  std::vector<double> d(4096);
  for (size_t i = 0; i < u.size(); ++i) u[i] = static_cast<unsigned>(i), d[i] = static_cast<double>(i) / 4096.0;
  const std::function<double(double)> frac = [](double x) {
    const double y = inl::Fold(x);
    return y - static_cast<double>(static_cast<long>(y));
  };
  unsigned su = 0;
  double sd = 0;
  const double start = CpuSeconds();
  while (CpuSeconds() - start < seconds) {
    su += inl::Kernel(u);
    sd += inl::Kernel(d);
    inl::Scale(u, 5);
    sd += inl::Apply(frac, d);
  }
  std::printf("%u %f\n", su, sd);
  return 0;
}
