// Synthetic inputs for the micro-benchmarks: a large in-memory perf.data (built with
// tests/testutil/perf_data_writer.h) and a Machine with many maps and a JIT symbol map.
// Built once per process and shared by the benchmarks.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/mapped_file.h"

namespace perflens::bench {

// Shape of the synthetic recording: frame-pointer samples (ip, tid, time, cpu, period,
// callchain) from `nr_threads` threads of one process, FINISHED_ROUND every
// `round_records` records, like `perf record -g` output.
struct SyntheticSpec {
  uint64_t target_bytes = 256ull << 20;
  int nr_threads = 8;
  int callchain_depth = 12;
  int round_records = 4000;
  // The ips fall in `nr_functions` JIT functions of 1 KiB whose symbols are written to
  // /tmp/perf-PID.map (removed at exit).
  uint64_t text_start = 0x7f0000000000;
  int nr_functions = 600;
};

// The perf.data bytes (file mode, little-endian). If $PERFLENS_BENCH_DATA names a file,
// that recording is used instead. Cached.
const std::vector<uint8_t>& SyntheticPerfData();
// Where the bytes came from ("synthetic" or the path).
std::string SyntheticPerfDataSource();

}  // namespace perflens::bench
