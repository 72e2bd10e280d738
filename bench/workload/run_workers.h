// The benchmark workloads' main: start THREADS workers, stop them once the process has
// used CPU_SECONDS of CPU (so a recording's sample count does not depend on how busy
// the machine is), print one bit of their result so the work cannot be optimized away.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <thread>
#include <vector>

namespace bench {

// worker(index, stop, sink): runs until *stop, then adds its result to *sink.
using Worker = void (*)(int index, const std::atomic<bool>* stop, std::atomic<uint64_t>* sink);

inline int RunWorkers(int argc, char** argv, Worker worker) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CPU_SECONDS [THREADS]\n", argv[0]);
    return 2;
  }
  const double seconds = std::atof(argv[1]);
  const int nthreads = argc > 2 ? std::atoi(argv[2]) : 4;
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> sink{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < nthreads; ++i) threads.emplace_back(worker, i, &stop, &sink);
  while (true) {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    if (static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9 >= seconds) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  stop = true;
  for (auto& t : threads) t.join();
  std::printf("%llu\n", static_cast<unsigned long long>(sink.load() & 1));
  return 0;
}

}  // namespace bench
