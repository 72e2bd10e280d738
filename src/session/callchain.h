// Callchain walking shared by `report` (Children, -g) and `script`: perf's
// thread__resolve_callchain_sample for frame-pointer chains. Context markers switch the
// cpumode (the walk starts as user); any other marker means a corrupt chain, which perf
// drops whole. At most `max_stack` real entries are resolved.
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>
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
  // From the DWARF-unwound user part (perf appends those without add_callchain_ip, so
  // --ignore-callees and the parent key do not look at them).
  bool unwound = false;
};

// perf's walk over `chain` (callee first, markers included): calls
// `entry(ip, cpumode, exact)` for each real entry kept. Context markers switch the
// cpumode (the walk starts as user). Returns false at any other marker — a corrupt
// chain, which perf drops whole: the caller discards what `entry` did for it.
// `exact` is true for the first entry after each context marker (and for the first
// entry of a chain without one): the kernel part's sample ip, and the user part's
// interrupted pc (the faulting or next instruction, or the one after `syscall`), which
// is not a return address; the others are.
// `keep_root_side`: see ResolveCallchain.
//
// `unwound_begin` < chain.size: entries from there on are a DWARF-unwound user part
// (unwind/unwinder.h), appended after the recorded chain as perf appends its
// unwinder's frames: user frames, no markers, already at the address perf reports
// (callers at pc - 1), so each is `exact`. perf limits each part to `max_stack` on its
// own, and its unwinder keeps the innermost frames whatever the order. An `entry` that
// takes a fourth bool is told which part an entry is in (true: unwound).
template <typename EntryFn>
bool WalkCallchain(const U64Array& chain, int max_stack, bool keep_root_side, EntryFn&& entry,
                   uint64_t unwound_begin = UINT64_MAX) {
  const uint64_t recorded = unwound_begin < chain.size ? unwound_begin : chain.size;
  uint16_t frame_mode = kMiscUser;
  int depth = 0;
  // perf walks a caller-ordered chain from its root end, so --max-stack keeps the
  // outermost entries there; skip the leaf-side surplus.
  uint64_t skip = 0;
  bool seen_entry = false;
  if (keep_root_side && max_stack >= 0) {
    uint64_t real = 0;
    for (uint64_t i = 0; i < recorded; ++i) real += chain[i] < kContextMax;
    if (real > static_cast<uint64_t>(max_stack)) skip = real - static_cast<uint64_t>(max_stack);
  }
  for (uint64_t i = 0; i < recorded && depth < max_stack; ++i) {
    uint64_t ip = chain[i];
    if (ip >= kContextMax) {
      if (ip == kContextKernel) frame_mode = kMiscKernel;
      else if (ip == kContextUser) frame_mode = kMiscUser;
      else if (ip == kContextHv) frame_mode = kMiscHypervisor;
      else return false;
      seen_entry = false;  // the next entry is this context's interrupted pc
      continue;
    }
    const bool is_first_entry = !seen_entry;
    seen_entry = true;
    if (skip) {
      --skip;
      continue;
    }
    ++depth;
    if constexpr (std::is_invocable_v<EntryFn, uint64_t, uint16_t, bool, bool>) entry(ip, frame_mode, is_first_entry, false);
    else entry(ip, frame_mode, is_first_entry);
  }
  depth = 0;
  for (uint64_t i = recorded; i < chain.size && depth < max_stack; ++i, ++depth) {
    if constexpr (std::is_invocable_v<EntryFn, uint64_t, uint16_t, bool, bool>) entry(chain[i], kMiscUser, true, true);
    else entry(chain[i], kMiscUser, true);
  }
  return true;
}

