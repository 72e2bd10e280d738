// Call graphs: adding one sample's chain to the CallchainStore for its self row and
// every Children row (the hists thread's per-sample work with -g), and building a
// row's printed tree from the stored chains (the printer's work per row), on random
// chains over a few hundred functions, like the bench workload's.
#include <benchmark/benchmark.h>

#include <deque>
#include <random>
#include <string>
#include <vector>

#include "model/dso.h"
#include "report/callchain_store.h"

namespace perflens::bench {
namespace {

struct Functions {
  Dso dso{0, "/usr/bin/app", DsoKind::kUser};
  std::deque<std::string> names;
  std::vector<Symbol> syms;
  explicit Functions(size_t n) {
    for (size_t i = 0; i < n; ++i) {
      names.push_back("fn_" + std::to_string(i));
      syms.push_back({0x1000 + i * 0x100, 0x1100 + i * 0x100, names.back()});
    }
  }
};

// `nr_samples` chains of 4..12 frames from a common root, as interned ids.
std::vector<std::vector<uint32_t>> RandomChains(CallchainStore* store, Functions* fns, size_t nr_samples) {
  std::mt19937_64 rng(42);
  std::vector<std::vector<uint32_t>> chains(nr_samples);
  for (auto& c : chains) {
    c.push_back(store->InternFrame({&fns->dso, &fns->syms[0], fns->syms[0].start}));
    for (size_t d = 4 + rng() % 9; d > 1; --d) {
      const Symbol& s = fns->syms[1 + rng() % (fns->syms.size() - 1)];
      c.push_back(store->InternFrame({&fns->dso, &s, s.start + 8}));
    }
  }
  return chains;
}

void BM_CallchainStoreAddSample(benchmark::State& state) {
  Functions fns(600);
  CallchainStore store;
  auto chains = RandomChains(&store, &fns, 1 << 14);
  size_t i = 0;
  for (auto _ : state) {
    const auto& c = chains[i++ & (chains.size() - 1)];
    const uint32_t pos = store.AddChain(c);
    const auto n = static_cast<uint32_t>(c.size());
    for (uint32_t k = 0; k < n; ++k) store.AddRef(c[k], pos, k, n, 1000);  // row = frame id
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_CallchainStoreAddSample);

void BM_CallchainStoreBuildRootRow(benchmark::State& state) {
  Functions fns(600);
  CallchainStore store;
  const auto nr = static_cast<size_t>(state.range(0));
  auto chains = RandomChains(&store, &fns, nr);
  for (const auto& c : chains) store.AddRef(0, store.AddChain(c), 0, static_cast<uint32_t>(c.size()), 1000);
  CallGraphParams params;  // graph,0.5: what perf report prints by default
  CallchainStore::BuildScratch scratch;
  for (auto _ : state) benchmark::DoNotOptimize(store.Build(0, params, 1000 * nr, &scratch));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * nr));
}
BENCHMARK(BM_CallchainStoreBuildRootRow)->Arg(1 << 12)->Arg(1 << 16);

}  // namespace
}  // namespace perflens::bench
