#include "report/branch_type.h"

#include <iterator>

#include <fmt/format.h>

namespace perflens {
namespace {

constexpr std::string_view kTypes[] = {"",         "COND",     "UNCOND",  "IND",    "CALL",
                                       "IND_CALL", "RET",      "SYSCALL", "SYSRET", "COND_CALL",
                                       "COND_RET", "ERET",     "IRQ",     "SERROR", "NO_TX"};
constexpr std::string_view kNewTypes[] = {"FAULT_ALGN", "FAULT_DATA", "FAULT_INST", "ARCH_1",
                                          "ARCH_2",     "ARCH_3",     "ARCH_4",     "ARCH_5"};
constexpr uint8_t kExtendAbi = 15;

}  // namespace

std::string_view BranchTypeNameAt(size_t type) { return type < std::size(kTypes) ? kTypes[type] : ""; }
std::string_view BranchNewTypeNameAt(size_t type) { return type < std::size(kNewTypes) ? kNewTypes[type] : ""; }

std::string_view BranchTypeName(const BranchFlags& f) {
  if (f.type < std::size(kTypes)) return kTypes[f.type];
  if (f.new_type < std::size(kNewTypes)) return kNewTypes[f.new_type];
  return "";
}

void BranchTypeStat::Count(const BranchFlags& f, uint64_t from, uint64_t to) {
  if (f.type == 0 || from == 0) return;
  if (f.type == kExtendAbi) {
    if (f.new_type < std::size(new_counts)) ++new_counts[f.new_type];
  } else {
    ++counts[f.type];
  }
  if (f.type == 1) {  // PERF_BR_COND
    if (to > from) ++cond_fwd;
    else ++cond_bwd;
  }
  // cross_area: the two addresses in different 2 MiB (else 4 KiB) aligned areas.
  if ((from >> 21) != (to >> 21)) ++cross_2m;
  else if ((from >> 12) != (to >> 12)) ++cross_4k;
}

void BranchTypeStat::Print(std::string* out) const {
  uint64_t total = 0;
  for (uint64_t c : counts) total += c;
  for (uint64_t c : new_counts) total += c;
  if (total == 0) return;
  out->append("\n#\n# Branch Statistics:\n#");
  auto line = [&](std::string_view name, uint64_t n) {
    if (n > 0) fmt::format_to(std::back_inserter(*out), "\n{:>8}: {:5.1f}%", name, 100.0 * double(n) / double(total));
  };
  line("COND_FWD", cond_fwd);
  line("COND_BWD", cond_bwd);
  line("CROSS_4K", cross_4k);
  line("CROSS_2M", cross_2m);
  for (size_t i = 0; i < std::size(counts); ++i) line(i < std::size(kTypes) ? kTypes[i] : "", counts[i]);
  for (size_t i = 0; i < std::size(new_counts); ++i) line(kNewTypes[i], new_counts[i]);
}

}  // namespace perflens
