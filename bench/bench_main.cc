// perflens_bench: Google Benchmark micro-benchmarks for perflens (issue #5). Run from a
// Release build: `build-bench/bench/perflens_bench [--benchmark_filter=Decode]`.
// PERFLENS_BENCH_DATA=fp.data makes the decode and report benchmarks read a real
// recording instead of the synthetic one.
#include <benchmark/benchmark.h>

BENCHMARK_MAIN();
