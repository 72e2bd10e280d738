#include "unwind/unwinder.h"

#include <algorithm>
#include <span>

#include "unwind/cfi_expr.h"
#include "unwind/stack_memory.h"

namespace perflens {

std::string_view UnwindStopName(UnwindStop stop) {
  switch (stop) {
    case UnwindStop::kComplete: return "complete";
    case UnwindStop::kMaxFrames: return "max-stack reached";
    case UnwindStop::kNoUserContext: return "no user context";
    case UnwindStop::kNoStack: return "no stack copy";
    case UnwindStop::kNoRegs: return "no user registers";
    case UnwindStop::kUnsupportedArch: return "registers of an unsupported arch";
    case UnwindStop::kBadRegs: return "registers without pc or stack pointer";
    case UnwindStop::kDynSizeTooLarge: return "stack dyn_size larger than the copy";
    case UnwindStop::kOutsideStack: return "read outside the stack copy";
    case UnwindStop::kNoMap: return "pc in no map";
    case UnwindStop::kNoModule: return "pc in memory without a module (anonymous/JIT)";
    case UnwindStop::kNoImage: return "module without an image";
    case UnwindStop::kNoCfi: return "no CFI for a pc";
    case UnwindStop::kBadCfi: return "CFI that cannot be evaluated";
    case UnwindStop::kUnknownRegister: return "CFI needing a lost register";
    case UnwindStop::kLoop: return "CFA not increasing (loop)";
    case UnwindStop::kCount: break;
  }
  return "?";
}

namespace {

UnwindStop StopFor(CfiExprError e) {
  switch (e) {
    case CfiExprError::kMemory: return UnwindStop::kOutsideStack;
    case CfiExprError::kUnknownRegister: return UnwindStop::kUnknownRegister;
    default: return UnwindStop::kBadCfi;
  }
}

// The caller's value of one register under `rule`; false (with *why) when it cannot
// be had.
inline bool ApplyRule(const CfiRow& row, const CfiRule& rule, int reg, const RegisterFile& regs, const CfiExprContext& ctx,
               uint64_t mask, uint64_t* out, UnwindStop* why) {
  const StackMemory& mem = *ctx.memory;
  const unsigned word = ctx.address_size;
  switch (rule.kind) {
    case CfiRuleKind::kUndefined:
      *why = UnwindStop::kComplete;
      return false;
    case CfiRuleKind::kSameValue:
      if (!regs.Has(reg)) {
        *why = UnwindStop::kUnknownRegister;
        return false;
      }
      *out = regs.value[reg];
      return true;
    case CfiRuleKind::kAtCfa:
      if (!mem.Read((ctx.cfa + static_cast<uint64_t>(rule.offset)) & mask, word, out)) {
        *why = UnwindStop::kOutsideStack;
        return false;
      }
      return true;
    case CfiRuleKind::kValCfa:
      *out = (ctx.cfa + static_cast<uint64_t>(rule.offset)) & mask;
      return true;
    case CfiRuleKind::kAtReg:
      if (!regs.Has(rule.reg)) {
        *why = UnwindStop::kUnknownRegister;
        return false;
      }
      if (!mem.Read((regs.value[rule.reg] + static_cast<uint64_t>(rule.offset)) & mask, word, out)) {
        *why = UnwindStop::kOutsideStack;
        return false;
      }
      return true;
    case CfiRuleKind::kRegister:
      if (!regs.Has(rule.reg)) {
        *why = UnwindStop::kUnknownRegister;
        return false;
      }
      *out = regs.value[rule.reg];
      return true;
    case CfiRuleKind::kAtExpr:
    case CfiRuleKind::kValExpr: {
      uint64_t v = 0;
      const std::span<const CfiOp> ops(row.ops + rule.op_begin, rule.op_count);
      if (CfiExprError e = EvalCfiExpr(ops, ctx, rule.push_cfa, &v); e != CfiExprError::kNone) {
        *why = StopFor(e);
        return false;
      }
      if (rule.kind == CfiRuleKind::kValExpr) {
        *out = v;
        return true;
      }
      if (!mem.Read(v, word, out)) {
        *why = UnwindStop::kOutsideStack;
        return false;
      }
      return true;
    }
  }
  *why = UnwindStop::kBadCfi;
  return false;
}

}  // namespace

UnwindStop UnwindWith(const UnwindInput& in, int max_frames, RowFinder& finder, std::vector<uint64_t>* ips,
                      const UnwindOptions& options) {
  // perf's thread__resolve_callchain_unwind: no registers or no stack, no user part.
  if (in.regs_abi == 0 && in.stack_size == 0) return UnwindStop::kNoUserContext;
  // perf's parser keeps dyn_size as the stack's size, and thread__resolve_callchain_unwind
  // bails out on 0: a sample taken while the kernel could not read the user stack (the
  // old mm of an execve being torn down) has no user frames, not even the sampled ip.
  if (in.stack_size == 0 || in.stack_dyn_size == 0) return UnwindStop::kNoStack;
  if (in.regs_abi == 0 || in.regs.empty()) return UnwindStop::kNoRegs;
  if (in.stack_dyn_size > in.stack_size) return UnwindStop::kDynSizeTooLarge;
  if (max_frames <= 0) return UnwindStop::kMaxFrames;
  max_frames = std::min(max_frames, kMaxUnwindFrames);
  const ArchInfo& arch = ArchInfoFor(in.arch);
  // This frame's registers and its caller's, swapped each step (LoadUserRegs and the
  // rules set only registers below arch.nregs, so only those are copied).
  RegisterFile files[2];
  RegisterFile* frame_regs = &files[0];
  uint64_t pc = 0, sp = 0;
  switch (LoadUserRegs(in.arch, in.regs_mask, in.regs, frame_regs, &pc, &sp)) {
    case RegsError::kNone: break;
    case RegsError::kNoRegs: return UnwindStop::kNoRegs;
    case RegsError::kUnsupportedArch: return UnwindStop::kUnsupportedArch;
    case RegsError::kMissingIpSp: return UnwindStop::kBadRegs;
  }
  // perf reads a word only when addr + word < sp + dyn_size: one byte less does that.
  const uint64_t readable = options.perf_stack_end && in.stack_dyn_size ? in.stack_dyn_size - 1 : in.stack_dyn_size;
  const StackMemory mem{in.stack, sp, readable, in.swap};
  const uint64_t mask = arch.address_size == 4 ? 0xffffffffULL : ~0ULL;
  // perf's libunwind makes a failed read a frame at 0, reported as 0 - 1.
  auto outside = [&] {
    if (options.perf_stack_end) ips->push_back(~uint64_t{0} & mask);
    return UnwindStop::kOutsideStack;
  };
  bool exact_pc = true;  // the first frame's pc, and the pc after a signal frame
  bool have_cfa = false;
  uint64_t prev_cfa = 0;
  for (int n = 0;; ++n) {
    const RegisterFile& regs = *frame_regs;
    UnwindStop why = UnwindStop::kNoCfi;
    const CfiRow* row = finder.Find(exact_pc ? pc : (pc - 1) & mask, arch.nregs, &why);
    const bool signal = row && row->signal_frame;
    ips->push_back(exact_pc ? pc : (pc - 1) & mask);
    if (n + 1 >= max_frames) return UnwindStop::kMaxFrames;
    if (!row) return why;

    CfiExprContext ctx{&regs, &mem, 0, false, arch.address_size};
    uint64_t cfa;
    if (!row->cfa_is_expr) {
      if (!regs.Has(row->cfa_reg)) return UnwindStop::kUnknownRegister;
      cfa = (regs.value[row->cfa_reg] + static_cast<uint64_t>(row->cfa_offset)) & mask;
    } else {
      const std::span<const CfiOp> ops(row->ops + row->cfa_op_begin, row->cfa_op_count);
      if (CfiExprError e = EvalCfiExpr(ops, ctx, false, &cfa); e != CfiExprError::kNone)
        return e == CfiExprError::kMemory ? outside() : StopFor(e);
    }
    // A normal caller's CFA lies above its callee's; a signal frame may switch stacks.
    if (have_cfa && cfa <= prev_cfa && !exact_pc) return UnwindStop::kLoop;
    have_cfa = true;
    prev_cfa = cfa;
    ctx.cfa = cfa;
    ctx.has_cfa = true;

    // The return address first: it decides whether there is a caller at all.
    const int ra = row->ra_reg;
    uint64_t new_pc = 0;
    if (ra >= arch.nregs) return UnwindStop::kBadCfi;
    if (!ApplyRule(*row, row->regs[ra], ra, regs, ctx, mask, &new_pc, &why))
      return why == UnwindStop::kOutsideStack ? outside() : why;
    new_pc &= mask;
    if (new_pc == 0) return UnwindStop::kComplete;
    // Most rules are "same value" or "undefined": those only keep or drop the
    // register, so the caller starts as a copy and only the others are evaluated.
    RegisterFile& caller = files[frame_regs == &files[0] ? 1 : 0];
    std::copy_n(regs.value, arch.nregs, caller.value);
    caller.valid = regs.valid;
    for (int r = 0; r < arch.nregs; ++r) {
      const CfiRule& rule = row->regs[r];
      if (rule.kind == CfiRuleKind::kSameValue) continue;
      caller.Clear(r);
      if (rule.kind == CfiRuleKind::kUndefined) continue;
      uint64_t v;
      UnwindStop ignored;
      // A register that cannot be recovered stays unknown: it matters only if a later
      // rule needs it.
      if (ApplyRule(*row, rule, r, regs, ctx, mask, &v, &ignored)) caller.Set(r, v & mask);
    }
    if (!caller.Has(arch.sp_reg) || row->regs[arch.sp_reg].kind == CfiRuleKind::kSameValue ||
        row->regs[arch.sp_reg].kind == CfiRuleKind::kUndefined)
      caller.Set(arch.sp_reg, cfa);  // the ABIs' rule: the caller's sp is the CFA
    caller.Set(ra, new_pc);
    frame_regs = &caller;
    pc = new_pc;
    exact_pc = signal;
  }
}

// Rows through Maps → Map → DsoModule → CfiSource, cached.
class Unwinder::MapsFinder : public RowFinder {
 public:
  MapsFinder(Symbolizer* symbolizer, CfiSources* sources)
      : symbolizer_(symbolizer), sources_(sources), rows_(kRowSlots) {}

