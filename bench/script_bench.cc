// `perf script` output: the formatting of one callchain line (the Put* helpers into a
// TextBuffer, against the fmt::format_to calls they replaced), and Script::Run end to
// end on the synthetic recording (or $PERFLENS_BENCH_DATA), text discarded.
#include <benchmark/benchmark.h>

#include <fmt/format.h>

#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "perfdata/perf_file.h"
#include "report/script_printer.h"
#include "report/text_buffer.h"
#include "synthetic_data.h"

namespace perflens::bench {
namespace {

// Kernel and user addresses, as callchains mix them.
std::vector<uint64_t> FrameAddrs() {
  std::mt19937_64 rng(3);
  std::vector<uint64_t> v(1024);
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = i % 2 ? 0xffffffff81000000 + rng() % 0x1000000 : 0x7f2c6b000000 + rng() % 0x1000000;
  return v;
}

constexpr std::string_view kSym = "get_page_from_freelist";
constexpr std::string_view kDso = "[kernel.kallsyms]";

// "\t%16lx sym+0x%lx (dso)\n", the line sample__fprintf_callchain prints per frame.
void BM_FormatFrameLine_Put(benchmark::State& state) {
  auto addrs = FrameAddrs();
  TextBuffer out(1 << 20);
  size_t i = 0;
  for (auto _ : state) {
    uint64_t ip = addrs[i++ & (addrs.size() - 1)];
    char* p = out.Reserve(64 + kSym.size() + kDso.size());
    *p++ = '\t';
    p = PutHex(p, ip, 16);
    *p++ = ' ';
    p = PutHex(PutStr(PutStr(p, kSym), "+0x"), ip & 0xfff);
    p = PutStr(PutStr(p, " ("), kDso);
    p = PutStr(p, ")\n");
    out.Commit(p);
    if (out.size() > (1 << 19)) out.clear();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_FormatFrameLine_Put);

void BM_FormatFrameLine_Fmt(benchmark::State& state) {
  auto addrs = FrameAddrs();
  std::string out;
  out.reserve(1 << 20);
  size_t i = 0;
  for (auto _ : state) {
    uint64_t ip = addrs[i++ & (addrs.size() - 1)];
    fmt::format_to(std::back_inserter(out), "\t{:16x} {}+0x{:x} ({})\n", ip, kSym, ip & 0xfff, kDso);
    if (out.size() > (1 << 19)) out.clear();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_FormatFrameLine_Fmt);

// The sample header: "%16s %5d %12s: %10lu %s: " (comm, tid, time, period, event).
void BM_FormatSampleHeader_Put(benchmark::State& state) {
  TextBuffer out(1 << 20);
  uint64_t time = 3211485638000;
  for (auto _ : state) {
    char* p = out.Reserve(160);
    p = PutStrRight(p, "perflens_worklo", 16);
    *p++ = ' ';
    p = PutIntRight(p, 12663, 5);
    *p++ = ' ';
    p = PutStr(PutTimeUsec(p, time += 40123, 12), ": ");
    p = PutDec(p, 40000, 10);
    *p++ = ' ';
    p = PutStr(PutStrRight(p, "cpu-clock", 9), ": \n");
    out.Commit(p);
    if (out.size() > (1 << 19)) out.clear();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_FormatSampleHeader_Put);

// Script::Run with the default fields: decoding, resolution (perf map symbols) and
// printing. Counters per CPU second, as decode_bench.
void BM_Script(benchmark::State& state) {
  const auto& bytes = SyntheticPerfData();
  auto file = PerfFile::FromBytes(MappedFile::FromBuffer(bytes, SyntheticPerfDataSource()));
  if (!file) {
    state.SkipWithError(file.error().message.c_str());
    return;
  }
  uint64_t text_bytes = 0;
  for (auto _ : state) {
    ScriptOptions o;
    o.hide_call_graph = state.range(0) == 0;
    auto script = Script::Create(file->get(), o);
    if (!script) {
      state.SkipWithError(script.error().message.c_str());
      return;
    }
    Status st = (*script)->Run([&](std::string_view s) { text_bytes += s.size(); });
    if (!st) state.SkipWithError(st.error().message.c_str());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * (*file)->data_size()));
  state.counters["text MB/s"] = benchmark::Counter(static_cast<double>(text_bytes) / 1e6, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Script)->ArgName("callchain")->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace perflens::bench
