// CfiSource on a real ELF (this test binary): libdw's rows compiled into CfiRows.
#include <gtest/gtest.h>
#include <link.h>

#include "unwind/cfi_source.h"

namespace perflens {
namespace {

__attribute__((noinline)) int Probe(int x) { return x * 3 + 1; }

uintptr_t ExeBias() {
  uintptr_t bias = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) {
        *static_cast<uintptr_t*>(out) = info->dlpi_addr;
        return 1;  // the first object is the executable
      },
      &bias);
  return bias;
}

TEST(CfiSource, RowAtFunctionEntry) {
#if defined(__x86_64__)
  CfiSource src("/proc/self/exe", "");
  const uint64_t dso_vaddr = reinterpret_cast<uintptr_t>(&Probe) - ExeBias();
  CfiRow row;
  ASSERT_EQ(src.FindRow(dso_vaddr, 17, &row), CfiFind::kFound);
  // At a function's first instruction: CFA = rsp + 8, return address at CFA - 8.
  EXPECT_FALSE(row.cfa_is_expr);
  EXPECT_EQ(row.cfa_reg, 7);
  EXPECT_EQ(row.cfa_offset, 8);
  EXPECT_EQ(row.ra_reg, 16);
  EXPECT_EQ(row.regs[16].kind, CfiRuleKind::kAtCfa);
  EXPECT_EQ(row.regs[16].offset, -8);
  EXPECT_FALSE(row.signal_frame);
  // Twice gives the same (libdw's caches filled).
  CfiRow again;
  ASSERT_EQ(src.FindRow(dso_vaddr, 17, &again), CfiFind::kFound);
  EXPECT_EQ(again.cfa_offset, row.cfa_offset);
#else
  GTEST_SKIP() << "x86_64 expectations";
#endif
}

TEST(CfiSource, MissingPcAndImage) {
  CfiSource src("/proc/self/exe", "");
  CfiRow row;
  EXPECT_EQ(src.FindRow(0, 17, &row), CfiFind::kNoCfi);  // no FDE covers address 0
  CfiSource none("/nonexistent/perflens-unwind-test", "");
  EXPECT_EQ(none.FindRow(0x1000, 17, &row), CfiFind::kNoImage);
  CfiSource empty("", "");
  EXPECT_EQ(empty.FindRow(0x1000, 17, &row), CfiFind::kNoImage);
}

}  // namespace
}  // namespace perflens
