// DWARF unwinding of a sample's user stack (perf record --call-graph dwarf): from the
// sampled user registers (PERF_SAMPLE_REGS_USER) and the copy of the stack above the
// stack pointer (PERF_SAMPLE_STACK_USER), frame by frame through each pc's CFI row,
// the way perf 6.1's libunwind post-unwinder reports it:
//   - the first frame is the sampled user pc (the IP register), as is;
//   - each caller frame is reported at pc - 1 (inside the call instruction, where perf
//     looks its symbol up and what perf script prints), except the frame a signal
//     interrupted (the caller of a signal trampoline, 'S' CIE), whose pc is exact and
//     reported as is; the trampoline's own frame is a return address like any other
//     (perf prints glibc's __restore_rt as the byte before it, "[unknown]");
//   - at most max_frames frames (perf applies --max-stack to this part by itself).
// The CFI row of a caller is looked up at that same address (a call that ends a
// function returns past its end).
//
// Memory: only the stack copy, read in place ([sp, sp + dyn_size), StackMemory); any
// other read ends the walk. With UnwindOptions::perf_stack_end (the default) the end
// of the copy behaves as in perf 6.1 (its libunwind access_mem): the copy's last word
// is not readable, and a step that reads past the copy still yields one last frame at
// address ~0 (which perf prints as "ffffffffffffffff [unknown]"), so a deep stack's
// chain ends in an [unknown] frame in both. The walk also ends, cleanly and counted by reason, at a pc
// in no map or in a map without CFI (anonymous or JIT memory, a module whose image is
// missing), at CFI it cannot evaluate, and at a CFA that does not grow (a loop). It is
// bounded by max_frames and kMaxUnwindFrames whatever the input.
//
// Threads: one Unwinder per unwinding thread (it owns its row cache); the CfiSources
// and the Symbolizer it reads are shared and thread-safe. Warm, an Unwind call does no
// allocation, takes no lock and calls no libdw function: rows come from the cache.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "model/maps.h"
#include "perfdata/sample.h"
#include "symbolize/symbolizer.h"
#include "unwind/cfi_row.h"
#include "unwind/cfi_source.h"
#include "unwind/unwind_arch.h"

namespace perflens {

inline constexpr int kMaxUnwindFrames = 4096;

// How a walk ended. kComplete and kMaxFrames are normal ends; kNoUserContext (a
// kernel thread: no user registers and no stack) gives no user frames, as in perf;
// the rest are early stops, which the session counts by reason.
enum class UnwindStop : uint8_t {
  kComplete,          // the outermost frame (return address undefined, or pc 0)
  kMaxFrames,         // max_frames frames taken
  kNoUserContext,     // abi 0 and no stack: nothing to unwind (kernel threads)
  kNoStack,           // registers but no stack bytes (size or dyn_size 0): no user frames (as perf)
  kNoRegs,            // a stack copy but no registers: no user frames (as perf)
  kUnsupportedArch,   // registers of an arch/abi without a table (unwind_arch.h)
  kBadRegs,           // the mask lacks the pc or the stack pointer
  kDynSizeTooLarge,   // dyn_size > size: the copy is inconsistent, no user frames
  kOutsideStack,      // a read outside the stack copy (a deeper stack than copied)
  kNoMap,             // a pc in no map
  kNoModule,          // a pc in memory without an ELF module (anonymous, JIT, [stack])
  kNoImage,           // the module's ELF image is missing (e.g. a vdso never saved)
  kNoCfi,             // no CFI covers the pc
  kBadCfi,            // CFI rules it cannot evaluate (unsupported ops, errors)
  kUnknownRegister,   // the CFA or return address needs a register lost earlier
  kLoop,              // the CFA did not grow
  kCount,
};
std::string_view UnwindStopName(UnwindStop stop);
// Whether `stop` is an early stop worth reporting.
inline bool IsEarlyStop(UnwindStop stop) {
  return stop != UnwindStop::kComplete && stop != UnwindStop::kMaxFrames && stop != UnwindStop::kNoUserContext;
}

struct UnwindOptions {
  bool perf_stack_end = true;  // perf 6.1's end-of-copy behaviour (see above)
};

// A sample's user part, as decoded (views into the record).
struct UnwindInput {
  UnwindArch arch = UnwindArch::kUnknown;
  uint64_t regs_abi = 0;
  uint64_t regs_mask = 0;  // attr.sample_regs_user
  U64Array regs;           // popcount(regs_mask) values in mask order
  const uint8_t* stack = nullptr;
  uint64_t stack_size = 0;      // bytes copied
  uint64_t stack_dyn_size = 0;  // bytes valid (as recorded; > stack_size is an error)
  bool swap = false;            // the file's byte order differs from ours
};

// Where the walk finds the CFI row for a pc (runtime address, already pc - 1 for a
// return address). Returns nullptr with *why set when there is none.
class RowFinder {
 public:
  virtual ~RowFinder() = default;
  virtual const CfiRow* Find(uint64_t pc, int nregs, UnwindStop* why) = 0;
};

// The walk itself, over any RowFinder (tests give synthetic rows). Appends the frames'
// reported ips (see above; runtime addresses, callee first) to *ips.
UnwindStop UnwindWith(const UnwindInput& in, int max_frames, RowFinder& finder, std::vector<uint64_t>* ips,
                      const UnwindOptions& options = {});

// The production unwinder: rows from the modules of a process's Maps, through the
// Symbolizer's DsoModules (file_offset → dso_vaddr) and their CfiSources, cached per
// (module, dso_vaddr) including misses.
class Unwinder {
 public:
  Unwinder(Symbolizer* symbolizer, CfiSources* sources, UnwindOptions options = {});
  ~Unwinder();
  // Unwinds `in` in the address space `maps` (the sampled thread's user maps; nullptr:
  // no map for any pc). Appends to *ips as UnwindWith.
  UnwindStop Unwind(const UnwindInput& in, const Maps* maps, int max_frames, std::vector<uint64_t>* ips);

 private:
  class MapsFinder;
  std::unique_ptr<MapsFinder> finder_;
  UnwindOptions options_;
};

}  // namespace perflens
