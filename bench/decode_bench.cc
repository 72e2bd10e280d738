// Record decoding: PerfFile::ReadRecords (framing, FINISHED_ROUND ordering) and
// ReadRecords + DecodeSample on a >= 200 MB in-memory perf.data; end-to-end Report on
// the same bytes. Counters: bytes/s (MB/s) and records/s, per CPU second (the machine
// is shared, so CPU time is the steadier measure).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>

#include "perfdata/perf_event.h"
#include "perfdata/perf_file.h"
#include "report/report.h"
#include "synthetic_data.h"

namespace perflens::bench {
namespace {

std::unique_ptr<PerfFile> OpenSynthetic(benchmark::State& state, bool ordered = true) {
  const auto& bytes = SyntheticPerfData();
  ReaderOptions ro;
  ro.ordered = ordered;
  auto file = PerfFile::FromBytes(MappedFile::FromBuffer(bytes, SyntheticPerfDataSource()), ro);
  if (!file) {
    state.SkipWithError(file.error().message.c_str());
    return nullptr;
  }
  return std::move(*file);
}

void SetCounters(benchmark::State& state, const PerfFile& file, uint64_t records) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * file.data_size()));
  state.counters["records/s"] =
      benchmark::Counter(static_cast<double>(records), benchmark::Counter::kIsRate);
  state.counters["MB"] = static_cast<double>(file.data_size()) / 1e6;
}

// Framing + ordering only: the callback touches the record header.
void BM_ReadRecords(benchmark::State& state) {
  auto file = OpenSynthetic(state, state.range(0) != 0);
  if (!file) return;
  uint64_t records = 0;
  for (auto _ : state) {
    ReadStats stats;
    uint64_t sum = 0;
    Status st = file->ReadRecords([&](const RecordView& r) { sum += r.type; }, &stats);
    benchmark::DoNotOptimize(sum);
    if (!st) state.SkipWithError(st.error().message.c_str());
    records += stats.nr_records_total;
  }
  SetCounters(state, *file, records);
}
BENCHMARK(BM_ReadRecords)->ArgName("ordered")->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);

// Framing + ordering + DecodeSample of every SAMPLE (callchains included).
void BM_ReadAndDecodeSamples(benchmark::State& state) {
  auto file = OpenSynthetic(state);
  if (!file) return;
  uint64_t records = 0;
  for (auto _ : state) {
    ReadStats stats;
    uint64_t sum = 0;
    Status st = file->ReadRecords(
        [&](const RecordView& r) {
          if (r.type != kRecordSample) return;
          Sample s;
          const Evsel* ev;
          if (file->ParseSample(r, &s, &ev) == SampleError::kNone) sum += s.ip + s.callchain.size;
        },
        &stats);
    benchmark::DoNotOptimize(sum);
    if (!st) state.SkipWithError(st.error().message.c_str());
    records += stats.nr_records_total;
  }
  SetCounters(state, *file, records);
}
BENCHMARK(BM_ReadAndDecodeSamples)->Unit(benchmark::kMillisecond);

// The whole report pipeline (model, resolver, hists; children + graph when arg is 1)
// without printing. The synthetic ips resolve through a perf map file (600 symbols), so
// this measures decoding, resolution and aggregation, not ELF loading.
void BM_ReportProcess(benchmark::State& state) {
  auto file = OpenSynthetic(state);
  if (!file) return;
  uint64_t records = 0;
  for (auto _ : state) {
    ReportOptions o;
    o.children = state.range(0) != 0;
    if (!*o.children) o.call_graph = "none";
    auto report = Report::Create(file.get(), o);
    if (!report) {
      state.SkipWithError(report.error().message.c_str());
      return;
    }
    Status st = (*report)->Process();
    if (!st) state.SkipWithError(st.error().message.c_str());
    records += (*report)->read_stats().nr_records_total;
  }
  SetCounters(state, *file, records);
}
BENCHMARK(BM_ReportProcess)->ArgName("children")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace perflens::bench
