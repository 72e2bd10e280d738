#include "unwind/cfi_source.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <cstdlib>
#include <string_view>

#include "base/mapped_file.h"
#include "symbolize/elf_sections.h"

namespace perflens {
namespace {

// Copies libdw's ops [begin, end) into the row's pool; false when it is full or an op
// cannot be position-independent.
bool CopyOps(const Dwarf_Op* ops, size_t n, CfiRow* row, uint8_t* begin, uint8_t* count) {
  if (n > static_cast<size_t>(CfiRow::kMaxOps - row->nops)) return false;
  *begin = row->nops;
  for (size_t i = 0; i < n; ++i) {
    const Dwarf_Op& o = ops[i];
    if (o.atom == DW_OP_addr || o.offset > UINT16_MAX) return false;
    CfiOp& c = row->ops[row->nops++];
    c.atom = o.atom;
    c.byte_offset = static_cast<uint16_t>(o.offset);
    c.number = o.number;
    c.number2 = o.number2;
    if (o.atom == DW_OP_bregx || o.atom == DW_OP_regx) {
      c.reg = o.number < kMaxDwarfRegs ? static_cast<uint8_t>(o.number) : 0xff;  // 0xff: never known
      c.number = o.number2;
    }
  }
  *count = static_cast<uint8_t>(n);
  return true;
}

// The register of a lone breg/bregx op, with its offset.
bool LoneBreg(const Dwarf_Op& o, uint8_t* reg, int64_t* offset) {
  if (o.atom >= DW_OP_breg0 && o.atom <= DW_OP_breg31) {
    *reg = static_cast<uint8_t>(o.atom - DW_OP_breg0);
    *offset = static_cast<int64_t>(o.number);
    return true;
  }
  if (o.atom == DW_OP_bregx && o.number < kMaxDwarfRegs) {
    *reg = static_cast<uint8_t>(o.number);
    *offset = static_cast<int64_t>(o.number2);
    return true;
  }
  return false;
}

// One register's rule from dwarf_frame_register's answer.
bool CompileRule(const Dwarf_Op* ops, size_t nops, CfiRow* row, CfiRule* rule) {
  if (nops == 0) {
    rule->kind = ops ? CfiRuleKind::kUndefined : CfiRuleKind::kSameValue;
    return true;
  }
  bool value = false;
  if (ops[nops - 1].atom == DW_OP_stack_value) {
    value = true;
    --nops;
  }
  bool push_cfa = false;
  if (nops > 0 && ops[0].atom == DW_OP_call_frame_cfa) {
    push_cfa = true;
    ++ops;
    --nops;
    if (nops == 0) {
      rule->kind = value ? CfiRuleKind::kValCfa : CfiRuleKind::kAtCfa;
      rule->offset = 0;
      return true;
    }
    if (nops == 1 && ops[0].atom == DW_OP_plus_uconst) {
      rule->kind = value ? CfiRuleKind::kValCfa : CfiRuleKind::kAtCfa;
      rule->offset = static_cast<int64_t>(ops[0].number);
      return true;
    }
    // [cfa, bregN off]: the CFA stays below, unused (glibc's signal frames).
    if (nops == 1 && !value && LoneBreg(ops[0], &rule->reg, &rule->offset)) {
      rule->kind = CfiRuleKind::kAtReg;
      return true;
    }
  } else if (nops == 1 && ops[0].atom == DW_OP_regx && !value) {
    if (ops[0].number >= kMaxDwarfRegs) return false;
    rule->kind = CfiRuleKind::kRegister;
    rule->reg = static_cast<uint8_t>(ops[0].number);
    return true;
  }
  if (nops == 0) return false;
  rule->kind = value ? CfiRuleKind::kValExpr : CfiRuleKind::kAtExpr;
  rule->push_cfa = push_cfa;
  return CopyOps(ops, nops, row, &rule->op_begin, &rule->op_count);
}

// Also gives the end of the row's range: libdw's `end` is where the next row starts
// (the first advance past the pc, or the FDE's end), so every pc from the one looked
// up to it has this row. Its `start` is not used: after DW_CFA_restore_state it is the
// remembered row's start, not this row's (elfutils 0.188 cfi.c).
CfiFind Compile(Dwarf_Frame* frame, int nregs, CfiRow* row, uint64_t* end) {
  *row = CfiRow{};
  Dwarf_Addr start = 0;
  bool signalp = false;
  const int ra = dwarf_frame_info(frame, &start, end, &signalp);
  if (ra < 0 || ra >= kMaxDwarfRegs) return CfiFind::kUnsupported;
  row->ra_reg = static_cast<uint8_t>(ra);
  row->signal_frame = signalp;
  Dwarf_Op* ops = nullptr;
  size_t nops = 0;
  if (dwarf_frame_cfa(frame, &ops, &nops) != 0 || nops == 0) return CfiFind::kUnsupported;
  if (nops == 1 && LoneBreg(ops[0], &row->cfa_reg, &row->cfa_offset)) {
    row->cfa_is_expr = false;
  } else {
    row->cfa_is_expr = true;
    if (!CopyOps(ops, nops, row, &row->cfa_op_begin, &row->cfa_op_count)) return CfiFind::kUnsupported;
  }
  for (int r = 0; r < nregs; ++r) {
    Dwarf_Op mem[3];
    Dwarf_Op* rops = nullptr;
    size_t rn = 0;
    if (dwarf_frame_register(frame, r, mem, &rops, &rn) != 0) {
      row->regs[r].kind = CfiRuleKind::kUndefined;
      continue;
    }
    if (!CompileRule(rops, rn, row, &row->regs[r])) return CfiFind::kUnsupported;
  }
  return CfiFind::kFound;
}

void Close(int* fd, Elf** elf) {
  if (*elf) elf_end(*elf);
  if (*fd >= 0) close(*fd);
  *elf = nullptr;
  *fd = -1;
}

}  // namespace

CfiSource::CfiSource(std::string runtime_path, std::string debug_path)
    : runtime_path_(std::move(runtime_path)), debug_path_(std::move(debug_path)) {
  if (debug_path_ == runtime_path_) debug_path_.clear();
}

CfiSource::~CfiSource() {
  if (eh_.cfi) dwarf_cfi_end(eh_.cfi);
  Close(&eh_.fd, &eh_.elf);
  if (debug_.dwarf) dwarf_end(debug_.dwarf);  // owns its .debug_frame CFI
  Close(&debug_.fd, &debug_.elf);
}

void CfiSource::OpenEh() const {
  eh_.opened = true;
  if (runtime_path_.empty()) return;
  elf_version(EV_CURRENT);
  auto fd = OpenRegularFile(runtime_path_);  // never blocks on a FIFO
  if (!fd.ok()) return;
  eh_.fd = *fd;
  eh_.elf = elf_begin(eh_.fd, ELF_C_READ_MMAP, nullptr);
  if (eh_.elf) eh_.cfi = dwarf_getcfi_elf(eh_.elf);
}

void CfiSource::OpenDebug() const {
  debug_.opened = true;
  if (debug_path_.empty()) return;
  elf_version(EV_CURRENT);
  auto fd = OpenRegularFile(debug_path_);
  if (!fd.ok()) return;
  debug_.fd = *fd;
  debug_.elf = elf_begin(debug_.fd, ELF_C_READ_MMAP_PRIVATE, nullptr);
  if (!debug_.elf) return;
  // Only .debug_frame is read: libdw would inflate every other compressed debug section
  // too (ld.so's, libc's debug files), for a pc .eh_frame does not cover.
  HideCompressedSections(debug_.elf, [](std::string_view name) { return name != ".debug_frame"; });
  debug_.dwarf = dwarf_begin_elf(debug_.elf, DWARF_C_READ, nullptr);
  if (debug_.dwarf) debug_.cfi = dwarf_getcfi(debug_.dwarf);
}

CfiSource::Lookup CfiSource::Find(uint64_t dso_vaddr, int nregs, CfiRow* scratch) const {
  std::lock_guard<std::mutex> lock(mu_);
  // nregs is an arch's register count (< 256); dso_vaddr fits 56 bits in any real ELF,
  // and a wrapped key only costs a lookup in libdw.
  const uint64_t key = dso_vaddr << 8 ^ static_cast<uint8_t>(nregs);
  auto answer = [](CfiFind found, const Kept* kept) {
    return Lookup{found, found == CfiFind::kFound ? &kept->row : nullptr, true};
  };
  if (auto it = by_pc_.find(key); it != by_pc_.end()) return answer(it->second.found, it->second.kept);
  // A pc inside a kept row's range: the first row ending above it.
  if (auto it = by_end_.upper_bound({nregs, dso_vaddr}); it != by_end_.end() && it->first.first == nregs) {
    Kept* k = it->second;
    if (k->start <= dso_vaddr) {
      if (by_pc_.size() < kMaxKeptPcs) by_pc_.emplace(key, PcEntry{k->found, k});
      return answer(k->found, k);
    }
  }
  uint64_t end = 0;
  bool from_debug = false;
  const CfiFind found = FindRowInLibdw(dso_vaddr, nregs, scratch, &end, &from_debug);
  const bool has_row = found == CfiFind::kFound || found == CfiFind::kUnsupported;
  if (!has_row) {
    if (by_pc_.size() < kMaxKeptPcs) by_pc_.emplace(key, PcEntry{found, nullptr});
    return Lookup{found, nullptr, true};  // no row to point to: any cache may keep it
  }
  const bool ranged = dso_vaddr < end;
  if (ranged) {
    // The same row as a kept one, looked up below its lowest pc so far.
    if (auto it = by_end_.find({nregs, end});
        it != by_end_.end() && it->second->found == found && it->second->from_debug == from_debug) {
      it->second->start = dso_vaddr;
      if (by_pc_.size() < kMaxKeptPcs) by_pc_.emplace(key, PcEntry{found, it->second});
      return answer(found, it->second);
    }
  }
  if (kept_.size() >= kMaxKeptRows || by_pc_.size() >= kMaxKeptPcs || (dso_vaddr >> 56) != 0)
    return Lookup{found, found == CfiFind::kFound ? scratch : nullptr, false};
  Kept& k = kept_.emplace_back(Kept{found, from_debug, dso_vaddr, ranged ? end : dso_vaddr, *scratch});
  if (ranged) by_end_.emplace(std::make_pair(nregs, end), &k);
  by_pc_.emplace(key, PcEntry{found, &k});
  return answer(found, &k);
}

CfiFind CfiSource::FindRow(uint64_t dso_vaddr, int nregs, CfiRow* row) const {
  const Lookup l = Find(dso_vaddr, nregs, row);
  if (l.row && l.row != row) *row = *l.row;
  return l.found;
}

CfiFind CfiSource::FindRowInLibdw(uint64_t dso_vaddr, int nregs, CfiRow* row, uint64_t* end, bool* from_debug) const {
  if (!eh_.opened) OpenEh();
  if (!eh_.elf) return CfiFind::kNoImage;
  CfiFind result = CfiFind::kNoCfi;
  Dwarf_Frame* frame = nullptr;
  if (eh_.cfi && dwarf_cfi_addrframe(eh_.cfi, dso_vaddr, &frame) == 0) {
    result = Compile(frame, nregs, row, end);
    free(frame);
    return result;
  }
  if (!debug_.opened) OpenDebug();
  if (debug_.cfi && dwarf_cfi_addrframe(debug_.cfi, dso_vaddr, &frame) == 0) {
    *from_debug = true;
    result = Compile(frame, nregs, row, end);
    free(frame);
  }
  return result;
}

const CfiSource* CfiSources::For(const DsoModule& module) {
  std::lock_guard<std::mutex> lock(mu_);
  std::unique_ptr<CfiSource>& s = sources_[&module];
  if (!s) s = std::make_unique<CfiSource>(module.runtime_path(), module.symbols_path());
  return s.get();
}

}  // namespace perflens
