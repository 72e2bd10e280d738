#include "unwind/unwind_arch.h"

#include <bit>

namespace perflens {
namespace {

constexpr uint64_t kRegsAbi32 = 1, kRegsAbi64 = 2;

ArchInfo MakeX86_64() {
  ArchInfo a;
  a.nregs = 17;
  a.sp_reg = 7;
  a.ra_reg = 16;
  a.perf_ip_bit = 8;
  a.perf_sp_bit = 7;
  a.address_size = 8;
  for (int8_t& d : a.dwarf_of_perf_bit) d = -1;
  // perf: AX BX CX DX SI DI BP SP IP; R8..R15 at bits 16..23.
  const int8_t low[] = {0, 3, 2, 1, 4, 5, 6, 7, 16};
  for (int i = 0; i < 9; ++i) a.dwarf_of_perf_bit[i] = low[i];
  for (int i = 0; i < 8; ++i) a.dwarf_of_perf_bit[16 + i] = static_cast<int8_t>(8 + i);
  return a;
}

ArchInfo MakeI386() {
  ArchInfo a;
  a.nregs = 9;
  a.sp_reg = 4;
  a.ra_reg = 8;
  a.perf_ip_bit = 8;
  a.perf_sp_bit = 7;
  a.address_size = 4;
  for (int8_t& d : a.dwarf_of_perf_bit) d = -1;
  // perf: AX BX CX DX SI DI BP SP IP -> eax ebx ecx edx esi edi ebp esp eip.
  const int8_t low[] = {0, 3, 1, 2, 6, 7, 5, 4, 8};
  for (int i = 0; i < 9; ++i) a.dwarf_of_perf_bit[i] = low[i];
  return a;
}

ArchInfo MakeAarch64() {
  ArchInfo a;
  a.nregs = 32;
  a.sp_reg = 31;
  a.ra_reg = 30;
  a.perf_ip_bit = 32;  // PERF_REG_ARM64_PC: no DWARF number
  a.perf_sp_bit = 31;
  a.address_size = 8;
  for (int8_t& d : a.dwarf_of_perf_bit) d = -1;
  for (int i = 0; i < 32; ++i) a.dwarf_of_perf_bit[i] = static_cast<int8_t>(i);
  return a;
}

const ArchInfo kUnknownInfo{};
const ArchInfo kX86_64Info = MakeX86_64();
const ArchInfo kI386Info = MakeI386();
const ArchInfo kAarch64Info = MakeAarch64();

}  // namespace

std::string_view UnwindArchName(UnwindArch arch) {
  switch (arch) {
    case UnwindArch::kX86_64: return "x86_64";
    case UnwindArch::kI386: return "i386";
    case UnwindArch::kAarch64: return "aarch64";
    case UnwindArch::kUnknown: break;
  }
  return "unknown";
}

UnwindArch UnwindArchFor(std::string_view header_arch, uint64_t regs_abi) {
  const std::string_view a = header_arch;
  const bool x86_64 = a == "x86_64" || a == "amd64";
  const bool x86 = a == "i386" || a == "i486" || a == "i586" || a == "i686" || a == "x86";
  const bool arm64 = a == "aarch64" || a == "arm64";
  if (regs_abi == kRegsAbi64) {
    if (x86_64) return UnwindArch::kX86_64;
    if (arm64) return UnwindArch::kAarch64;
  } else if (regs_abi == kRegsAbi32) {
    if (x86_64 || x86) return UnwindArch::kI386;
  }
  return UnwindArch::kUnknown;
}

const ArchInfo& ArchInfoFor(UnwindArch arch) {
  switch (arch) {
    case UnwindArch::kX86_64: return kX86_64Info;
    case UnwindArch::kI386: return kI386Info;
    case UnwindArch::kAarch64: return kAarch64Info;
    case UnwindArch::kUnknown: break;
  }
  return kUnknownInfo;
}

RegsError LoadUserRegs(UnwindArch arch, uint64_t mask, const U64Array& regs, RegisterFile* out, uint64_t* pc,
                       uint64_t* sp) {
  out->valid = 0;
  const ArchInfo& info = ArchInfoFor(arch);
  if (regs.empty()) return RegsError::kNoRegs;
  if (info.nregs == 0) return RegsError::kUnsupportedArch;
  const uint64_t value_mask = info.address_size == 4 ? 0xffffffffULL : ~0ULL;
  bool have_pc = false, have_sp = false;
  uint64_t i = 0;  // index into regs: values are in ascending bit order
  for (uint64_t m = mask; m != 0 && i < regs.size; m &= m - 1, ++i) {
    const int bit = std::countr_zero(m);
    const uint64_t v = regs[i] & value_mask;
    if (bit == info.perf_ip_bit) {
      *pc = v;
      have_pc = true;
    }
    if (bit == info.perf_sp_bit) {
      *sp = v;
      have_sp = true;
    }
    const int d = info.dwarf_of_perf_bit[bit];
    if (d >= 0 && d < info.nregs) out->Set(d, v);
  }
  return have_pc && have_sp ? RegsError::kNone : RegsError::kMissingIpSp;
}

}  // namespace perflens
