// Resolver: turns (thread, cpumode, ip) into perf's addr_location — the map's Dso, the
// address inside it (dso_addr, Map::MapIp), the symbol and the level character ('k', '.', 'H') —
// through the Machine and the Symbolizer (spec B4). Callchains repeat the same frames, so
// it holds two small direct-mapped caches: (address space state, ip) → the whole result,
// and, behind it, (dso, addr) → symbol, which also serves other processes mapping the
// same DSO.
#pragma once

#include <array>
#include <vector>
#include <cstdint>

#include "model/machine.h"
#include "symbolize/symbolizer.h"

namespace perflens {

// Address spaces (model/map.h): `ip` is the runtime address in the process; dso_addr is
// where the Dso's symbol table keys it (Map::MapIp): the DSO file offset for file-backed
// maps (ip - start + pgoff), ip - module start for kernel modules, the ip itself for
// identity maps (the kernel, JIT maps, KSYMBOL, anonymous memory).
struct AddrLocation {
  Dso* dso = nullptr;            // nullptr: no map ("[unknown]")
  uint64_t dso_addr = 0;         // Map::MapIp(ip) when a map was found, else ip
  const Symbol* sym = nullptr;   // nullptr: unresolved
  char level = '.';              // 'k' kernel, '.' user, 'g'/'u' guest, 'H' hypervisor/unknown
  uint16_t cpumode = 0;          // the cpumode the lookup used
};

class Resolver {
 public:
  Resolver(Machine* machine, Symbolizer* symbolizer) : machine_(machine), symbolizer_(symbolizer) {}

  // perf's thread__find_symbol: picks kernel or process maps by cpumode.
  AddrLocation Resolve(const Thread* thread, uint16_t cpumode, uint64_t ip);
  // Starts loading the cache slot Resolve(thread, cpumode, ip) will read: a chain's
  // entries are known before they are resolved, and the slots are mostly cache misses.
  void PrefetchLocation(const Thread* thread, uint16_t cpumode, uint64_t ip) const {
    if (const Maps* maps = machine_->MapsFor(thread, cpumode)) __builtin_prefetch(&locations_[LocationIndex(maps->id(), ip)]);
  }
  // Resolve without the symbol (sym stays nullptr) and without the location cache:
  // for callers that look the symbol up later (FindSymbol).
  AddrLocation ResolveMap(const Thread* thread, uint16_t cpumode, uint64_t ip);
  // The symbol at `dso_addr` in `dso`, through the (dso, dso_addr) cache.
  const Symbol* FindSymbol(Dso* dso, uint64_t dso_addr);

  // perf's append_inlines for a located frame: the symbols of the frames at al.dso_addr
  // (DsoModule::FramesAt: the functions inlined there, innermost first, then the one
  // the address is in), into *syms (cleared first). False, and *syms left empty, when
  // there is nothing to add beyond al.sym itself (no symbol, no DWARF, or one frame
  // that is al.sym): the caller keeps its one frame. Cached per (dso, dso_addr) for
  // up to kInlineCached frames.
  bool InlineSymbols(const AddrLocation& al, std::vector<const Symbol*>* syms);
  // A vector for InlineSymbols' answers, reused by the resolving thread's walks.
  std::vector<const Symbol*>& inline_scratch() { return inline_scratch_; }

 private:
  static size_t LocationIndex(uint64_t maps_id, uint64_t ip) {
    return ((ip * 0x9E3779B97F4A7C15ULL ^ maps_id * 0xC2B2AE3D27D4EB4FULL) >> 51) & (kLocationSlots - 1);
  }
  static constexpr size_t kLocationSlots = 8192;
  // The map holding `ip`: sets al->dso and al->dso_addr (Map::MapIp) when there is one.
  void LookupMap(const Maps* maps, uint64_t ip, AddrLocation* al);
  // A kernel-mode ip above the kernel map and in no other kernel map: the kernel's when
  // one of its (kallsyms) symbols holds it. The kernel MMAP covers [_text, _etext), but
  // perf 6.1 ends the kernel map where the last kernel symbol ends once it has loaded
  // them, so init text (start_kernel and x86_64_start_kernel in the boot CPU's idle
  // chains) is [kernel.kallsyms], not "[unknown]".
  void LookupKernelBeyondText(uint64_t ip, AddrLocation* al);

  Machine* machine_;
  Symbolizer* symbolizer_;
  // Keyed by Maps::id and generation: a change to the maps misses instead of returning
  // a stale map.
  struct LocationSlot {
    uint64_t maps_id = 0;  // 0: empty
    uint64_t generation = 0;
    uint64_t ip = 0;
    AddrLocation al;
  };
  std::array<LocationSlot, kLocationSlots> locations_{};
  struct CacheSlot {
    const Dso* dso = nullptr;
    uint64_t dso_addr = 0;
    const Symbol* sym = nullptr;
  };
  std::array<CacheSlot, 4096> cache_{};
  static constexpr size_t kInlineCached = 6;
  struct InlineSlot {
    const Dso* dso = nullptr;  // nullptr: empty
    uint64_t dso_addr = 0;
    uint8_t n = 0;  // 0: no inline frames there
    std::array<const Symbol*, kInlineCached> syms{};
  };
  std::vector<const Symbol*> inline_scratch_;
  std::vector<InlineSlot> inline_cache_;  // 4096 slots once InlineSymbols is first called
  // The last user map found, keyed like locations_: consecutive frames of a chain mostly
  // fall in one map. A Maps id is never reused, so an entry of a freed Maps never matches.
  struct LastMap {
    uint64_t maps_id = 0;  // 0: empty
    uint64_t generation = 0;
    const Map* map = nullptr;
  };
  std::array<LastMap, 2> last_map_{};  // [0] user, [1] kernel
};

}  // namespace perflens
