#include "synthetic_data.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "perfdata/sample.h"  // BranchEntry, used by the writer
#include "testutil/perf_data_writer.h"

namespace perflens::bench {
namespace {

constexpr uint64_t kFunctionBytes = 0x400;

// Removes the perf map file written for the synthetic process at exit.
struct MapFile {
  std::string path;
  ~MapFile() {
    if (!path.empty()) std::remove(path.c_str());
  }
};
MapFile g_map_file;

std::vector<uint8_t> Build(const SyntheticSpec& spec) {
  using testutil::PerfDataWriter;
  using testutil::SampleFields;
  PerfDataWriter w(PerfDataWriter::kFile);
  EventAttr attr;
  attr.type = 1;  // PERF_TYPE_SOFTWARE, cpu-clock
  attr.size = 136;
  attr.sample_period = 4000;
  attr.sample_type = kSampleIp | kSampleTid | kSampleTime | kSampleCallchain | kSampleCpu | kSamplePeriod;
  attr.flags = (1ull << 10) | (1ull << 8) | (1ull << 9) | (1ull << 18);  // freq, mmap, comm, sample_id_all
  int ev = w.AddAttr(attr, {1});
  // An unlikely pid so /tmp/perf-PID.map (the JIT symbols) is ours.
  const uint32_t pid = 3000000 + static_cast<uint32_t>(getpid() % 100000);
  g_map_file.path = "/tmp/perf-" + std::to_string(pid) + ".map";
  {
    std::ofstream map(g_map_file.path);
    char line[96];
    for (int f = 0; f < spec.nr_functions; ++f) {
      std::snprintf(line, sizeof line, "%llx %x bench_function_%04d\n",
                    static_cast<unsigned long long>(spec.text_start + static_cast<uint64_t>(f) * kFunctionBytes),
                    static_cast<unsigned>(kFunctionBytes), f);
      map << line;
    }
  }
  w.Comm(pid, pid, "bench", false, testutil::SidAt(pid, 1));
  for (int t = 1; t < spec.nr_threads; ++t) {
    w.Fork(pid, pid, pid + t, pid, 2, testutil::SidAt(pid, 2));
    w.Comm(pid, pid + t, "bench-w" + std::to_string(t), false, testutil::SidAt(pid, 3));
  }
  // Anonymous executable memory described by the perf map above (MMAP, not MMAP2).
  w.Mmap(pid, pid, spec.text_start, static_cast<uint64_t>(spec.nr_functions) * kFunctionBytes, 0, "//anon",
         testutil::SidAt(pid, 4));
  uint64_t x = 0x243F6A8885A308D3ull, time = 1000;
  SampleFields s;
  s.misc = kMiscUser;
  s.period = 250000;
  uint64_t nr = 0;
  while (w.data().size() < spec.target_bytes) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t tid = pid + static_cast<uint32_t>((x >> 33) % spec.nr_threads);
    s.pid = pid;
    s.tid = tid;
    s.cpu = tid & 1;
    s.time = (time += 1000 + (x >> 54));
    s.ip = spec.text_start + (x >> 20) % spec.nr_functions * kFunctionBytes + (x >> 8) % 64 * 8;
    s.callchain.clear();
    s.callchain.push_back(kContextUser);
    s.callchain.push_back(s.ip);
    uint64_t y = x;
    for (int d = 0; d < spec.callchain_depth; ++d) {
      y = y * 0x9E3779B97F4A7C15ull + d;
      // One return address per function, so callchains share prefixes.
      s.callchain.push_back(spec.text_start + (y >> 40) % spec.nr_functions * kFunctionBytes + 0x40);
    }
    w.Sample(ev, s);
    if (++nr % spec.round_records == 0) w.FinishedRound();
  }
  w.FinishedRound();
  return w.Finish();
}

}  // namespace

std::string SyntheticPerfDataSource() {
  const char* path = std::getenv("PERFLENS_BENCH_DATA");
  return path && *path ? std::string(path) : std::string("synthetic");
}

const std::vector<uint8_t>& SyntheticPerfData() {
  static const std::vector<uint8_t>* data = [] {
    std::string src = SyntheticPerfDataSource();
    if (src != "synthetic") {
      std::ifstream in(src, std::ios::binary);
      return new std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
    }
    return new std::vector<uint8_t>(Build(SyntheticSpec{}));
  }();
  return *data;
}

}  // namespace perflens::bench
