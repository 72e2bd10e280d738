// Line and inline-frame lookups (DsoModule::FindSourceLine / FramesAt over DwarfIndex)
// on a real binary, for issue #13's target (report --sort sym,srcline >= 50x perf).
// The binary is $PERFLENS_BENCH_DWARF, else this benchmark's own executable (it has
// DWARF in the default RelWithDebInfo build; a Release build-bench has none, then set
// the variable, e.g. to build/src/cli/perflens). Addresses: 64K random offsets inside
// random function symbols of its table, the same for every run (seeded).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "model/dso.h"
#include "symbolize/dwarf_index.h"
#include "symbolize/symbolizer.h"

namespace perflens::bench {
namespace {

std::string DwarfBinary() {
  if (const char* p = std::getenv("PERFLENS_BENCH_DWARF")) return p;
  return std::filesystem::read_symlink("/proc/self/exe").string();
}

struct Fixture {
  std::unique_ptr<Dso> dso;
  std::unique_ptr<Symbolizer> symbolizer;
  const DsoModule* module = nullptr;
  std::vector<uint64_t> addrs;  // dso_addr (file offsets)
};

// A fresh module and the addresses; `warm` reads every compile unit they touch first.
std::unique_ptr<Fixture> MakeFixture(bool warm) {
  auto f = std::make_unique<Fixture>();
  f->dso = std::make_unique<Dso>(1, DwarfBinary(), DsoKind::kUser);
  f->symbolizer = std::make_unique<Symbolizer>(SymbolizeOptions{.buildid_dir = "/nonexistent"}, nullptr);
  f->module = f->symbolizer->Module(*f->dso);
  const SymbolTable* table = f->module->symbols();
  if (!table || table->empty()) return f;
  std::vector<const Symbol*> funcs;
  for (const Symbol& s : table->symbols())
    if (s.type == 2 && s.end > s.start) funcs.push_back(&s);
  std::mt19937_64 rng(13);
  for (int i = 0; i < (1 << 16) && !funcs.empty(); ++i) {
    const Symbol* s = funcs[rng() % funcs.size()];
    f->addrs.push_back(s->start + rng() % (s->end - s->start));
  }
  if (warm)
    for (uint64_t a : f->addrs) benchmark::DoNotOptimize(f->module->FramesAt(a));
  return f;
}

Fixture* Warm() {
  static std::unique_ptr<Fixture> f = MakeFixture(true);
  return f.get();
}

bool Usable(benchmark::State& state, const Fixture* f) {
  if (f->addrs.empty() || !f->module->dwarf_index()) {
    state.SkipWithError(("no symbols or DWARF in " + DwarfBinary() + "; set PERFLENS_BENCH_DWARF").c_str());
    return false;
  }
  return true;
}

// The baseline the srcline path adds to: the ELF symbol only.
void BM_FindSymbolOnly(benchmark::State& state) {
  Fixture* f = Warm();
  if (!Usable(state, f)) return;
  size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(f->module->FindSymbol(f->addrs[i++ & 0xffff]));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_FindSymbolOnly);

// `--sort srcline`'s lookup: the innermost line (CU search, row search), CUs read.
void BM_FindSourceLine(benchmark::State& state) {
  Fixture* f = Warm();
  if (!Usable(state, f)) return;
  size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(f->module->FindSourceLine(f->addrs[i++ & 0xffff]));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_FindSourceLine);

// Symbol + inline chain + a line per frame, CUs read.
void BM_FramesAt(benchmark::State& state) {
  Fixture* f = Warm();
  if (!Usable(state, f)) return;
  size_t i = 0, frames = 0;
  for (auto _ : state) {
    SymbolFrames fr = f->module->FramesAt(f->addrs[i++ & 0xffff]);
    frames += fr.size();
    benchmark::DoNotOptimize(fr);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["frames_per_addr"] = static_cast<double>(frames) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_FramesAt);

// Cold: a fresh module answering all 64K addresses, so it opens libdw and reads every
// compile unit they touch (what the first srcline report on a binary pays once).
void BM_FramesAtCold64K(benchmark::State& state) {
  size_t cus = 0, inline_syms = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::unique_ptr<Fixture> f = MakeFixture(false);
    state.ResumeTiming();
    if (!Usable(state, f.get())) return;
    for (uint64_t a : f->addrs) benchmark::DoNotOptimize(f->module->FramesAt(a));
    cus = f->module->dwarf_index()->compile_unit_count();
    inline_syms = f->module->dwarf_index()->inline_symbol_count();
  }
  state.SetItemsProcessed(state.iterations() * (1 << 16));
  state.counters["compile_units"] = static_cast<double>(cus);
  state.counters["inline_symbols"] = static_cast<double>(inline_syms);
}
BENCHMARK(BM_FramesAtCold64K)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace perflens::bench
