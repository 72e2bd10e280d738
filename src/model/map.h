// Map: one mapping [start, end) of a process (or the kernel) onto a Dso.
//
// Address spaces (style.md lesson 1):
//   ip          runtime address in the process, what samples carry;
//   file_offset byte offset in the DSO file = ip - start + pgoff;
//   dso_vaddr   link-time address (.symtab/DWARF), derived in src/symbolize.
// Example: libc mapped r-xp at start 0x7f0000028000 with pgoff 0x28000; a sample at
// ip 0x7f00000291a0 is at file_offset 0x291a0.
// Identity maps (anonymous/JIT memory, the kernel) have map_ip(ip) == ip.
#pragma once

#include <cstdint>

namespace perflens {

class Dso;

struct Map {
  uint64_t start = 0;  // ip space, inclusive
  uint64_t end = 0;    // ip space, exclusive
  uint64_t pgoff = 0;  // file offset of `start`
  Dso* dso = nullptr;
  uint32_t prot = 0, flags = 0;
  bool identity = false;

  bool Contains(uint64_t ip) const { return ip >= start && ip < end; }
  // ip → the address the DSO's symbols are keyed by: file offset for DSO maps, the ip
  // itself for identity maps.
  uint64_t MapIp(uint64_t ip) const { return identity ? ip : ip - start + pgoff; }
};

}  // namespace perflens
