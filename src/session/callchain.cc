#include "session/callchain.h"

#include <algorithm>

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

bool LbrChain(const Sample& s, std::vector<uint64_t>* out, int max_stack) {
  if (s.branch_nr == 0) return false;
  const uint64_t limit = max_stack < 0 ? 0 : std::min<uint64_t>(s.callchain.size, static_cast<uint64_t>(max_stack));
  uint64_t user = 0;
  while (user < limit && s.callchain[user] != kContextUser) ++user;
  if (user == limit) return false;
  out->clear();
  out->reserve(user + 1 + 2 * (s.branch_nr + 1));
  for (uint64_t i = 0; i <= user; ++i) out->push_back(s.callchain[i]);
  out->push_back(kContextUser);
  out->push_back(s.branch(0).to);
  for (uint64_t i = 0; i < s.branch_nr; ++i) {
    out->push_back(kContextUser);
    out->push_back(s.branch(i).from);
  }
  return true;
}

bool ResolveCallchain(Resolver& resolver, const Thread* thread, const U64Array& chain, int max_stack,
                      std::vector<CallchainFrame>* frames, bool adjust_return_addresses, bool keep_root_side,
                      uint64_t unwound_begin, bool inline_frames) {
  frames->clear();
  std::vector<const Symbol*>& inline_syms = resolver.inline_scratch();
  bool ok = WalkCallchain(
      chain, max_stack, keep_root_side,
      [&](uint64_t ip, uint16_t cpumode, bool exact, bool unwound) {
    if (unwound && inline_frames) {
      const AddrLocation al = resolver.Resolve(thread, cpumode, ip);
      if (resolver.InlineSymbols(al, &inline_syms)) {
        for (const Symbol* sym : inline_syms) {
          frames->push_back({ip, al, true});
          frames->back().al.sym = sym;
        }
      } else {
        frames->push_back({ip, al, true});
      }
      return;
    }
    frames->push_back({ip, ResolveEntry(resolver, thread, cpumode, ip, adjust_return_addresses && !exact), unwound});
      },
      unwound_begin);
  if (!ok) frames->clear();
  return ok;
}

}  // namespace perflens
