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

namespace bench {
using Fn = uint64_t (*)(uint64_t, int);
constexpr int kNumFunctions = PERFLENS_BENCH_NUM_FUNCTIONS;
extern const Fn kFunctions[kNumFunctions];
}  // namespace bench

namespace {

std::atomic<bool> g_stop{false};

void Worker(int index, std::atomic<uint64_t>* sink) {
  std::string name = "bench-w" + std::to_string(index);
  pthread_setname_np(pthread_self(), name.c_str());
  uint64_t x = 0x12345678u + static_cast<uint64_t>(index) * 0x9E3779B9u;
  uint64_t acc = 0;
  while (!g_stop.load(std::memory_order_relaxed)) {
    for (int i = 0; i < 64; ++i) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      int depth = 4 + static_cast<int>((x >> 40) % 12);
      acc += bench::kFunctions[(x >> 20) % bench::kNumFunctions](x, depth);
    }
  }
  sink->fetch_add(acc);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s SECONDS [THREADS]\n", argv[0]);
    return 2;
  }
  double seconds = std::atof(argv[1]);
  int nthreads = argc > 2 ? std::atoi(argv[2]) : 4;
  std::atomic<uint64_t> sink{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < nthreads; ++i) threads.emplace_back(Worker, i, &sink);
  while (true) {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    if (static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9 >= seconds) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  g_stop = true;
  for (auto& t : threads) t.join();
  std::printf("%llu\n", static_cast<unsigned long long>(sink.load() & 1));
  return 0;
}
