// StackMemory: the user stack copy of one sample (PERF_SAMPLE_STACK_USER) as the memory
// an unwinder may read, in place (no copy). The kernel copied `dyn_size` valid bytes
// starting at the sampled stack pointer `sp`, so memory is readable at runtime
// addresses [sp, sp + dyn_size) and nowhere else.
// Example: sp 0x7ffd0000, dyn_size 0x1000: Read(0x7ffd0ff8, 8) reads bytes
// 0xff8..0xfff of the copy; Read(0x7ffd0ffc, 8) fails (it runs past the end).
#pragma once

#include <cstdint>
#include <cstring>

#include "base/byte_order.h"

namespace perflens {

struct StackMemory {
  const uint8_t* data = nullptr;  // the copy (inside the SAMPLE record)
  uint64_t sp = 0;                // runtime address of data[0]
  uint64_t size = 0;              // readable bytes (dyn_size)
  bool swap = false;              // the file's byte order differs from ours

  // Reads `bytes` (1, 2, 4 or 8) at runtime address `addr` into *out, zero-extended.
  bool Read(uint64_t addr, unsigned bytes, uint64_t* out) const {
    if (addr < sp || addr - sp > size || size - (addr - sp) < bytes) return false;
    const uint8_t* p = data + (addr - sp);
    Loader ld{swap};
    switch (bytes) {
      case 1: *out = *p; return true;
      case 2: *out = ld.U16(p); return true;
      case 4: *out = ld.U32(p); return true;
      case 8: *out = ld.U64(p); return true;
      default: return false;
    }
  }
};

}  // namespace perflens
