#include "report/callchain.h"

#include "perfdata/perf_event.h"

namespace perflens {

AddrLocation ResolveAsPerf(Resolver& resolver, Thread* thread, uint16_t cpumode, uint64_t ip) {
  AddrLocation al = resolver.Resolve(thread, cpumode, ip);
  if (cpumode == kMiscUser && al.dso && al.dso->is_kernel()) {
    al = AddrLocation{};
    al.addr = ip;
    al.cpumode = cpumode;
  }
  return al;
}

bool ResolveCallchain(Resolver& resolver, Thread* thread, const U64Array& chain, int max_stack,
                      std::vector<CallchainFrame>* frames) {
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
    frames->push_back({ip, ResolveAsPerf(resolver, thread, frame_mode, ip)});
  }
  return true;
}

}  // namespace perflens
