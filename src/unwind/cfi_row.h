// CfiRow: the unwinding rules of one CFI row (DWARF 5 §6.4.1, the table row that
// covers one pc), compiled from libdw into a flat, position-independent value: how to
// compute the CFA and each register of the caller from this frame's registers and
// memory. Rows are kept by their CfiSource and pointed to by the unwinder's cache, so
// that the hot path needs no libdw call; they hold no pointer and no address of the
// module (DW_OP_addr, the one op that would, is not accepted), so one row serves every
// process that maps the module at any base.
#pragma once

#include <cstdint>

#include "unwind/unwind_arch.h"

namespace perflens {

// One DWARF expression operation (libdw's Dwarf_Op, packed). `reg` holds the register
// of DW_OP_regx/bregx (number2 then goes into `number`: the offset); `byte_offset` is
// the op's position in its expression, for DW_OP_skip/bra targets.
struct CfiOp {
  uint8_t atom = 0;
  uint8_t reg = 0;
  uint16_t byte_offset = 0;
  uint64_t number = 0;
  uint64_t number2 = 0;  // DW_OP_deref_size etc. keep their second operand here
};

enum class CfiRuleKind : uint8_t {
  kUndefined,     // not recoverable (caller-saved, or the end of the stack for the RA)
  kSameValue,     // unchanged in the caller
  kAtCfa,         // saved at CFA + offset
  kValCfa,        // the value CFA + offset
  kAtReg,         // saved at reg + offset (glibc's signal frames: [cfa, bregN off])
  kRegister,      // the value of another register of this frame
  kAtExpr,        // saved at the address ops compute
  kValExpr,       // the value ops compute
};

struct CfiRule {
  CfiRuleKind kind = CfiRuleKind::kUndefined;
  uint8_t reg = 0;        // kAtReg, kRegister
  uint8_t op_begin = 0;   // kAtExpr, kValExpr: ops[op_begin, op_begin + op_count)
  uint8_t op_count = 0;
  bool push_cfa = false;  // kAtExpr, kValExpr: the CFA is pushed before the ops run
  int64_t offset = 0;     // kAtCfa, kValCfa, kAtReg
};

struct CfiRow {
  static constexpr int kMaxOps = 32;
  // CFA: reg + offset (cfa_is_expr false) or the value of ops (true).
  bool cfa_is_expr = false;
  uint8_t cfa_reg = 0;
  int64_t cfa_offset = 0;
  uint8_t cfa_op_begin = 0, cfa_op_count = 0;
  uint8_t ra_reg = 0;       // the return-address column of the CIE
  bool signal_frame = false;  // 'S' augmentation: the caller's pc is exact, not a return address
  uint8_t nops = 0;
  CfiRule regs[kMaxDwarfRegs];
  CfiOp ops[kMaxOps];
};

}  // namespace perflens
