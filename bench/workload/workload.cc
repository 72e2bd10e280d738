// perflens benchmark workload: CPU-bound threads that run for a given number of seconds
// through hundreds of generated functions (bench_functions.cc), so that `perf record -g`
// produces many distinct symbols and deep, varied frame-pointer callchains.
//
// Usage: perflens_workload CPU_SECONDS [THREADS]
// Runs until the process has used CPU_SECONDS of CPU time (all threads together), so a
// cpu-clock recording at -F F holds about CPU_SECONDS × F samples however busy the
// machine is.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <ctime>
#include <thread>
#include <vector>

#include <pthread.h>

#include "run_workers.h"

namespace bench {
using Fn = uint64_t (*)(uint64_t, int);
constexpr int kNumFunctions = PERFLENS_BENCH_NUM_FUNCTIONS;
extern const Fn kFunctions[kNumFunctions];
}  // namespace bench

namespace {


void Worker(int index, const std::atomic<bool>* stop, std::atomic<uint64_t>* sink) {
  std::string name = "bench-w" + std::to_string(index);
  pthread_setname_np(pthread_self(), name.c_str());
  uint64_t x = 0x12345678u + static_cast<uint64_t>(index) * 0x9E3779B9u;
  uint64_t acc = 0;
  while (!stop->load(std::memory_order_relaxed)) {
    for (int i = 0; i < 64; ++i) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      int depth = 4 + static_cast<int>((x >> 40) % 12);
      acc += bench::kFunctions[(x >> 20) % bench::kNumFunctions](x, depth);
    }
  }
  sink->fetch_add(acc);
}

}  // namespace

int main(int argc, char** argv) { return bench::RunWorkers(argc, argv, Worker); }