  const Maps* maps = nullptr;

  const CfiRow* Find(uint64_t pc, int nregs, UnwindStop* why) override {
    // Consecutive frames mostly fall in one map; a change of the Maps (or its
    // generation) misses.
    const Map* map = nullptr;
    if (maps) {
      if (last_map_ && last_maps_ == maps && last_maps_id_ == maps->id() && last_generation_ == maps->generation() &&
          last_map_->Contains(pc)) {
        map = last_map_;
      } else if ((map = maps->Find(pc))) {
        last_map_ = map;
        last_maps_ = maps;
        last_maps_id_ = maps->id();
        last_generation_ = maps->generation();
      }
    }
    if (!map || !map->dso) {
      *why = UnwindStop::kNoMap;
      return nullptr;
    }
    const DsoKind kind = map->dso->kind();
    if (map->identity || !(kind == DsoKind::kUser || IsVdsoKind(kind))) {
      *why = UnwindStop::kNoModule;
      return nullptr;
    }
    const Source& src = SourceFor(*map->dso);
    if (!src.source) {
      *why = UnwindStop::kNoImage;
      return nullptr;
    }
    const std::optional<uint64_t> dso_vaddr = src.module->ToDsoVaddr(map->MapIp(pc));
    if (!dso_vaddr) {
      *why = UnwindStop::kNoCfi;
      return nullptr;
    }
    const size_t h = (*dso_vaddr * 0x9E3779B97F4A7C15ULL ^ reinterpret_cast<uintptr_t>(src.source) * 0xC2B2AE3D27D4EB4FULL) >>
                     (64 - kRowBits);
    RowSlot& slot = rows_[h];
    if (slot.source != src.source || slot.dso_vaddr != *dso_vaddr || slot.nregs != nregs) {
      const CfiSource::Lookup l = src.source->Find(*dso_vaddr, nregs, &scratch_);
      if (!l.stable) {  // past the source's limits: a row in scratch_, for this frame only
        slot.source = nullptr;
        if (l.found == CfiFind::kFound) return l.row;
        return NoRow(l.found, why);
      }
      slot.source = src.source;
      slot.dso_vaddr = *dso_vaddr;
      slot.nregs = nregs;
      slot.found = l.found;
      slot.row = l.row;
    }
    if (slot.found == CfiFind::kFound) return slot.row;
    return NoRow(slot.found, why);
  }

