#include "unwind/cfi_expr.h"

#include <dwarf.h>

namespace perflens {
namespace {

class Evaluator {
 public:
  explicit Evaluator(const CfiExprContext& ctx)
      : ctx_(ctx), mask_(ctx.address_size == 4 ? 0xffffffffULL : ~0ULL) {}

  CfiExprError Run(std::span<const CfiOp> ops, bool push_cfa, uint64_t* result) {
    if (push_cfa) {
      if (!ctx_.has_cfa) return CfiExprError::kUnsupportedOp;
      if (!Push(ctx_.cfa)) return CfiExprError::kStack;
    }
    size_t pc = 0;
    for (int steps = 0; pc < ops.size(); ++steps) {
      if (steps >= kCfiExprMaxSteps) return CfiExprError::kTooManySteps;
      const CfiOp& op = ops[pc];
      size_t next = pc + 1;
      if (CfiExprError e = Step(ops, op, &next); e != CfiExprError::kNone) return e;
      pc = next;
    }
    if (depth_ == 0) return CfiExprError::kStack;
    *result = stack_[depth_ - 1] & mask_;
    return CfiExprError::kNone;
  }

 private:
  bool Push(uint64_t v) {
    if (depth_ >= kCfiExprMaxStack) return false;
    stack_[depth_++] = v & mask_;
    return true;
  }
  // Signed view of a value for the address size.
  int64_t Signed(uint64_t v) const {
    return ctx_.address_size == 4 ? static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(v)))
                                  : static_cast<int64_t>(v);
  }
  bool Reg(unsigned r, uint64_t* v) const {
    if (!ctx_.regs->Has(static_cast<int>(r))) return false;
    *v = ctx_.regs->value[r];
    return true;
  }
  // The op index whose byte offset is `target` (branch targets are byte offsets).
  static bool FindTarget(std::span<const CfiOp> ops, int64_t target, size_t* index) {
    for (size_t i = 0; i < ops.size(); ++i)
      if (ops[i].byte_offset == target) {
        *index = i;
        return true;
      }
    if (target >= 0 && !ops.empty() && target > ops.back().byte_offset) {  // past the end: done
      *index = ops.size();
      return true;
    }
    return false;
  }