// LBR call-stack mode (attr.branch_sample_type has CALL_STACK; perf's
// resolve_lbr_callchain_sample, callee order): the user part comes from the branch stack,
// not from the recorded chain. `out` becomes the recorded chain up to and including its
// PERF_CONTEXT_USER marker (the kernel part), then entries[0].to (the entry of the
// function the sample is in), then each entries[i].from (the call sites, innermost
// first); every LBR entry is preceded by a PERF_CONTEXT_USER marker of its own, so that
// WalkCallchain takes it as user and `exact` (a call site is no return address). E.g.
// chain {USER, 0x1160}, entries {0x11a0→0x1149, 0x11d5→0x117b} → {USER, USER, 0x1149,
// USER, 0x11a0, USER, 0x11d5}. Returns false (use the recorded chain, as perf does) when
// no PERF_CONTEXT_USER is among the chain's first `max_stack` entries, or when the
// branch stack is empty (perf would read entries[0] past the record).
bool LbrChain(const Sample& s, std::vector<uint64_t>* out, int max_stack);

// Starts loading the Resolver's cache slots for the first entries of `chain` (a hint,
// no effect on results): resolving a chain is mostly waiting for those slots, so a
// caller that knows the next chain early fetches them while it resolves this one.
void PrefetchCallchain(const Resolver& resolver, const Thread* thread, const U64Array& chain);

// Resolves `chain` into `frames` (cleared first; the vector is reused so a warm walk
// does not allocate). Returns false for a corrupt chain, leaving `frames` empty.
// `adjust_return_addresses` (the default) looks every entry that is not WalkCallchain's
// `exact` up at ip - 1 (ResolveEntry); perf 6.1 looks them up as they are.
// `keep_root_side`: with more than `max_stack` entries keep the outermost ones (perf's
// caller order) instead of the innermost (callee order).
// One recorded entry's location. `return_address` (an entry after the first of the
// recorded, kernel or frame-pointer, part; the unwound part's callers are already
// return address - 1): looked up at ip - 1, inside the call instruction, so a call that
// ends a function (a call to a noreturn function) is charged to its caller and not to
// the next function, which never ran; al.dso_addr is moved back to the entry's own
// address, so offsets and source lines are those of ip, as perf prints them. When no
// symbol holds ip - 1 the entry cannot follow a call (a call's last byte lies inside its
// function; the bytes between functions are padding): it is a frame-pointer walk's
// stray value, looked up as it is, as perf does. The same when ip - 1 is the last byte
// of a kernel function's padding symbol (`__pfx_f`, `__cfi_f`: nops and a CFI hash,
// never a call): ip is f's first instruction, interrupted (the entry after an
// interrupt's entry stub, asm_sysvec_*), and belongs to f.
inline bool IsPaddingSymbol(std::string_view name) {
  return name.starts_with("__pfx_") || name.starts_with("__cfi_");
}
inline AddrLocation ResolveEntry(Resolver& resolver, const Thread* thread, uint16_t cpumode, uint64_t ip,
                                 bool return_address) {
  if (!return_address || ip == 0) return resolver.Resolve(thread, cpumode, ip);
  AddrLocation al = resolver.Resolve(thread, cpumode, ip - 1);
  // The name is read only at a symbol's last byte, rare for a return address.
  if (!al.sym || (al.dso_addr + 1 == al.sym->end && IsPaddingSymbol(al.sym->name)))
    return resolver.Resolve(thread, cpumode, ip);
  al.dso_addr += 1;
  return al;
}

// `unwound_begin`: see WalkCallchain. `inline_frames` (perf's --inline, its default):
// each unwound entry becomes perf's append_inlines frames — one per function inlined
// at it, innermost first, then the function it is in (Resolver::InlineSymbols) — all
// with the entry's ip and location but their own symbol. perf 6.1 adds none to the
// recorded (frame-pointer or kernel) part.
bool ResolveCallchain(Resolver& resolver, const Thread* thread, const U64Array& chain, int max_stack,
                      std::vector<CallchainFrame>* frames, bool adjust_return_addresses = true,
                      bool keep_root_side = false, uint64_t unwound_begin = UINT64_MAX,
                      bool inline_frames = false);

}  // namespace perflens
