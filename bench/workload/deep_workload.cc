// perflens benchmark workload, "deep" shape: CPU-bound threads that spend their time in
// leaf functions at the bottom of ~60-110 frames of recursion through a few mutually
// recursive functions, so frame-pointer callchains are long (perf keeps up to 127 frames)
// and vary: each descent follows one of 8 fixed paths (which function at which level) to
// a random depth and one of 6 leaves. The paths are fixed, not random per level, so that
// the distinct chains number thousands, as in a real program; with a random choice at
// every level each sample has its own chain and perf report's children mode needs
// gigabytes for a few ten thousand samples. A recording of it stresses callchain storage and call-graph
// building rather than symbolization.
//
// Usage: perflens_deep_workload CPU_SECONDS [THREADS]
// Runs until the process has used CPU_SECONDS of CPU time (all threads together).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include <pthread.h>

#include "run_workers.h"

#define NOINLINE __attribute__((noinline))

namespace deep_bench {

// Leaves: different mixing loops, so the hot spots are distinct symbols. Each runs long
// enough (~1-3 us) that most samples land at the bottom of a full-depth chain.
NOINLINE uint64_t LeafMix(uint64_t x) {
  for (int i = 0; i < 2400; ++i) {
    x ^= x >> 31;
    x *= 0x7FB5D329728EA185ULL;
    asm volatile("" : "+r"(x));
  }
  return x;
}
NOINLINE uint64_t LeafRotate(uint64_t x) {
  for (int i = 0; i < 2000; ++i) {
    x = (x << 13) | (x >> 51);
    x += 0x9E3779B97F4A7C15ULL;
    asm volatile("" : "+r"(x));
  }
  return x;
}
NOINLINE uint64_t LeafDivide(uint64_t x) {
  uint64_t acc = 0;
  for (int i = 1; i < 480; ++i) {
    acc += (x | 1) / static_cast<uint64_t>(i);
    asm volatile("" : "+r"(acc));
  }
  return acc ^ x;
}
NOINLINE uint64_t LeafFloat(uint64_t x) {
  double d = static_cast<double>(x & 0xFFFF) + 1.0;
  for (int i = 0; i < 1200; ++i) {
    d = d * 1.0000001 + 0.5;
    asm volatile("" : "+x"(d));
  }
  return x + static_cast<uint64_t>(d);
}
NOINLINE uint64_t LeafBranchy(uint64_t x) {
  uint64_t acc = 0;
  for (int i = 0; i < 1600; ++i) {
    x = x * 6364136223846793005ULL + 1;
    if (x & (1ULL << 40)) acc += x >> 7; else acc ^= x << 3;
    asm volatile("" : "+r"(acc));
  }
  return acc;
}
NOINLINE uint64_t LeafMemory(uint64_t x) {
  uint64_t buf[64];
  for (int i = 0; i < 64; ++i) buf[i] = x + static_cast<uint64_t>(i);
  uint64_t acc = 0;
  for (int r = 0; r < 32; ++r)
    for (int i = 0; i < 64; ++i) {
      acc += buf[(i * 7 + r) & 63];
      asm volatile("" : "+r"(acc));
    }
  return acc;
}

using Leaf = uint64_t (*)(uint64_t);
const Leaf kLeaves[] = {LeafMix, LeafRotate, LeafDivide, LeafFloat, LeafBranchy, LeafMemory};
constexpr int kNumLeaves = sizeof(kLeaves) / sizeof(kLeaves[0]);

uint64_t Descend(uint64_t x, int depth, uint32_t path);

// Mutually recursive levels. Each does a little work around the call so that neither the
// call is a tail call (which would drop frames) nor the levels take much of the time.
NOINLINE uint64_t Walk(uint64_t x, int depth, uint32_t path) {
  uint64_t y = Descend(x * 3 + 1, depth - 1, path);
  asm volatile("" : "+r"(y));
  return y ^ x;
}
NOINLINE uint64_t Climb(uint64_t x, int depth, uint32_t path) {
  uint64_t y = Descend(x ^ (x >> 7), depth - 1, path);
  asm volatile("" : "+r"(y));
  return y + x;
}
NOINLINE uint64_t Split(uint64_t x, int depth, uint32_t path) {
  // Occasionally two subtrees: sibling chains share a prefix.
  uint64_t y = Descend(x + 0x51, depth - 1, path);
  if ((x & 0x3F) == 0) y += Descend(x + 0x77, depth - 1, path);
  asm volatile("" : "+r"(y));
  return y;
}
NOINLINE uint64_t Fold(uint64_t x, int depth, uint32_t path) {
  uint64_t y = Descend(x * 0x100000001B3ULL, depth - 1, path);
  asm volatile("" : "+r"(y));
  return y - x;
}

NOINLINE uint64_t Bottom(uint64_t x) {
  uint64_t y = kLeaves[(x >> 29) % kNumLeaves](x);
  asm volatile("" : "+r"(y));
  return y;
}

NOINLINE uint64_t Descend(uint64_t x, int depth, uint32_t path) {
  if (depth <= 0) return Bottom(x);
  x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  uint64_t y;
  switch ((path >> ((depth & 15) * 2)) & 3) {
    case 0: y = Walk(x, depth, path); break;
    case 1: y = Climb(x, depth, path); break;
    case 2: y = Split(x, depth, path); break;
    default: y = Fold(x, depth, path); break;
  }
  asm volatile("" : "+r"(y));
  return y;
}

// Each root is a different entry function, so the outermost frames vary too.
NOINLINE uint64_t RootA(uint64_t x, int depth, uint32_t path) { uint64_t y = Descend(x, depth, path); asm volatile("" : "+r"(y)); return y; }
NOINLINE uint64_t RootB(uint64_t x, int depth, uint32_t path) { uint64_t y = Descend(x + 1, depth, path); asm volatile("" : "+r"(y)); return y; }
NOINLINE uint64_t RootC(uint64_t x, int depth, uint32_t path) { uint64_t y = Descend(x + 2, depth, path); asm volatile("" : "+r"(y)); return y; }

// Two bits per level (Walk, Climb, Split, Fold), repeating every 16 levels.
constexpr uint32_t kPaths[8] = {0x1B1B1B1B, 0xE4E4E4E4, 0x00FF00FF, 0x55AA55AA,
                                0x12345678, 0x9ABCDEF0, 0x0F0F0F0F, 0xC3A5963C};


void Worker(int index, const std::atomic<bool>* stop, std::atomic<uint64_t>* sink) {
  std::string name = "deep-w" + std::to_string(index);
  pthread_setname_np(pthread_self(), name.c_str());
  uint64_t x = 0x12345678u + static_cast<uint64_t>(index) * 0x9E3779B9u;
  uint64_t acc = 0;
  while (!stop->load(std::memory_order_relaxed)) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    // Descend takes 2 frames per level (Descend + Walk/Climb/...).
    int levels = 30 + static_cast<int>((x >> 40) % 25);
    uint32_t path = kPaths[(x >> 50) % 8];
    switch ((x >> 20) % 3) {
      case 0: acc += RootA(x, levels, path); break;
      case 1: acc += RootB(x, levels, path); break;
      default: acc += RootC(x, levels, path); break;
    }
  }
  sink->fetch_add(acc);
}

}  // namespace deep_bench

int main(int argc, char** argv) { return bench::RunWorkers(argc, argv, deep_bench::Worker); }
