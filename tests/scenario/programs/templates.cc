// templates.cc: C++ hot functions inside namespaces, class templates, function
// templates, an anonymous namespace and an operator, so the report shows demangled
// names such as geo::Matrix<double>::Multiply(geo::Matrix<double> const&) const.
// Usage: templates [seconds]   (default 0.4)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace geo {
template <typename T>
class Matrix {
 public:
  explicit Matrix(int n) : n_(n), v_(n * n, T(1)) {}
  __attribute__((noinline)) Matrix Multiply(const Matrix& o) const {
    Matrix r(n_);
    for (int i = 0; i < n_; i++)
      for (int j = 0; j < n_; j++) {
        T acc = 0;
        for (int k = 0; k < n_; k++) acc += v_[i * n_ + k] * o.v_[k * n_ + j];
        r.v_[i * n_ + j] = acc / T(n_);
      }
    return r;
  }
  T Trace() const { T t = 0; for (int i = 0; i < n_; i++) t += v_[i * n_ + i]; return t; }

 private:
  int n_;
  std::vector<T> v_;
};
}  // namespace geo

namespace algo {
namespace detail {
template <typename T, int kRounds>
__attribute__((noinline)) T MixRounds(T x) {
  for (int i = 0; i < kRounds; i++) x = x * T(6364136223846793005ull) + T(1442695040888963407ull);
  return x;
}
}  // namespace detail

struct Acc {
  long value = 0;
  __attribute__((noinline)) Acc& operator+=(long x) {
    for (int i = 0; i < 2000; i++) value = (value ^ x) + i;
    return *this;
  }
};
}  // namespace algo

namespace {
__attribute__((noinline)) long SumSquares(const std::vector<int>& v) {
  long s = 0;
  for (int x : v) s += static_cast<long>(x) * x;
  return s;
}
}  // namespace

int main(int argc, char** argv) {
  double seconds = argc > 1 ? std::atof(argv[1]) : 0.4;
  auto start = std::chrono::steady_clock::now();
  geo::Matrix<double> md(48);
  geo::Matrix<float> mf(40);
  std::vector<int> v(200000, 3);
  algo::Acc acc;
  unsigned long mix = 1;
  double sink = 0;
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) {
    sink += md.Multiply(md).Trace();
    sink += mf.Multiply(mf).Trace();
    mix = algo::detail::MixRounds<unsigned long, 100000>(mix);
    sink += SumSquares(v);
    acc += static_cast<long>(mix);
  }
  std::printf("templates: %g %lu %ld\n", sink, mix, acc.value);
  return 0;
}
