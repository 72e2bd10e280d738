// The CFI expression evaluator: the expressions real CFI uses, and bounded failure on
// everything else.
#include <gtest/gtest.h>

#include <dwarf.h>

#include <vector>

#include "unwind/cfi_expr.h"

namespace perflens {
namespace {

// Ops with consecutive byte offsets as a producer would lay them out (sizes only
// matter for skip/bra targets, which the tests give explicitly).
CfiOp Op(uint8_t atom, uint64_t number = 0, uint16_t byte_offset = 0) {
  CfiOp o;
  o.atom = atom;
  o.number = number;
  o.byte_offset = byte_offset;
  return o;
}

struct Fixture {
  RegisterFile regs;
  std::vector<uint64_t> stack = std::vector<uint64_t>(16, 0);
  StackMemory mem;
  CfiExprContext ctx;
  Fixture() {
    for (size_t i = 0; i < stack.size(); ++i) stack[i] = 0x5000 + i;
    mem = {reinterpret_cast<const uint8_t*>(stack.data()), 0x7000, stack.size() * 8, false};
    ctx.regs = &regs;
    ctx.memory = &mem;
  }
  CfiExprError Eval(const std::vector<CfiOp>& ops, uint64_t* out, bool push_cfa = false) {
    return EvalCfiExpr(ops, ctx, push_cfa, out);
  }
};

TEST(CfiExpr, X86_64PltEntry) {
  // glibc/binutils .plt: CFA = rsp + 8 + ((rip & 15) >= 11 ? 8 : 0).
  const std::vector<CfiOp> plt = {Op(DW_OP_breg7, 8), Op(DW_OP_breg16, 0), Op(DW_OP_lit15), Op(DW_OP_and),
                                  Op(DW_OP_lit11),    Op(DW_OP_ge),         Op(DW_OP_lit3),  Op(DW_OP_shl),
                                  Op(DW_OP_plus)};
  Fixture f;
  f.regs.Set(7, 0x7ffc0000);
  uint64_t cfa = 0;
  f.regs.Set(16, 0x401026);  // before the push: & 15 = 6
  ASSERT_EQ(f.Eval(plt, &cfa), CfiExprError::kNone);
  EXPECT_EQ(cfa, 0x7ffc0008u);
  f.regs.Set(16, 0x40102b);  // after the push: & 15 = 11
  ASSERT_EQ(f.Eval(plt, &cfa), CfiExprError::kNone);
  EXPECT_EQ(cfa, 0x7ffc0010u);
}

TEST(CfiExpr, SignalFrameCfaFromStack) {
  // glibc's __restore_rt: CFA = *(rsp + 160).
  Fixture f;
  f.regs.Set(7, 0x7000);
  uint64_t v = 0;
  ASSERT_EQ(f.Eval({Op(DW_OP_breg7, 0x10), Op(DW_OP_deref)}, &v), CfiExprError::kNone);
  EXPECT_EQ(v, 0x5002u);
  ASSERT_EQ(f.Eval({Op(DW_OP_breg7, 0x10), Op(DW_OP_deref_size, 4)}, &v), CfiExprError::kNone);
  EXPECT_EQ(v, 0x5002u);
  // Outside the copy (one byte short of 8 at its end, and below sp).
  EXPECT_EQ(f.Eval({Op(DW_OP_breg7, 16 * 8 - 7), Op(DW_OP_deref)}, &v), CfiExprError::kMemory);
  EXPECT_EQ(f.Eval({Op(DW_OP_breg7, static_cast<uint64_t>(-8)), Op(DW_OP_deref)}, &v), CfiExprError::kMemory);
}

TEST(CfiExpr, ArithmeticStackOpsAndCfa) {
  Fixture f;
  f.ctx.cfa = 0x9000;
  f.ctx.has_cfa = true;
  uint64_t v = 0;
  ASSERT_EQ(f.Eval({Op(DW_OP_lit5), Op(DW_OP_lit3), Op(DW_OP_minus)}, &v), CfiExprError::kNone);
  EXPECT_EQ(v, 2u);
  ASSERT_EQ(f.Eval({Op(DW_OP_const2u, 300), Op(DW_OP_dup), Op(DW_OP_mul), Op(DW_OP_lit7), Op(DW_OP_mod)}, &v),
            CfiExprError::kNone);
  EXPECT_EQ(v, 90000u % 7);
  ASSERT_EQ(f.Eval({Op(DW_OP_lit1), Op(DW_OP_lit2), Op(DW_OP_swap), Op(DW_OP_drop)}, &v), CfiExprError::kNone);
  EXPECT_EQ(v, 2u);
  ASSERT_EQ(f.Eval({Op(DW_OP_plus_uconst, 16)}, &v, /*push_cfa=*/true), CfiExprError::kNone);
  EXPECT_EQ(v, 0x9010u);
  ASSERT_EQ(f.Eval({Op(DW_OP_call_frame_cfa), Op(DW_OP_consts, static_cast<uint64_t>(-16)), Op(DW_OP_plus)}, &v),
            CfiExprError::kNone);
  EXPECT_EQ(v, 0x8ff0u);
  ASSERT_EQ(f.Eval({Op(DW_OP_lit0), Op(DW_OP_lit1), Op(DW_OP_minus), Op(DW_OP_lit4), Op(DW_OP_shra)}, &v),
            CfiExprError::kNone);
  EXPECT_EQ(v, ~0ULL);
  ASSERT_EQ(f.Eval({Op(DW_OP_lit2), Op(DW_OP_lit1), Op(DW_OP_lt)}, &v), CfiExprError::kNone);
  EXPECT_EQ(v, 0u);
}

TEST(CfiExpr, AddressSizeFourWraps) {
  Fixture f;
  f.ctx.address_size = 4;
  f.regs.Set(4, 0xfffffff8);
  uint64_t v = 0;
  ASSERT_EQ(f.Eval({Op(DW_OP_breg4, 16)}, &v), CfiExprError::kNone);
  EXPECT_EQ(v, 8u);
}

TEST(CfiExpr, Branches) {
  Fixture f;
  uint64_t v = 0;
  // lit1 (0); bra +1 (1..3) → skips lit7 (4) to lit9 (5).
  ASSERT_EQ(f.Eval({Op(DW_OP_lit1, 0, 0), Op(DW_OP_bra, 1, 1), Op(DW_OP_lit7, 0, 4), Op(DW_OP_lit9, 0, 5)}, &v),
            CfiExprError::kNone);
  EXPECT_EQ(v, 9u);
  // skip -3 back onto itself: a loop, ended by the step bound.
  EXPECT_EQ(f.Eval({Op(DW_OP_lit1, 0, 0), Op(DW_OP_skip, static_cast<uint16_t>(-3), 1)}, &v),
            CfiExprError::kTooManySteps);
  // A target before the expression.
  EXPECT_EQ(f.Eval({Op(DW_OP_lit1, 0, 0), Op(DW_OP_skip, static_cast<uint16_t>(-5), 1)}, &v),
            CfiExprError::kTooManySteps);
}

TEST(CfiExpr, FailuresAreBounded) {
  Fixture f;
  uint64_t v = 0;
  EXPECT_EQ(f.Eval({}, &v), CfiExprError::kStack);
  EXPECT_EQ(f.Eval({Op(DW_OP_plus)}, &v), CfiExprError::kStack);
  EXPECT_EQ(f.Eval({Op(DW_OP_breg3, 0)}, &v), CfiExprError::kUnknownRegister);
  EXPECT_EQ(f.Eval({Op(DW_OP_addr, 0x1000)}, &v), CfiExprError::kUnsupportedOp);
  EXPECT_EQ(f.Eval({Op(DW_OP_call_frame_cfa)}, &v), CfiExprError::kUnsupportedOp);  // no CFA yet
  EXPECT_EQ(f.Eval({Op(DW_OP_lit1), Op(DW_OP_lit0), Op(DW_OP_div)}, &v), CfiExprError::kDivideByZero);
  EXPECT_EQ(f.Eval({Op(DW_OP_lit1), Op(DW_OP_pick, 5)}, &v), CfiExprError::kStack);
  std::vector<CfiOp> deep(kCfiExprMaxStack + 1, Op(DW_OP_lit1));
  EXPECT_EQ(f.Eval(deep, &v), CfiExprError::kStack);
  std::vector<CfiOp> longer(kCfiExprMaxSteps + 1, Op(DW_OP_nop));
  longer.push_back(Op(DW_OP_lit1));
  EXPECT_EQ(f.Eval(longer, &v), CfiExprError::kTooManySteps);
}

}  // namespace
}  // namespace perflens
