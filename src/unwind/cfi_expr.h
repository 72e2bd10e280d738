// The DWARF expression evaluator CFI needs (DWARF 5 §2.5): a stack machine over the
// operations that DW_CFA_def_cfa_expression, DW_CFA_expression and
// DW_CFA_val_expression use in practice — literals and constants, bregN/bregx, the
// arithmetic, logic, shift and comparison ops, stack ops, deref/deref_size (from the
// stack copy only), skip/bra, call_frame_cfa. Examples it must take: x86_64 PLT
// entries (breg7 8; breg16 0; lit15; and; lit11; ge; lit3; shl; plus) and glibc's
// signal trampolines (breg7 160; deref). Anything else (DW_OP_addr, TLS, typed ops,
// pieces) is kUnsupportedOp.
//
// Bounded: at most kMaxStack values, kMaxSteps executed operations (a bra loop ends
// there), no allocation. Values are runtime addresses or plain numbers; with a 4-byte
// address size they are kept modulo 2^32 and compared as 32-bit signed.
#pragma once

#include <cstdint>
#include <span>

#include "unwind/cfi_row.h"
#include "unwind/stack_memory.h"
#include "unwind/unwind_arch.h"

namespace perflens {

enum class CfiExprError : uint8_t {
  kNone,
  kUnsupportedOp,    // an op CFI does not use (or DW_OP_addr: not position-independent)
  kStack,            // stack underflow or overflow, empty result
  kUnknownRegister,  // bregN of a register this frame does not know
  kMemory,           // deref outside the stack copy
  kDivideByZero,
  kTooManySteps,     // a skip/bra loop, or a branch target that is no op
};

struct CfiExprContext {
  const RegisterFile* regs = nullptr;
  const StackMemory* memory = nullptr;
  uint64_t cfa = 0;  // for DW_OP_call_frame_cfa
  bool has_cfa = false;
  uint8_t address_size = 8;
};

inline constexpr int kCfiExprMaxStack = 64;
inline constexpr int kCfiExprMaxSteps = 256;

// Runs `ops`, with the CFA pushed first when `push_cfa`; *result is the top of the
// stack at the end (DW_OP_stack_value is accepted as a no-op at the end: whether the
// result is a value or an address is the rule's business).
CfiExprError EvalCfiExpr(std::span<const CfiOp> ops, const CfiExprContext& ctx, bool push_cfa, uint64_t* result);

}  // namespace perflens
