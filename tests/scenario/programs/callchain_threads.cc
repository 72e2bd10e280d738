// callchain_threads.cc: four worker threads, each running a different mix of deep
// recursion (depth 40-60) and a dozen small non-inlined functions, so call graphs have
// many distinct stacks, shared callees reached from several callers, and recursion.
// Built with -fno-omit-frame-pointer at -O1/-O2 by the callchain scenario tests.
// Usage: callchain_threads [seconds]   (default 0.4)
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#define NOINLINE __attribute__((noinline))

namespace {

std::atomic<bool> g_stop{false};
volatile unsigned long g_sink = 0;

NOINLINE unsigned long Mix(unsigned long x, int n) {
  for (int i = 0; i < n; i++) {
    x ^= x >> 13;
    x *= 0x9E3779B97F4A7C15ul;
    x ^= x << 7;
  }
  return x;
}
NOINLINE double Poly(double x, int n) {
  double acc = 0;
  for (int i = 0; i < n; i++) acc = acc * x + i * 0.5;
  return acc;
}
NOINLINE unsigned long LeafA(unsigned long x) { return Mix(x, 2000); }
NOINLINE unsigned long LeafB(unsigned long x) { return Mix(x ^ 0x55, 1000) + LeafA(x); }
NOINLINE unsigned long LeafC(unsigned long x) { return (unsigned long)Poly(0.999, 1500) + x; }

// Deep recursion: every level does a little work, the bottom does more.
NOINLINE unsigned long Recurse(int depth, unsigned long x) {
  if (depth == 0) return LeafB(x) + LeafC(x);
  unsigned long r = Recurse(depth - 1, Mix(x, 20) + 1);
  return r + (depth % 7 == 0 ? LeafA(r) : 0);
}
// Mutual recursion: Even/Odd alternate.
NOINLINE unsigned long Odd(int depth, unsigned long x);
NOINLINE unsigned long Even(int depth, unsigned long x) {
  return depth == 0 ? LeafC(x) : Odd(depth - 1, Mix(x, 10));
}
NOINLINE unsigned long Odd(int depth, unsigned long x) {
  return depth == 0 ? LeafA(x) : Even(depth - 1, x + 3);
}

NOINLINE unsigned long StageParse(unsigned long x) { return LeafA(x) + LeafC(x); }
NOINLINE unsigned long StageTransform(unsigned long x) { return LeafB(x) + StageParse(x); }
NOINLINE unsigned long StageEmit(unsigned long x) { return Mix(x, 3000); }
NOINLINE unsigned long Pipeline(unsigned long x) {
  return StageEmit(StageTransform(StageParse(x)));
}

NOINLINE void WorkerRecursive(unsigned long seed) {
  while (!g_stop.load(std::memory_order_relaxed)) g_sink += Recurse(50, seed++);
}
NOINLINE void WorkerMutual(unsigned long seed) {
  while (!g_stop.load(std::memory_order_relaxed)) g_sink += Even(60, seed++) + Odd(41, seed);
}
NOINLINE void WorkerPipeline(unsigned long seed) {
  while (!g_stop.load(std::memory_order_relaxed)) g_sink += Pipeline(seed++);
}
NOINLINE void WorkerMixed(unsigned long seed) {
  while (!g_stop.load(std::memory_order_relaxed))
    g_sink += Recurse(40, seed) + Pipeline(seed) + Even(20, seed++);
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = argc > 1 ? std::atof(argv[1]) : 0.4;
  std::vector<std::thread> threads;
  threads.emplace_back(WorkerRecursive, 1ul);
  threads.emplace_back(WorkerMutual, 2ul);
  threads.emplace_back(WorkerPipeline, 3ul);
  threads.emplace_back(WorkerMixed, 4ul);
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  g_stop = true;
  for (auto& t : threads) t.join();
  std::printf("callchain_threads: %lu\n", (unsigned long)g_sink);
  return 0;
}
