#include "report/callchain.h"

#include "perfdata/perf_event.h"

namespace perflens {

bool ResolveCallchain(Resolver& resolver, Thread* thread, const U64Array& chain, int max_stack,
                      std::vector<CallchainFrame>* frames, bool adjust_return_addresses) {
  frames->clear();
  uint16_t frame_mode = kMiscUser;
  int depth = 0;
  for (uint64_t i = 0; i < chain.size && depth < max_stack; ++i) {
    uint64_t ip = chain[i];
    if (ip >= kContextMax) {
      if (ip == kContextKernel) frame_mode = kMiscKernel;
      else if (ip == kContextUser) frame_mode = kMiscUser;
      else if (ip == kContextHv) frame_mode = kMiscHypervisor;
      else {
        frames->clear();
        return false;
      }
      continue;
    }
    ++depth;
    // Every entry after the first is a return address: with the adjustment it is looked
    // up at ip - 1, inside the call instruction, so a call that ends a function is not
    // charged to the next one. al.addr is moved back to the entry's own address.
    if (adjust_return_addresses && frames->size() > 0 && ip > 0) {
      AddrLocation al = resolver.Resolve(thread, frame_mode, ip - 1);
      al.addr += 1;
      frames->push_back({ip, al});
    } else {
      frames->push_back({ip, resolver.Resolve(thread, frame_mode, ip)});
    }
  }
  return true;
}

}  // namespace perflens
