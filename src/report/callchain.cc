#include "report/callchain.h"

#include "perfdata/perf_event.h"

namespace perflens {

bool ResolveCallchain(Resolver& resolver, Thread* thread, const U64Array& chain, int max_stack,
                      std::vector<CallchainFrame>* frames, bool adjust_return_addresses, bool keep_root_side) {
  frames->clear();
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
      else {
        frames->clear();
        return false;
      }
      continue;
    }
    const bool is_first_entry = !seen_entry;
    seen_entry = true;
    if (skip) {
      --skip;
      continue;
    }
    ++depth;
    // Every entry after the first is a return address: with the adjustment it is looked
    // up at ip - 1, inside the call instruction, so a call that ends a function is not
    // charged to the next one. al.addr is moved back to the entry's own address.
    if (adjust_return_addresses && !is_first_entry && ip > 0) {
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
