// Lookups on the per-sample path: Maps::Find, SymbolTable::Find, and callchain
// resolution through the Resolver on a synthetic machine (one process with many maps,
// a JIT map whose /tmp/perf-PID.map holds thousands of symbols).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "model/machine.h"
#include "model/maps.h"
#include "perfdata/perf_event.h"
#include "session/callchain.h"
#include "session/resolver.h"
#include "symbolize/elf_symbols.h"
#include "symbolize/symbol_table.h"
#include "symbolize/symbolizer.h"

namespace perflens::bench {
namespace {

constexpr uint64_t kBase = 0x7f0000000000;

std::vector<uint64_t> RandomAddrs(uint64_t lo, uint64_t hi, size_t n, uint64_t seed = 1) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> v(n);
  for (auto& a : v) a = lo + rng() % (hi - lo);
  return v;
}

void BM_MapsFind(benchmark::State& state) {
  const int64_t nr_maps = state.range(0);
  Maps maps;
  std::vector<std::unique_ptr<Dso>> dsos;
  for (int64_t i = 0; i < nr_maps; ++i) {
    dsos.push_back(std::make_unique<Dso>(static_cast<int>(i), "/lib/lib" + std::to_string(i) + ".so", DsoKind::kUser));
    Map m;
    m.start = kBase + static_cast<uint64_t>(i) * 0x200000;
    m.end = m.start + 0x180000;  // gaps between maps
    m.dso = dsos.back().get();
    maps.Insert(m);
  }
  auto addrs = RandomAddrs(kBase, kBase + static_cast<uint64_t>(nr_maps) * 0x200000, 1 << 16);
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(maps.Find(addrs[i++ & (addrs.size() - 1)]));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_MapsFind)->ArgName("maps")->Arg(16)->Arg(256)->Arg(4096);

void BM_SymbolTableFind(benchmark::State& state) {
  const int64_t nr_syms = state.range(0);
  SymbolTable table;
  std::mt19937_64 rng(7);
  uint64_t addr = 0x1000;
  for (int64_t i = 0; i < nr_syms; ++i) {
    uint64_t size = 16 + rng() % 2000;
    table.Add(addr, size, "sym" + std::to_string(i));
    addr += size + rng() % 64;
  }
  table.Finish();
  auto addrs = RandomAddrs(0x1000, addr, 1 << 16);
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(table.Find(addrs[i++ & (addrs.size() - 1)]));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SymbolTableFind)->ArgName("symbols")->Arg(1000)->Arg(100000)->Arg(1000000);

// Loading the symbols of a real C++ DSO (a fixed cost of every report that samples
// it): libstdc++, which perflens itself links, 6K .dynsym entries, most of them mangled
// and many aliases at one address. Skipped where the file is missing.
void BM_LoadElfSymbolsLibstdcxx(benchmark::State& state) {
  const std::string path = "/usr/lib/x86_64-linux-gnu/libstdc++.so.6";
  if (access(path.c_str(), R_OK) != 0) {
    state.SkipWithError("no libstdc++.so.6");
    return;
  }
  for (auto _ : state) {
    auto image = LoadElfImage(path, path, ElfSymbolOptions{});
    if (!image.ok()) {
      state.SkipWithError(image.error().message.c_str());
      return;
    }
    benchmark::DoNotOptimize(image->symbols.size());
  }
}
BENCHMARK(BM_LoadElfSymbolsLibstdcxx)->Unit(benchmark::kMicrosecond);

// A process with 64 file maps (no files: symbols unresolved) and one anonymous
// executable map backed by /tmp/perf-PID.map with 20,000 symbols.
class SyntheticMachine {
 public:
  SyntheticMachine() {
    pid_ = 3000000 + static_cast<uint32_t>(getpid() % 100000);
    map_path_ = "/tmp/perf-" + std::to_string(pid_) + ".map";
    {
      std::ofstream out(map_path_);
      char line[96];
      for (int i = 0; i < kJitSymbols; ++i) {
        std::snprintf(line, sizeof line, "%llx %x jit_function_%d\n",
                      static_cast<unsigned long long>(kJitStart + static_cast<uint64_t>(i) * 0x100), 0xf0, i);
        out << line;
      }
    }
    machine_ = std::make_unique<Machine>("x86_64");
    MmapEvent e;
    e.pid = e.tid = pid_;
    for (int i = 0; i < 64; ++i) {
      e.start = kBase + static_cast<uint64_t>(i) * 0x200000;
      e.len = 0x180000;
      e.pgoff = 0;
      e.prot = 5;
      filenames_.push_back("/nonexistent/lib" + std::to_string(i) + ".so");
      e.filename = filenames_.back();
      machine_->ProcessMmap(e, kMiscUser);
    }
    e.start = kJitStart;
    e.len = static_cast<uint64_t>(kJitSymbols) * 0x100;
    e.filename = "//anon";
    e.prot = 7;
    e.is_mmap2 = true;
    machine_->ProcessMmap(e, kMiscUser);
    symbolizer_ = std::make_unique<Symbolizer>(SymbolizeOptions{}, machine_.get());
    resolver_ = std::make_unique<Resolver>(machine_.get(), symbolizer_.get());
    thread_ = machine_->FindOrCreateThread(pid_, pid_);
  }
  ~SyntheticMachine() { std::remove(map_path_.c_str()); }

  static constexpr uint64_t kJitStart = 0x10000000;
  static constexpr int kJitSymbols = 20000;
  Resolver& resolver() { return *resolver_; }
  Thread* thread() { return thread_; }

 private:
  uint32_t pid_;
  std::string map_path_;
  std::vector<std::string> filenames_;
  std::unique_ptr<Machine> machine_;
  std::unique_ptr<Symbolizer> symbolizer_;
  std::unique_ptr<Resolver> resolver_;
  Thread* thread_ = nullptr;
};

// Callchains of `depth` frames: `distinct` different return addresses in the JIT map
// (symbols resolved) and in file maps (unresolved), as in a frame-pointer recording.
void BM_ResolveCallchain(benchmark::State& state) {
  const int depth = 24;
  const uint64_t distinct = static_cast<uint64_t>(state.range(0));
  SyntheticMachine m;
  std::mt19937_64 rng(3);
  std::vector<uint64_t> pool(distinct);
  for (auto& a : pool) {
    a = (rng() & 3) ? SyntheticMachine::kJitStart + rng() % (SyntheticMachine::kJitSymbols * 0x100ull)
                    : kBase + (rng() % 64) * 0x200000 + rng() % 0x180000;
  }
  constexpr int kChains = 4096;
  std::vector<std::vector<uint8_t>> chains(kChains);
  for (auto& c : chains) {
    c.resize(8 * (depth + 1));
    uint64_t v = kContextUser;
    std::memcpy(c.data(), &v, 8);
    for (int d = 0; d < depth; ++d) {
      v = pool[rng() % distinct];
      std::memcpy(c.data() + 8 * (d + 1), &v, 8);
    }
  }
  std::vector<CallchainFrame> frames;
  size_t i = 0;
  for (auto _ : state) {
    const auto& c = chains[i++ & (kChains - 1)];
    U64Array arr{c.data(), c.size() / 8, false};
    ResolveCallchain(m.resolver(), m.thread(), arr, 127, &frames);
    benchmark::DoNotOptimize(frames.data());
  }
  state.SetItemsProcessed(state.iterations() * depth);
  state.counters["frames/s"] = benchmark::Counter(static_cast<double>(state.iterations() * depth),
                                                  benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ResolveCallchain)->ArgName("distinct_ips")->Arg(512)->Arg(65536);

}  // namespace
}  // namespace perflens::bench
