// Callchain walking shared by `report` (Children, -g) and `script`: perf's
// thread__resolve_callchain_sample for frame-pointer chains. Context markers switch the
// cpumode (the walk starts as user); any other marker means a corrupt chain, which perf
// drops whole. At most `max_stack` real entries are resolved.
#pragma once

#include <cstdint>
#include <vector>

#include "model/thread.h"
#include "perfdata/sample.h"
#include "report/resolver.h"

namespace perflens {

// One resolved callchain entry. `ip` is the raw entry (runtime address); `al.addr` is
// Map::MapIp(ip) when a map was found, else `ip`.
struct CallchainFrame {
  uint64_t ip = 0;
  AddrLocation al;
};

// Resolves `chain` (callee first, markers included) into `frames` (cleared first; the
// vector is reused so a warm walk does not allocate). Returns false for a corrupt chain,
// leaving `frames` empty. perf 6.1 looks return addresses up unadjusted (the default);
// `adjust_return_addresses` looks every entry after the first up at ip - 1.
// `keep_root_side`: with more than `max_stack` entries keep the outermost ones (perf's
// caller order) instead of the innermost (callee order).
bool ResolveCallchain(Resolver& resolver, Thread* thread, const U64Array& chain, int max_stack,
                      std::vector<CallchainFrame>* frames, bool adjust_return_addresses = false,
                      bool keep_root_side = false);

}  // namespace perflens
