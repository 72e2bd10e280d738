// Branch types as perf 6.1 names them (util/branch.c branch_type_name and the
// PERF_BR_EXTEND_ABI new types) and perf report's "Branch Statistics" of branch mode
// (branch_type_count / branch_type_stat_display).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "perfdata/sample.h"

namespace perflens {

// "" for PERF_BR_UNKNOWN (perf script prints nothing there), "COND", "CALL", …; an
// extended type (15) by its new_type ("FAULT_ALGN", …).
std::string_view BranchTypeName(const BranchFlags& f);

// Counts of the typed branches of a report (perf's struct branch_type_stat).
struct BranchTypeStat {
  uint64_t counts[16] = {};     // by BranchFlags::type (0 and 15 stay 0)
  uint64_t new_counts[8] = {};  // by new_type, for type 15
  uint64_t cond_fwd = 0, cond_bwd = 0, cross_4k = 0, cross_2m = 0;

  // perf's branch_type_count: untyped entries and entries from address 0 are left out.
  void Count(const BranchFlags& f, uint64_t from, uint64_t to);
  // branch_type_stat_display: "\n#\n# Branch Statistics:\n#" and one "\n%8s: %5.1f%%"
  // per nonzero count, as percentages of the typed branches; nothing without any.
  void Print(std::string* out) const;
  // perf's branch_type_str: calls item(name) for COND_FWD, COND_BWD, each other type,
  // each new type and CROSS_4K, CROSS_2M that were counted (nothing without a typed
  // branch).
  template <typename Fn>
  void AppendNames(Fn&& item) const;
};

std::string_view BranchTypeNameAt(size_t type);     // kTypes[type]
std::string_view BranchNewTypeNameAt(size_t type);  // kNewTypes[type]

template <typename Fn>
void BranchTypeStat::AppendNames(Fn&& item) const {
  uint64_t total = 0;
  for (uint64_t c : counts) total += c;
  for (uint64_t c : new_counts) total += c;
  if (total == 0) return;
  if (cond_fwd) item("COND_FWD");
  if (cond_bwd) item("COND_BWD");
  for (size_t i = 0; i < 16; ++i)
    if (i != 1 && counts[i]) item(BranchTypeNameAt(i));
  for (size_t i = 0; i < 8; ++i)
    if (new_counts[i]) item(BranchNewTypeNameAt(i));
  if (cross_4k) item("CROSS_4K");
  if (cross_2m) item("CROSS_2M");
}

}  // namespace perflens
