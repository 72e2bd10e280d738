#include "perfdata/perf_event.h"

namespace perflens {

std::string_view RecordTypeName(uint32_t type) {
  // Names as tools/perf/util/event.c perf_event__names[] spells them.
  static constexpr std::string_view kKernel[] = {
      "",          "MMAP",         "LOST",       "COMM",            "EXIT",
      "THROTTLE",  "UNTHROTTLE",   "FORK",       "READ",            "SAMPLE",
      "MMAP2",     "AUX",          "ITRACE_START", "LOST_SAMPLES",  "SWITCH",
      "SWITCH_CPU_WIDE", "NAMESPACES", "KSYMBOL", "BPF_EVENT",      "CGROUP",
      "TEXT_POKE", "AUX_OUTPUT_HW_ID", "CALLCHAIN_DEFERRED"};
  static constexpr std::string_view kUser[] = {
      "ATTR",           "EVENT_TYPE",  "TRACING_DATA", "BUILD_ID",   "FINISHED_ROUND",
      "ID_INDEX",       "AUXTRACE_INFO", "AUXTRACE",   "AUXTRACE_ERROR", "THREAD_MAP",
      "CPU_MAP",        "STAT_CONFIG", "STAT",         "STAT_ROUND", "EVENT_UPDATE",
      "TIME_CONV",      "FEATURE",     "COMPRESSED",   "FINISHED_INIT", "COMPRESSED2",
      "BPF_METADATA",   "SCHEDSTAT_CPU", "SCHEDSTAT_DOMAIN"};
  if (type > 0 && type < std::size(kKernel)) return kKernel[type];
  if (type >= 64 && type - 64 < std::size(kUser)) return kUser[type - 64];
  return "UNKNOWN";
}

std::string_view FeatureName(int feature) {
  static constexpr std::string_view kNames[] = {
      "reserved",     "tracing_data", "build_id",     "hostname",     "osrelease",
      "version",      "arch",         "nrcpus",       "cpudesc",      "cpuid",
      "total_mem",    "cmdline",      "event_desc",   "cpu_topology", "numa_topology",
      "branch_stack", "pmu_mappings", "group_desc",   "auxtrace",     "stat",
      "cache",        "sample_time",  "mem_topology", "clockid",      "dir_format",
      "bpf_prog_info", "bpf_btf",     "compressed",   "cpu_pmu_caps", "clock_data",
      "hybrid_topology", "pmu_caps"};
  if (feature >= 0 && static_cast<size_t>(feature) < std::size(kNames)) return kNames[feature];
  return "unknown";
}

}  // namespace perflens