  CfiExprError Step(std::span<const CfiOp> ops, const CfiOp& op, size_t* next) {
    const uint8_t a = op.atom;
    if (a >= DW_OP_lit0 && a <= DW_OP_lit31) return Push(a - DW_OP_lit0) ? CfiExprError::kNone : CfiExprError::kStack;
    if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
      uint64_t v;
      if (!Reg(a - DW_OP_breg0, &v)) return CfiExprError::kUnknownRegister;
      return Push(v + op.number) ? CfiExprError::kNone : CfiExprError::kStack;
    }
    switch (a) {
      case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u: case DW_OP_const2s:
      case DW_OP_const4u: case DW_OP_const4s: case DW_OP_const8u: case DW_OP_const8s:
      case DW_OP_constu: case DW_OP_consts:
        // libdw has sign-extended the signed forms into `number` already.
        return Push(op.number) ? CfiExprError::kNone : CfiExprError::kStack;
      case DW_OP_bregx: {
        uint64_t v;
        if (!Reg(op.reg, &v)) return CfiExprError::kUnknownRegister;
        return Push(v + op.number) ? CfiExprError::kNone : CfiExprError::kStack;
      }
      case DW_OP_call_frame_cfa:
        if (!ctx_.has_cfa) return CfiExprError::kUnsupportedOp;
        return Push(ctx_.cfa) ? CfiExprError::kNone : CfiExprError::kStack;
      case DW_OP_nop:
      case DW_OP_stack_value:
        return CfiExprError::kNone;
      case DW_OP_dup:
        if (depth_ < 1) return CfiExprError::kStack;
        return Push(stack_[depth_ - 1]) ? CfiExprError::kNone : CfiExprError::kStack;
      case DW_OP_drop:
        if (depth_ < 1) return CfiExprError::kStack;
        --depth_;
        return CfiExprError::kNone;
      case DW_OP_over:
        if (depth_ < 2) return CfiExprError::kStack;
        return Push(stack_[depth_ - 2]) ? CfiExprError::kNone : CfiExprError::kStack;
      case DW_OP_pick:
        if (op.number >= static_cast<uint64_t>(depth_)) return CfiExprError::kStack;
        return Push(stack_[depth_ - 1 - static_cast<int>(op.number)]) ? CfiExprError::kNone : CfiExprError::kStack;
      case DW_OP_swap:
        if (depth_ < 2) return CfiExprError::kStack;
        std::swap(stack_[depth_ - 1], stack_[depth_ - 2]);
        return CfiExprError::kNone;
      case DW_OP_rot: {
        if (depth_ < 3) return CfiExprError::kStack;
        uint64_t top = stack_[depth_ - 1];
        stack_[depth_ - 1] = stack_[depth_ - 2];
        stack_[depth_ - 2] = stack_[depth_ - 3];
        stack_[depth_ - 3] = top;
        return CfiExprError::kNone;
      }
      case DW_OP_deref:
      case DW_OP_deref_size: {
        if (depth_ < 1) return CfiExprError::kStack;
        const uint64_t size = a == DW_OP_deref ? ctx_.address_size : op.number;
        if (size != 1 && size != 2 && size != 4 && size != 8) return CfiExprError::kUnsupportedOp;
        uint64_t v;
        if (!ctx_.memory || !ctx_.memory->Read(stack_[depth_ - 1], static_cast<unsigned>(size), &v))
          return CfiExprError::kMemory;
        stack_[depth_ - 1] = v & mask_;
        return CfiExprError::kNone;
      }
      case DW_OP_plus_uconst:
        if (depth_ < 1) return CfiExprError::kStack;
        stack_[depth_ - 1] = (stack_[depth_ - 1] + op.number) & mask_;
        return CfiExprError::kNone;
      case DW_OP_abs: case DW_OP_neg: case DW_OP_not: {
        if (depth_ < 1) return CfiExprError::kStack;
        uint64_t& v = stack_[depth_ - 1];
        const int64_t s = Signed(v);
        v = (a == DW_OP_abs ? static_cast<uint64_t>(s < 0 ? -s : s) : a == DW_OP_neg ? 0 - v : ~v) & mask_;
        return CfiExprError::kNone;
      }
      case DW_OP_skip:
      case DW_OP_bra: {
        if (a == DW_OP_bra) {
          if (depth_ < 1) return CfiExprError::kStack;
          if (stack_[--depth_] == 0) return CfiExprError::kNone;
        }
        // The operand counts from the end of this 3-byte op.
        const int64_t target = static_cast<int64_t>(op.byte_offset) + 3 + static_cast<int16_t>(op.number);
        return FindTarget(ops, target, next) ? CfiExprError::kNone : CfiExprError::kTooManySteps;
      }
      default:
        break;
    }
    // Binary operators: second is the top, first below it.
    switch (a) {
      case DW_OP_and: case DW_OP_div: case DW_OP_minus: case DW_OP_mod: case DW_OP_mul: case DW_OP_or:
      case DW_OP_plus: case DW_OP_shl: case DW_OP_shr: case DW_OP_shra: case DW_OP_xor: case DW_OP_eq:
      case DW_OP_ge: case DW_OP_gt: case DW_OP_le: case DW_OP_lt: case DW_OP_ne: {
        if (depth_ < 2) return CfiExprError::kStack;
        const uint64_t second = stack_[--depth_];
        const uint64_t first = stack_[depth_ - 1];
        const int64_t s1 = Signed(first), s2 = Signed(second);
        const unsigned bits = ctx_.address_size * 8u;
        uint64_t r = 0;
        switch (a) {
          case DW_OP_and: r = first & second; break;
          case DW_OP_or: r = first | second; break;
          case DW_OP_xor: r = first ^ second; break;
          case DW_OP_plus: r = first + second; break;
          case DW_OP_minus: r = first - second; break;
          case DW_OP_mul: r = first * second; break;
          case DW_OP_div:
            if (s2 == 0) return CfiExprError::kDivideByZero;
            r = (s2 == -1) ? 0 - first : static_cast<uint64_t>(s1 / s2);
            break;
          case DW_OP_mod:
            if (second == 0) return CfiExprError::kDivideByZero;
            r = first % second;
            break;
          case DW_OP_shl: r = second >= bits ? 0 : first << second; break;
          case DW_OP_shr: r = second >= bits ? 0 : (first & mask_) >> second; break;
          case DW_OP_shra: r = static_cast<uint64_t>(second >= bits ? (s1 < 0 ? -1 : 0) : s1 >> second); break;
          case DW_OP_eq: r = s1 == s2; break;
          case DW_OP_ge: r = s1 >= s2; break;
          case DW_OP_gt: r = s1 > s2; break;
          case DW_OP_le: r = s1 <= s2; break;
          case DW_OP_lt: r = s1 < s2; break;
          case DW_OP_ne: r = s1 != s2; break;
          default: break;
        }
        stack_[depth_ - 1] = r & mask_;
        return CfiExprError::kNone;
      }
      default:
        return CfiExprError::kUnsupportedOp;
    }
  }

  const CfiExprContext& ctx_;
  const uint64_t mask_;
  uint64_t stack_[kCfiExprMaxStack];
  int depth_ = 0;
};

}  // namespace

CfiExprError EvalCfiExpr(std::span<const CfiOp> ops, const CfiExprContext& ctx, bool push_cfa, uint64_t* result) {
  Evaluator e(ctx);
  return e.Run(ops, push_cfa, result);
}

}  // namespace perflens
