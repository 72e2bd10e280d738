// The register conventions DWARF unwinding needs per architecture: which perf
// sample_regs_user bit holds which DWARF register, which DWARF numbers are the stack
// pointer and the return address, and the address size.
//
// perf samples user registers as u64 values in ascending bit order of the attr's
// sample_regs_user mask (perf_event_x86_regs: AX BX CX DX SI DI BP SP IP FLAGS CS SS
// DS ES FS GS R8..R15; perf_event_arm64_regs: X0..X30 SP PC). DWARF numbers them
// differently (SysV psABI): x86_64 rax rdx rcx rbx rsi rdi rbp rsp r8..r15, 16 = the
// return address (rip); i386 eax ecx edx ebx esp ebp esi edi, 8 = eip; aarch64 x0..x30,
// 31 = sp, return address in x30. Example (x86_64, mask 0xff0fff): the 8th value is
// perf's SP (bit 7) = DWARF 7; the 2nd is perf's BX (bit 1) = DWARF 3.
#pragma once

#include <cstdint>
#include <string_view>

#include "perfdata/sample.h"

namespace perflens {

enum class UnwindArch : uint8_t { kUnknown, kX86_64, kI386, kAarch64 };

std::string_view UnwindArchName(UnwindArch arch);

// The arch of a sample's user registers: HEADER_ARCH ("x86_64", "i686", "aarch64", ...)
// and the sample's user_regs_abi (PERF_SAMPLE_REGS_ABI_32 = 1, _64 = 2). A 32-bit task
// on x86_64 (ABI_32) is kI386. kUnknown for anything else (arm32 compat tasks, other
// arches, abi 0 = no registers).
UnwindArch UnwindArchFor(std::string_view header_arch, uint64_t regs_abi);

// DWARF registers tracked while unwinding: 0 .. kMaxDwarfRegs-1.
inline constexpr int kMaxDwarfRegs = 32;

struct ArchInfo {
  int nregs = 0;          // DWARF registers 0 .. nregs-1 are tracked
  int sp_reg = -1;        // DWARF number of the stack pointer
  int ra_reg = -1;        // the return-address column CIEs of this arch use
  int perf_ip_bit = -1;   // sample_regs_user bit of the instruction pointer
  int perf_sp_bit = -1;   // and of the stack pointer
  uint8_t address_size = 8;
  // perf register bit -> DWARF number, -1 when DWARF has none (flags, segments, pc).
  int8_t dwarf_of_perf_bit[64];
};
// Never nullptr; kUnknown has nregs 0.
const ArchInfo& ArchInfoFor(UnwindArch arch);

// A frame's register values. Bit r of `valid` says DWARF register r is known.
struct RegisterFile {
  uint64_t value[kMaxDwarfRegs] = {};
  uint64_t valid = 0;
  bool Has(int r) const { return r >= 0 && r < kMaxDwarfRegs && ((valid >> r) & 1); }
  void Set(int r, uint64_t v) {
    value[r] = v;
    valid |= uint64_t{1} << r;
  }
  void Clear(int r) { valid &= ~(uint64_t{1} << r); }
};

// Why a sample's registers are unusable.
enum class RegsError : uint8_t { kNone, kNoRegs, kUnsupportedArch, kMissingIpSp };

// Loads the sampled user registers into *out (DWARF numbering; 32-bit values truncated
// for kI386) and the sampled pc and sp. `regs` holds popcount(mask) values in ascending
// bit order (the decoder checked that many fit the record); a shorter array is read
// only as far as it goes.
RegsError LoadUserRegs(UnwindArch arch, uint64_t mask, const U64Array& regs, RegisterFile* out, uint64_t* pc,
                       uint64_t* sp);

}  // namespace perflens
