// SynthesizeEvselName: the name perf gives an attr that has none in the file
// (tools/perf/util/evsel.c evsel__name, evsel__add_modifiers). Used for files without
// EVENT_DESC / EVENT_UPDATE names, e.g. old pipe-mode recordings.
#include <array>
#include <string>
#include <string_view>

#include "perfdata/perf_file.h"

namespace perflens {
namespace {

// enum perf_type_id
constexpr uint32_t kTypeHardware = 0, kTypeSoftware = 1, kTypeTracepoint = 2, kTypeHwCache = 3,
                   kTypeRaw = 4, kTypeBreakpoint = 5;

constexpr std::array<std::string_view, 10> kHwNames = {
    "cycles",     "instructions",  "cache-references", "cache-misses",
    "branches",   "branch-misses", "bus-cycles",       "stalled-cycles-frontend",
    "stalled-cycles-backend", "ref-cycles"};

// perf 6.1 stops at "dummy"; later perf adds bpf-output and cgroup-switches, which we
// include because a name is more useful than "unknown-software".
constexpr std::array<std::string_view, 12> kSwNames = {
    "cpu-clock",    "task-clock",   "page-faults",      "context-switches",
    "cpu-migrations", "minor-faults", "major-faults",   "alignment-faults",
    "emulation-faults", "dummy",    "bpf-output",       "cgroup-switches"};

constexpr std::array<std::string_view, 7> kCacheNames = {"L1-dcache", "L1-icache", "LLC", "dTLB",
                                                          "iTLB", "branch", "node"};
// Operation names: [0] is used with a result ("load-misses"), [1] without ("loads").
constexpr std::array<std::array<std::string_view, 2>, 3> kCacheOps = {
    {{"load", "loads"}, {"store", "stores"}, {"prefetch", "prefetches"}}};
constexpr std::array<std::string_view, 2> kCacheResults = {"refs", "misses"};
// Which ops each cache supports (bit per op): L1I is read+prefetch, ITLB and BPU read-only.
constexpr std::array<uint8_t, 7> kCacheOpsValid = {7, 5, 7, 7, 1, 1, 7};

std::string HwCacheName(uint64_t config) {
  uint32_t type = config & 0xff, op = (config >> 8) & 0xff, result = (config >> 16) & 0xff;
  if (type >= kCacheNames.size()) return "unknown-ext-hardware-cache-type";
  if (op >= kCacheOps.size()) return "unknown-ext-hardware-cache-op";
  if (result >= kCacheResults.size()) return "unknown-ext-hardware-cache-result";
  if (!((kCacheOpsValid[type] >> op) & 1)) return "invalid-cache";
  std::string name(kCacheNames[type]);
  if (result != 0) return name + "-" + std::string(kCacheOps[op][0]) + "-" + std::string(kCacheResults[result]);
  return name + "-" + std::string(kCacheOps[op][1]);
}

// evsel__add_modifiers: ":" then k/u/h for the contexts that are NOT excluded (only when
// some context is excluded), p's for precise_ip, and H/G when exclude_guest differs
// from the default implied by the earlier modifiers.
std::string Modifiers(const EventAttr& a) {
  std::string mods;
  bool exclude_guest_default = false;
  if (a.exclude_kernel() || a.exclude_user() || a.exclude_hv()) {
    if (!a.exclude_kernel()) mods += 'k';
    if (!a.exclude_user()) mods += 'u';
    if (!a.exclude_hv()) mods += 'h';
    exclude_guest_default = true;
  }
  if (a.precise_ip() > 0) {
    mods.append(static_cast<size_t>(a.precise_ip()), 'p');
    exclude_guest_default = true;
  }
  if (a.exclude_host() || a.exclude_guest() == exclude_guest_default) {
    if (!a.exclude_host()) mods += 'H';
    if (!a.exclude_guest()) mods += 'G';
  }
  return mods.empty() ? std::string() : ":" + mods;
}

}  // namespace

std::string SynthesizeEvselName(const EventAttr& attr) {
  switch (attr.type) {
    case kTypeHardware: {
      // Hybrid PMUs put the PMU type in config's upper 32 bits (PERF_PMU_TYPE_SHIFT);
      // newer perf masks it off, perf 6.1 printed "unknown-hardware".
      uint64_t id = attr.config & 0xffffffff;
      return std::string(id < kHwNames.size() ? kHwNames[id] : "unknown-hardware") + Modifiers(attr);
    }
    case kTypeSoftware:
      return std::string(attr.config < kSwNames.size() ? kSwNames[attr.config] : "unknown-software") +
             Modifiers(attr);
    case kTypeHwCache:
      return HwCacheName(attr.config & 0xffffffff) + Modifiers(attr);
    case kTypeRaw:
      return fmt::format("raw {:#x}", attr.config) + Modifiers(attr);
    case kTypeTracepoint:
      return "unknown tracepoint";
    case kTypeBreakpoint: {
      // bp_addr shares config1's slot, bp_type: HW_BREAKPOINT_R=1, W=2, X=4.
      std::string name = fmt::format("mem:{:#x}:", attr.config1);
      if (attr.bp_type & 1) name += 'r';
      if (attr.bp_type & 2) name += 'w';
      if (attr.bp_type & 4) name += 'x';
      return name + Modifiers(attr);
    }
    default:
      return fmt::format("unknown attr type: {}", attr.type);
  }
}

}  // namespace perflens
