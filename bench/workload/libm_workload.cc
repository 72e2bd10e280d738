// perflens benchmark workload, "libm" shape: CPU-bound threads whose time goes mostly to
// a few hot functions of shared libraries (libm: sin/cos/exp/log/pow; libc: memcpy,
// strlen, qsort; libstdc++: std::string growth, std::hash / unordered_map, operator new),
// called from a few dozen shallow functions of this program. A recording of it stresses
// shared-library symbolization and DSO-keyed aggregation rather than deep callchains.
//
// Usage: perflens_libm_workload CPU_SECONDS [THREADS]
// Runs until the process has used CPU_SECONDS of CPU time (all threads together), so a
// cpu-clock recording at -F F holds about CPU_SECONDS × F samples.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <pthread.h>

#include "run_workers.h"

namespace libm_bench {

// Inputs go through volatile globals so the compiler cannot fold the library calls.
volatile double g_scale = 1.0000001;
volatile size_t g_len = 16384;

struct State {
  uint64_t rng;
  std::vector<double> doubles;
  std::vector<int> ints;
  std::vector<char> src, dst;
  std::string text;
  std::unordered_map<std::string, uint64_t> table;
  uint64_t Next() {
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return rng >> 11;
  }
};

#define NOINLINE __attribute__((noinline))

// --- libm ------------------------------------------------------------------------------
NOINLINE double SinSweep(State& s) {
  double acc = 0, x = static_cast<double>(s.Next() % 1000) * 1e-3;
  for (int i = 0; i < 400; ++i) acc += std::sin(x + i * g_scale);
  return acc;
}
NOINLINE double CosSweep(State& s) {
  double acc = 0, x = static_cast<double>(s.Next() % 1000) * 1e-3;
  for (int i = 0; i < 400; ++i) acc += std::cos(x * g_scale + i);
  return acc;
}
NOINLINE double SinCosMix(State& s) {
  double acc = 0, x = static_cast<double>(s.Next() % 1000) * 1e-3;
  for (int i = 0; i < 200; ++i) acc += std::sin(x + i) * std::cos(x - i * g_scale);
  return acc;
}
NOINLINE double ExpSweep(State& s) {
  double acc = 0, x = static_cast<double>(s.Next() % 1000) * 1e-4;
  for (int i = 0; i < 400; ++i) acc += std::exp(x * i * g_scale * 0.01);
  return acc;
}
NOINLINE double LogSweep(State& s) {
  double acc = 0, x = 1.0 + static_cast<double>(s.Next() % 1000);
  for (int i = 1; i < 400; ++i) acc += std::log(x * i * g_scale);
  return acc;
}
NOINLINE double PowSweep(State& s) {
  double acc = 0, x = 1.0 + static_cast<double>(s.Next() % 100) * 1e-2;
  for (int i = 1; i < 300; ++i) acc += std::pow(x * g_scale, 0.5 + i * 1e-3);
  return acc;
}
NOINLINE double ExpLogChain(State& s) {
  double x = 1.5 + static_cast<double>(s.Next() % 100) * 1e-3;
  for (int i = 0; i < 200; ++i) x = std::log(std::exp(x) * g_scale + 1.0);
  return x;
}
NOINLINE double VectorTransform(State& s) {
  double acc = 0;
  for (double& d : s.doubles) {
    d = std::sin(d) + std::exp(-d * d * g_scale);
    acc += d;
  }
  return acc;
}
NOINLINE double Softmax(State& s) {
  double sum = 0;
  for (double d : s.doubles) sum += std::exp(d * g_scale);
  double acc = 0;
  for (double d : s.doubles) acc += std::log(std::exp(d) / sum + 1e-12);
  return acc;
}
NOINLINE double Geometry(State& s) {
  double acc = 0;
  for (int i = 0; i < 150; ++i) {
    double a = static_cast<double>(s.Next() % 6283) * 1e-3;
    acc += std::pow(std::cos(a), 2.0 * g_scale) + std::pow(std::sin(a), 2.0);
  }
  return acc;
}

// --- libc ------------------------------------------------------------------------------
NOINLINE uint64_t CopyBlocks(State& s) {
  size_t n = g_len;
  for (int i = 0; i < 16; ++i) std::memcpy(s.dst.data(), s.src.data() + (i & 7), n);
  return static_cast<uint64_t>(s.dst[s.Next() % n]);
}
NOINLINE uint64_t CopyLarge(State& s) {
  std::memcpy(s.dst.data(), s.src.data(), s.src.size() - 64);
  return static_cast<uint64_t>(s.dst[s.Next() % s.dst.size()]);
}
NOINLINE uint64_t MoveOverlap(State& s) {
  size_t n = g_len;
  for (int i = 0; i < 8; ++i) std::memmove(s.dst.data() + 1, s.dst.data(), n);
  return static_cast<uint64_t>(s.dst[5]);
}
NOINLINE uint64_t StrlenScan(State& s) {
  uint64_t acc = 0;
  for (int i = 0; i < 32; ++i) acc += std::strlen(s.src.data() + (s.Next() % 256));
  return acc;
}
NOINLINE uint64_t StrchrScan(State& s) {
  uint64_t acc = 0;
  for (int i = 0; i < 16; ++i) {
    const char* p = std::strchr(s.src.data() + (s.Next() % 256), '#');
    acc += p ? static_cast<uint64_t>(p - s.src.data()) : 0;
  }
  return acc;
}
NOINLINE uint64_t CompareBlocks(State& s) {
  uint64_t acc = 0;
  for (int i = 0; i < 16; ++i) acc += static_cast<uint64_t>(std::memcmp(s.src.data(), s.dst.data(), g_len) != 0);
  return acc;
}
NOINLINE int CompareInts(const void* a, const void* b) {
  int x = *static_cast<const int*>(a), y = *static_cast<const int*>(b);
  return (x > y) - (x < y);
}
NOINLINE uint64_t QsortInts(State& s) {
  for (int& v : s.ints) v = static_cast<int>(s.Next());
  std::qsort(s.ints.data(), s.ints.size(), sizeof(int), CompareInts);
  return static_cast<uint64_t>(s.ints[s.ints.size() / 2]);
}
NOINLINE uint64_t FillBlocks(State& s) {
  for (int i = 0; i < 16; ++i) std::memset(s.dst.data(), static_cast<int>(s.Next() & 0x7f), g_len);
  return static_cast<uint64_t>(s.dst[7]);
}

// --- libstdc++ -------------------------------------------------------------------------
NOINLINE uint64_t SortInts(State& s) {
  for (int& v : s.ints) v = static_cast<int>(s.Next());
  std::sort(s.ints.begin(), s.ints.end());
  return static_cast<uint64_t>(s.ints[s.ints.size() / 3]);
}
NOINLINE uint64_t SortDoubles(State& s) {
  for (double& d : s.doubles) d = static_cast<double>(s.Next() % 100000) * 1e-3;
  std::sort(s.doubles.begin(), s.doubles.end(), std::greater<double>());
  return static_cast<uint64_t>(s.doubles[0]);
}
NOINLINE uint64_t BuildString(State& s) {
  std::string out;
  for (int i = 0; i < 200; ++i) {
    out += "item-";
    out += std::to_string(s.Next() % 100000);
    out.push_back(',');
  }
  return out.size();
}
NOINLINE uint64_t ReplaceInString(State& s) {
  std::string t = s.text;
  for (int i = 0; i < 40; ++i) t.replace(s.Next() % (t.size() - 16), 8, "0123456789ABCDEF", 16);
  return t.size();
}
NOINLINE uint64_t FindInString(State& s) {
  uint64_t acc = 0;
  for (int i = 0; i < 20; ++i) acc += s.text.find("needle", s.Next() % 64);
  return acc;
}
NOINLINE std::string MakeKey(State& s) {
  std::string key = "key:";
  key += std::to_string(s.Next() % 3000);
  key.append(24, 'x');
  return key;
}
NOINLINE uint64_t MapInsert(State& s) {
  for (int i = 0; i < 64; ++i) s.table[MakeKey(s)] += 1;
  if (s.table.size() > 2000) s.table.clear();
  return s.table.size();
}
NOINLINE uint64_t MapLookup(State& s) {
  uint64_t acc = 0;
  for (int i = 0; i < 64; ++i) {
    auto it = s.table.find(MakeKey(s));
    if (it != s.table.end()) acc += it->second;
  }
  return acc;
}
NOINLINE uint64_t HashStrings(State& s) {
  uint64_t acc = 0;
  std::hash<std::string> h;
  for (int i = 0; i < 16; ++i) acc ^= h(s.text.substr(s.Next() % 256, 512));
  return acc;
}
NOINLINE uint64_t VectorOfStrings(State& s) {
  std::vector<std::string> v;
  for (int i = 0; i < 100; ++i) v.push_back(MakeKey(s));
  std::sort(v.begin(), v.end());
  return v.front().size();
}

// --- dispatch --------------------------------------------------------------------------
// The thread loop picks tasks at random from this table; the libm ones appear twice so
// that libm, libc and libstdc++/own code take roughly equal shares.
using Task = uint64_t (*)(State&);
template <double (*F)(State&)>
NOINLINE uint64_t AsU64(State& s) {
  double d = F(s);
  uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}
const Task kTasks[] = {
    AsU64<SinSweep>,  AsU64<CosSweep>, AsU64<SinCosMix>,       AsU64<ExpSweep>, AsU64<LogSweep>,
    AsU64<PowSweep>,  AsU64<ExpLogChain>, AsU64<VectorTransform>, AsU64<Softmax>, AsU64<Geometry>,
    CopyBlocks,       CopyLarge,       MoveOverlap,            StrlenScan,      StrchrScan,
    CompareBlocks,    QsortInts,       FillBlocks,             SortInts,        SortDoubles,
    BuildString,      ReplaceInString, FindInString,           MapInsert,       MapLookup,
    HashStrings,      VectorOfStrings,
    AsU64<SinSweep>,  AsU64<CosSweep>, AsU64<SinCosMix>,       AsU64<ExpSweep>, AsU64<LogSweep>,
    AsU64<PowSweep>,  AsU64<ExpLogChain>, AsU64<VectorTransform>, AsU64<Softmax>, AsU64<Geometry>,
};
constexpr int kNumTasks = sizeof(kTasks) / sizeof(kTasks[0]);

NOINLINE uint64_t RunBatch(State& s) {
  uint64_t acc = 0;
  for (int i = 0; i < 16; ++i) acc += kTasks[s.Next() % kNumTasks](s);
  return acc;
}

NOINLINE void InitState(State& s, int index) {
  s.rng = 0x12345678u + static_cast<uint64_t>(index) * 0x9E3779B9u;
  s.doubles.resize(512);
  for (double& d : s.doubles) d = static_cast<double>(s.Next() % 1000) * 1e-3;
  s.ints.resize(256);
  s.src.assign(64 * 1024, 'a');
  for (size_t i = 0; i < s.src.size(); ++i) s.src[i] = static_cast<char>('a' + s.Next() % 26);
  s.src[s.src.size() - 1] = '\0';
  for (size_t i = 300; i < s.src.size(); i += 1500) s.src[i] = '\0';  // strlen stops here
  s.dst.resize(64 * 1024);
  s.text.assign(s.src.data(), 4096);
  s.text.replace(3000, 6, "needle");
}


void Worker(int index, const std::atomic<bool>* stop, std::atomic<uint64_t>* sink) {
  std::string name = "libm-w" + std::to_string(index);
  pthread_setname_np(pthread_self(), name.c_str());
  State s;
  InitState(s, index);
  uint64_t acc = 0;
  while (!stop->load(std::memory_order_relaxed)) acc += RunBatch(s);
  sink->fetch_add(acc);
}

}  // namespace libm_bench

int main(int argc, char** argv) { return bench::RunWorkers(argc, argv, libm_bench::Worker); }
