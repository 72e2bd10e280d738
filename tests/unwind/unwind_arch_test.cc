// Register tables: perf's sample_regs_user order → DWARF numbers per arch.
#include <gtest/gtest.h>

#include <vector>

#include "unwind/unwind_arch.h"

namespace perflens {
namespace {

U64Array Regs(const std::vector<uint64_t>& v) { return {reinterpret_cast<const uint8_t*>(v.data()), v.size(), false}; }

TEST(UnwindArch, FromHeaderArchAndAbi) {
  EXPECT_EQ(UnwindArchFor("x86_64", 2), UnwindArch::kX86_64);
  EXPECT_EQ(UnwindArchFor("x86_64", 1), UnwindArch::kI386);  // a -m32 task on a 64-bit kernel
  EXPECT_EQ(UnwindArchFor("i686", 1), UnwindArch::kI386);
  EXPECT_EQ(UnwindArchFor("aarch64", 2), UnwindArch::kAarch64);
  EXPECT_EQ(UnwindArchFor("arm64", 2), UnwindArch::kAarch64);
  EXPECT_EQ(UnwindArchFor("aarch64", 1), UnwindArch::kUnknown);  // arm32 compat: no table
  EXPECT_EQ(UnwindArchFor("x86_64", 0), UnwindArch::kUnknown);
  EXPECT_EQ(UnwindArchFor("", 2), UnwindArch::kUnknown);
  EXPECT_EQ(UnwindArchFor("riscv64", 2), UnwindArch::kUnknown);
}

TEST(UnwindArch, X86_64MaskOrderToDwarf) {
  // perf record's mask 0xff0fff: AX BX CX DX SI DI BP SP IP FLAGS CS SS, R8..R15.
  std::vector<uint64_t> v;
  for (int bit = 0; bit < 24; ++bit)
    if ((0xff0fffULL >> bit) & 1) v.push_back(0x1000 + static_cast<uint64_t>(bit));
  RegisterFile rf;
  uint64_t pc = 0, sp = 0;
  ASSERT_EQ(LoadUserRegs(UnwindArch::kX86_64, 0xff0fff, Regs(v), &rf, &pc, &sp), RegsError::kNone);
  EXPECT_EQ(pc, 0x1008u);  // perf IP (bit 8)
  EXPECT_EQ(sp, 0x1007u);  // perf SP (bit 7)
  EXPECT_EQ(rf.value[0], 0x1000u);  // rax = AX
  EXPECT_EQ(rf.value[1], 0x1003u);  // rdx = DX
  EXPECT_EQ(rf.value[2], 0x1002u);  // rcx = CX
  EXPECT_EQ(rf.value[3], 0x1001u);  // rbx = BX
  EXPECT_EQ(rf.value[4], 0x1004u);  // rsi
  EXPECT_EQ(rf.value[5], 0x1005u);  // rdi
  EXPECT_EQ(rf.value[6], 0x1006u);  // rbp
  EXPECT_EQ(rf.value[7], 0x1007u);  // rsp
  for (int i = 0; i < 8; ++i) EXPECT_EQ(rf.value[8 + i], 0x1010u + static_cast<uint64_t>(i)) << "r" << 8 + i;
  EXPECT_EQ(rf.value[16], 0x1008u);  // the RA column holds the pc
  EXPECT_EQ(rf.valid, (uint64_t{1} << 17) - 1);
}

TEST(UnwindArch, I386TruncatesAndRenumbers) {
  // AX BX CX DX SI DI BP SP IP as a 32-bit task's values (upper halves garbage).
  std::vector<uint64_t> v;
  for (int bit = 0; bit < 9; ++bit) v.push_back(0xdead000000000000ULL | (0x100 + static_cast<uint64_t>(bit)));
  RegisterFile rf;
  uint64_t pc = 0, sp = 0;
  ASSERT_EQ(LoadUserRegs(UnwindArch::kI386, 0x1ff, Regs(v), &rf, &pc, &sp), RegsError::kNone);
  EXPECT_EQ(pc, 0x108u);
  EXPECT_EQ(sp, 0x107u);
  EXPECT_EQ(rf.value[0], 0x100u);  // eax
  EXPECT_EQ(rf.value[1], 0x102u);  // ecx = CX
  EXPECT_EQ(rf.value[2], 0x103u);  // edx = DX
  EXPECT_EQ(rf.value[3], 0x101u);  // ebx = BX
  EXPECT_EQ(rf.value[4], 0x107u);  // esp
  EXPECT_EQ(rf.value[5], 0x106u);  // ebp
  EXPECT_EQ(rf.value[6], 0x104u);  // esi
  EXPECT_EQ(rf.value[7], 0x105u);  // edi
  EXPECT_EQ(rf.value[8], 0x108u);  // eip
}

TEST(UnwindArch, Aarch64) {
  // X0..X30 SP PC: mask bits 0..32.
  std::vector<uint64_t> v;
  for (int bit = 0; bit < 33; ++bit) v.push_back(0x2000 + static_cast<uint64_t>(bit));
  RegisterFile rf;
  uint64_t pc = 0, sp = 0;
  ASSERT_EQ(LoadUserRegs(UnwindArch::kAarch64, (uint64_t{1} << 33) - 1, Regs(v), &rf, &pc, &sp), RegsError::kNone);
  EXPECT_EQ(pc, 0x2020u);
  EXPECT_EQ(sp, 0x201fu);
  EXPECT_EQ(rf.value[29], 0x201du);  // x29
  EXPECT_EQ(rf.value[30], 0x201eu);  // lr
  EXPECT_EQ(rf.value[31], 0x201fu);  // sp
  EXPECT_EQ(ArchInfoFor(UnwindArch::kAarch64).ra_reg, 30);
}

TEST(UnwindArch, MissingOrShortRegisters) {
  RegisterFile rf;
  uint64_t pc = 0, sp = 0;
  EXPECT_EQ(LoadUserRegs(UnwindArch::kX86_64, 0xff0fff, {}, &rf, &pc, &sp), RegsError::kNoRegs);
  std::vector<uint64_t> v = {1, 2, 3};
  // A mask without IP/SP (bits 0..2 only).
  EXPECT_EQ(LoadUserRegs(UnwindArch::kX86_64, 0x7, Regs(v), &rf, &pc, &sp), RegsError::kMissingIpSp);
  // A mask that claims more values than there are: read only as far as they go.
  EXPECT_EQ(LoadUserRegs(UnwindArch::kX86_64, 0xff0fff, Regs(v), &rf, &pc, &sp), RegsError::kMissingIpSp);
  EXPECT_EQ(LoadUserRegs(UnwindArch::kUnknown, 0xff0fff, Regs(v), &rf, &pc, &sp), RegsError::kUnsupportedArch);
  // Bits past perf's tables are ignored, not indexed out of range.
  std::vector<uint64_t> all(64, 7);
  EXPECT_EQ(LoadUserRegs(UnwindArch::kX86_64, ~0ULL, Regs(all), &rf, &pc, &sp), RegsError::kNone);
}

}  // namespace
}  // namespace perflens