 private:
  static const CfiRow* NoRow(CfiFind found, UnwindStop* why) {
    switch (found) {
      case CfiFind::kFound:
      case CfiFind::kNoCfi: *why = UnwindStop::kNoCfi; break;
      case CfiFind::kNoImage: *why = UnwindStop::kNoImage; break;
      case CfiFind::kUnsupported: *why = UnwindStop::kBadCfi; break;
    }
    return nullptr;
  }
  struct Source {
    const Dso* dso = nullptr;
    const DsoModule* module = nullptr;
    const CfiSource* source = nullptr;  // nullptr: no runtime image
  };
  struct RowSlot {
    const CfiSource* source = nullptr;
    uint64_t dso_vaddr = 0;
    int nregs = 0;
    CfiFind found = CfiFind::kNoCfi;
    const CfiRow* row = nullptr;  // kept by `source`
  };
  static constexpr int kRowBits = 13;  // 8K slots of 32 bytes
  static constexpr size_t kRowSlots = size_t{1} << kRowBits;
  static constexpr size_t kSourceSlots = 256;

  const Source& SourceFor(const Dso& dso) {
    Source& s = source_slots_[static_cast<size_t>(dso.id()) & (kSourceSlots - 1)];
    if (s.dso == &dso) return s;
    s.dso = &dso;
    s.module = symbolizer_->Module(dso);
    s.source = s.module->runtime_path().empty() ? nullptr : sources_->For(*s.module);
    return s;
  }

  Symbolizer* symbolizer_;
  CfiSources* sources_;
  const Maps* last_maps_ = nullptr;
  uint64_t last_maps_id_ = 0, last_generation_ = 0;
  const Map* last_map_ = nullptr;
  std::vector<RowSlot> rows_;  // direct-mapped, allocated once
  CfiRow scratch_;             // a row the source did not keep
  std::array<Source, kSourceSlots> source_slots_{};
};

Unwinder::Unwinder(Symbolizer* symbolizer, CfiSources* sources, UnwindOptions options)
    : finder_(std::make_unique<MapsFinder>(symbolizer, sources)), options_(options) {}

Unwinder::~Unwinder() = default;

UnwindStop Unwinder::Unwind(const UnwindInput& in, const Maps* maps, int max_frames, std::vector<uint64_t>* ips) {
  finder_->maps = maps;
  return UnwindWith(in, max_frames, *finder_, ips, options_);
}

}  // namespace perflens
