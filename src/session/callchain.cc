#include "session/callchain.h"

#include "perfdata/perf_event.h"

namespace perflens {

void PrefetchCallchain(const Resolver& resolver, const Thread* thread, const U64Array& chain) {
  constexpr uint64_t kPrefetch = 24;
  uint16_t mode = kMiscUser;
  for (uint64_t i = 0; i < chain.size && i < kPrefetch; ++i) {
    const uint64_t ip = chain[i];
    if (ip >= kContextMax) mode = ip == kContextKernel ? kMiscKernel : ip == kContextUser ? kMiscUser : mode;
    else resolver.PrefetchLocation(thread, mode, ip);
  }
}

bool ResolveCallchain(Resolver& resolver, const Thread* thread, const U64Array& chain, int max_stack,
                      std::vector<CallchainFrame>* frames, bool adjust_return_addresses, bool keep_root_side,
                      uint64_t unwound_begin) {
  frames->clear();
  bool ok = WalkCallchain(
      chain, max_stack, keep_root_side,
      [&](uint64_t ip, uint16_t cpumode, bool exact) {
    // Every entry after the first is a return address: with the adjustment it is looked
    // up at ip - 1, inside the call instruction, so a call that ends a function is not
    // charged to the next one. al.dso_addr is moved back to the entry's own address.
    if (adjust_return_addresses && !exact && ip > 0) {
      AddrLocation al = resolver.Resolve(thread, cpumode, ip - 1);
      al.dso_addr += 1;
      frames->push_back({ip, al});
    } else {
      frames->push_back({ip, resolver.Resolve(thread, cpumode, ip)});
    }
      },
      unwound_begin);
  if (!ok) frames->clear();
  return ok;
}

}  // namespace perflens
