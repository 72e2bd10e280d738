// Callchain walking shared by `report` (Children, -g) and `script`: perf's
// thread__resolve_callchain_sample for frame-pointer chains. Context markers switch the
// cpumode (the walk starts as user); any other marker means a corrupt chain, which perf
// drops whole. At most `max_stack` real entries are resolved.
#pragma once

#include <cstdint>
#include <vector>

#include "model/thread.h"
#include "perfdata/perf_event.h"
#include "perfdata/sample.h"
#include "session/resolver.h"

namespace perflens {

// One resolved callchain entry. `ip` is the raw entry (runtime address); `al.dso_addr` is
// Map::MapIp(ip) when a map was found, else `ip`.
struct CallchainFrame {
  uint64_t ip = 0;
  AddrLocation al;
};

// perf's walk over `chain` (callee first, markers included): calls
// `entry(ip, cpumode, is_first_entry)` for each real entry kept, at most `max_stack`.
// Context markers switch the cpumode (the walk starts as user). Returns false at any
// other marker — a corrupt chain, which perf drops whole: the caller discards what
// `entry` did for it. `keep_root_side`: see ResolveCallchain.
template <typename EntryFn>
bool WalkCallchain(const U64Array& chain, int max_stack, bool keep_root_side, EntryFn&& entry) {
  uint16_t frame_mode = kMiscUser;
  int depth = 0;
  // perf walks a caller-ordered chain from its root end, so --max-stack keeps the
  // outermost entries there; skip the leaf-side surplus.
  uint64_t skip = 0;
  bool seen_entry = false;
  if (keep_root_side && max_stack >= 0) {
    uint64_t real = 0;
    for (uint64_t i = 0; i < chain.size; ++i) real += chain[i] < kContextMax;
    if (real > static_cast<uint64_t>(max_stack)) skip = real - static_cast<uint64_t>(max_stack);
  }
  for (uint64_t i = 0; i < chain.size && depth < max_stack; ++i) {
    uint64_t ip = chain[i];
    if (ip >= kContextMax) {
      if (ip == kContextKernel) frame_mode = kMiscKernel;
      else if (ip == kContextUser) frame_mode = kMiscUser;
      else if (ip == kContextHv) frame_mode = kMiscHypervisor;
      else return false;
      continue;
    }
    const bool is_first_entry = !seen_entry;
    seen_entry = true;
    if (skip) {
      --skip;
      continue;
    }
    ++depth;
    entry(ip, frame_mode, is_first_entry);
  }
  return true;
}

// Starts loading the Resolver's cache slots for the first entries of `chain` (a hint,
// no effect on results): resolving a chain is mostly waiting for those slots, so a
// caller that knows the next chain early fetches them while it resolves this one.
void PrefetchCallchain(const Resolver& resolver, const Thread* thread, const U64Array& chain);

// Resolves `chain` into `frames` (cleared first; the vector is reused so a warm walk
// does not allocate). Returns false for a corrupt chain, leaving `frames` empty.
// perf 6.1 looks return addresses up unadjusted (the default);
// `adjust_return_addresses` looks every entry after the first up at ip - 1.
// `keep_root_side`: with more than `max_stack` entries keep the outermost ones (perf's
// caller order) instead of the innermost (callee order).
bool ResolveCallchain(Resolver& resolver, const Thread* thread, const U64Array& chain, int max_stack,
                      std::vector<CallchainFrame>* frames, bool adjust_return_addresses = false,
                      bool keep_root_side = false);

}  // namespace perflens
