// CfiSource on a real ELF (this test binary): libdw's rows compiled into CfiRows.
#include <gtest/gtest.h>
#include <link.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

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

// A function whose CFI is only in a zlib-compressed .debug_frame (built without unwind
// tables, -gz), found through the separate debug file: OpenDebug hides every other
// compressed debug section from libdw, never .debug_frame.
TEST(CfiSource, CompressedDebugFrameOfTheDebugFile) {
#if defined(__x86_64__)
  char tmpl[] = "/tmp/perflens-cfi-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  const std::string src = dir + "/f.c", so = dir + "/f.so", debug = dir + "/f.debug";
  {
    FILE* f = std::fopen(src.c_str(), "w");
    ASSERT_NE(f, nullptr);
    // Enough functions that the assembler's compression pays for .debug_frame.
    std::fputs("int g(int);\n", f);
    for (int i = 1; i <= 200; ++i) std::fprintf(f, "int F%d(int x) { return g(x) * %d + g(x + %d); }\n", i, i, i);
    std::fputs("int OnlyInDebugFrame(int x) { return g(x) * 3 + g(x + 1); }\n", f);
    std::fclose(f);
  }
  const std::string build = "cc -O2 -g -gz=zlib -fno-asynchronous-unwind-tables -fno-unwind-tables -fPIC -shared -o " +
                            so + " " + src + " >/dev/null 2>&1 && cp " + so + " " + debug;
  if (std::system(build.c_str()) != 0) {
    std::system(("rm -rf " + dir).c_str());
    GTEST_SKIP() << "no C compiler with -gz";
  }
  // The function's address and whether .debug_frame came out compressed (flag C).
  std::string out;
  if (FILE* p = popen(("nm " + so + " | grep ' OnlyInDebugFrame$'; readelf -SW " + so + " | grep debug_frame").c_str(), "r")) {
    char buf[512];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    pclose(p);
  }
  std::system(("rm -f " + src).c_str());
  const uint64_t vaddr = std::strtoull(out.c_str(), nullptr, 16);
  const bool compressed = out.find(".debug_frame") != std::string::npos &&
                          out.find(" C ", out.find(".debug_frame")) != std::string::npos;
  CfiRow row;
  CfiFind without_debug = CfiSource(so, "").FindRow(vaddr, 17, &row);
  CfiFind with_debug = CfiSource(so, debug).FindRow(vaddr, 17, &row);
  std::system(("rm -rf " + dir).c_str());
  ASSERT_NE(vaddr, 0u) << out;
  if (!compressed) GTEST_SKIP() << "the toolchain did not compress .debug_frame: " << out;
  EXPECT_EQ(without_debug, CfiFind::kNoCfi) << "no .eh_frame FDE covers it";
  ASSERT_EQ(with_debug, CfiFind::kFound);
  EXPECT_EQ(row.ra_reg, 16);
#else
  GTEST_SKIP() << "x86_64 expectations";
#endif
}

// Rows are kept for the pcs from the one looked up to where the next row starts, and
// shared by later lookups there. libdw's row start is not trusted: after
// DW_CFA_restore_state it is the remembered row's start (elfutils 0.188), so trusting
// it would give the restored row (CFA rsp+80) to the epilogue's pcs (rsp+16) below.
TEST(CfiSource, RowsServeTheirRangeAndNotBelowARestoredRow) {
#if defined(__x86_64__)
  char tmpl[] = "/tmp/perflens-cfi-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  const std::string asm_path = dir + "/f.s", so = dir + "/f.so";
  {
    FILE* f = std::fopen(asm_path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(
        ".text\n.globl f\n.type f,@function\nf:\n.cfi_startproc\n"
        "  push %rbx\n.cfi_def_cfa_offset 16\n"
        "  sub $64, %rsp\n.cfi_def_cfa_offset 80\n"
        ".globl body_a\nbody_a:\n  nop\n  nop\n.globl body_b\nbody_b:\n  nop\n  test %rdi, %rdi\n  je restored\n"
        ".cfi_remember_state\n"
        "  add $64, %rsp\n.cfi_def_cfa_offset 16\n"
        ".globl epilogue\nepilogue:\n  nop\n  nop\n  pop %rbx\n.cfi_def_cfa_offset 8\n  ret\n"
        ".cfi_restore_state\n"
        ".globl restored\nrestored:\n  nop\n  nop\n  add $64, %rsp\n  pop %rbx\n  ret\n"
        ".cfi_endproc\n.size f, .-f\n",
        f);
    std::fclose(f);
  }
  if (std::system(("cc -shared -nostdlib -o " + so + " " + asm_path + " >/dev/null 2>&1").c_str()) != 0) {
    std::system(("rm -rf " + dir).c_str());
    GTEST_SKIP() << "no assembler";
  }
  std::string out;
  if (FILE* p = popen(("nm " + so).c_str(), "r")) {
    char buf[256];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    pclose(p);
  }
  auto addr = [&](const std::string& name) {
    const size_t at = out.find(" T " + name + "\n");
    return at == std::string::npos ? 0 : std::strtoull(out.c_str() + out.rfind('\n', at) + 1, nullptr, 16);
  };
  const uint64_t body_a = addr("body_a"), body_b = addr("body_b"), epilogue = addr("epilogue"),
                 restored = addr("restored");
  ASSERT_TRUE(body_a && body_b && epilogue && restored) << out;
  CfiSource src(so, "");
  CfiRow scratch;
  // The restored row first, then a pc of the epilogue below it.
  const CfiSource::Lookup at_restored = src.Find(restored + 1, 17, &scratch);
  const CfiSource::Lookup at_epilogue = src.Find(epilogue + 1, 17, &scratch);
  // body_b, then body_a below it in the same row: one kept row serves both, and again
  // body_b + 1 without libdw.
  const CfiSource::Lookup at_b = src.Find(body_b, 17, &scratch);
  const CfiSource::Lookup at_a = src.Find(body_a, 17, &scratch);
  const CfiSource::Lookup at_b1 = src.Find(body_b + 1, 17, &scratch);
  std::system(("rm -rf " + dir).c_str());
  ASSERT_EQ(at_restored.found, CfiFind::kFound);
  ASSERT_EQ(at_epilogue.found, CfiFind::kFound);
  EXPECT_EQ(at_restored.row->cfa_offset, 80);
  EXPECT_EQ(at_epilogue.row->cfa_offset, 16);
  ASSERT_EQ(at_b.found, CfiFind::kFound);
  ASSERT_EQ(at_a.found, CfiFind::kFound);
  ASSERT_EQ(at_b1.found, CfiFind::kFound);
  EXPECT_TRUE(at_b.stable && at_a.stable && at_b1.stable);
  EXPECT_EQ(at_b.row->cfa_offset, 80);
  EXPECT_EQ(at_a.row, at_b.row) << "one kept row for the pcs of one CFI row";
  EXPECT_EQ(at_b1.row, at_b.row);
  EXPECT_NE(at_a.row, &scratch);
#else
  GTEST_SKIP() << "x86_64 expectations";
#endif
}

}  // namespace
}  // namespace perflens
