// HeaderEnv: the typed contents of the perf.data header feature sections
// (tools/perf/util/header.c process_* functions; spec A5). In file mode they come from
// the feature index after the data section; in pipe mode from HEADER_FEATURE records.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/byte_order.h"
#include "base/result.h"
#include "perfdata/event_attr.h"
#include "perfdata/record.h"
#include "perfdata/tracing_data.h"

namespace perflens {

struct EventDesc {
  EventAttr attr;
  std::string name;
  std::vector<uint64_t> ids;
};

struct CpuTopology {
  std::vector<std::string> core_siblings;    // "package" siblings, cpulist strings
  std::vector<std::string> thread_siblings;
  struct CpuInfo { uint32_t core_id, socket_id, die_id; };
  std::vector<CpuInfo> cpus;                 // empty when the optional tail is absent
  std::vector<std::string> die_siblings;
};

struct NumaNode {
  uint32_t node = 0;
  uint64_t mem_total_kb = 0, mem_free_kb = 0;
  std::string cpus;
};

struct PmuMapping {
  uint32_t type = 0;
  std::string name;
};

struct GroupDesc {
  std::string name;
  uint32_t leader_idx = 0, nr_members = 0;
};

struct CacheLevel {
  uint32_t level = 0, line_size = 0, sets = 0, ways = 0;
  std::string type, size, map;
};

struct MemTopologyNode {
  uint64_t node = 0, size = 0;
  std::vector<uint64_t> bitmap;  // nbits in `nbits`
  uint64_t nbits = 0;
};

struct PmuCaps {
  std::string pmu_name;
  std::vector<std::pair<std::string, std::string>> caps;
};

struct HybridNode {
  std::string pmu_name, cpus;
};

struct HeaderEnv {
  // Which feature bits were present (file bitmap, or HEADER_FEATURE records seen).
  std::vector<int> features_present;
  bool Has(int feature) const;

  std::vector<BuildIdEntry> build_ids;
  std::optional<std::string> hostname, osrelease, version, arch, cpudesc, cpuid;
  std::optional<uint32_t> nr_cpus_avail, nr_cpus_online;
  std::optional<uint64_t> total_mem_kb;
  std::vector<std::string> cmdline;  // first entry is the perf binary path
  std::vector<EventDesc> event_desc;
  std::optional<CpuTopology> cpu_topology;
  std::vector<NumaNode> numa_nodes;
  std::vector<PmuMapping> pmu_mappings;
  std::vector<GroupDesc> group_desc;
  std::vector<std::pair<uint64_t, uint64_t>> auxtrace_index;  // (file offset, size)
  std::vector<CacheLevel> caches;
  std::optional<uint64_t> first_sample_time, last_sample_time;  // ns
  std::optional<uint64_t> mem_block_size;
  std::vector<MemTopologyNode> mem_topology;
  std::optional<uint64_t> clockid_res_ns;
  std::optional<uint64_t> dir_format_version;
  uint32_t bpf_prog_info_count = 0, bpf_btf_count = 0;
  std::vector<uint32_t> bpf_btf_ids;  // BPF_BTF entry ids, in file order
  struct Compressed { uint32_t version, type, level, ratio, mmap_len; };
  std::optional<Compressed> compressed;
  std::vector<std::pair<std::string, std::string>> cpu_pmu_caps;
  struct ClockData { uint32_t version, clockid; uint64_t wall_clock_ns, clockid_time_ns; };
  std::optional<ClockData> clock_data;
  std::vector<HybridNode> hybrid_topology;
  std::vector<PmuCaps> pmu_caps;
  bool branch_stack = false, stat = false;
  // TRACING_DATA (file mode) or the HEADER_TRACING_DATA record's bytes (pipe mode):
  // tracepoint formats; nullptr when absent or unreadable (then a warning says why).
  std::shared_ptr<const TracingData> tracing_data;
  std::vector<std::string> warnings;  // one line per feature that failed to parse
};

// Decodes feature `feature` from its payload bytes into `env`. Unknown features are
// ignored. Errors name the feature; a malformed feature never aborts the file (callers
// record the error in env->warnings and go on).
Status ParseFeature(int feature, std::span<const uint8_t> payload, const Loader& ld,
                    HeaderEnv* env);

}  // namespace perflens
