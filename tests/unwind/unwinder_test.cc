// The unwinding walk over synthetic CFI rows and stacks: perf's reported addresses
// (pc for the first frame and after a signal frame, pc - 1 for return addresses),
// every stop reason, and bounded behaviour on hostile input.
#include <gtest/gtest.h>

#include <dwarf.h>

#include <map>
#include <vector>

#include "unwind/unwinder.h"

namespace perflens {
namespace {

constexpr uint64_t kSp = 0x7ffd0000;
constexpr uint64_t kMaskX86_64 = 0xff0fff;  // perf record's mask

// x86_64 rows: "call frame" rows with CFA = rsp + off and the RA at CFA - 8.
CfiRow CallRow(int64_t cfa_offset) {
  CfiRow r;
  r.cfa_reg = 7;
  r.cfa_offset = cfa_offset;
  r.ra_reg = 16;
  for (CfiRule& rule : r.regs) rule.kind = CfiRuleKind::kUndefined;
  for (int reg : {3, 6, 12, 13, 14, 15}) r.regs[reg].kind = CfiRuleKind::kSameValue;
  r.regs[7] = {CfiRuleKind::kValCfa, 0, 0, 0, false, 0};
  r.regs[16] = {CfiRuleKind::kAtCfa, 0, 0, 0, false, -8};
  return r;
}

// Rows by pc range [begin, end).
struct Finder : RowFinder {
  struct Range {
    uint64_t end;
    CfiRow row;
  };
  std::map<uint64_t, Range> ranges;  // by begin
  std::vector<uint64_t> asked;
  UnwindStop missing = UnwindStop::kNoCfi;
  void Add(uint64_t begin, uint64_t end, const CfiRow& row) { ranges[begin] = {end, row}; }
  const CfiRow* Find(uint64_t pc, int nregs, UnwindStop* why) override {
    asked.push_back(pc);
    auto it = ranges.upper_bound(pc);
    if (it != ranges.begin() && pc < (--it)->second.end) return &it->second.row;
    *why = missing;
    return nullptr;
  }
};

// A sample: registers in perf's mask order and a stack copy.
struct Input {
  std::vector<uint64_t> regs;
  std::vector<uint64_t> stack;
  UnwindInput in;
  Input(uint64_t pc, uint64_t sp, std::vector<uint64_t> stack_words) : stack(std::move(stack_words)) {
    for (int bit = 0; bit < 24; ++bit) {
      if (!((kMaskX86_64 >> bit) & 1)) continue;
      regs.push_back(bit == 8 ? pc : bit == 7 ? sp : bit == 6 ? 0xbbbb : 0);
    }
    in.arch = UnwindArch::kX86_64;
    in.regs_abi = 2;
    in.regs_mask = kMaskX86_64;
    in.regs = {reinterpret_cast<const uint8_t*>(regs.data()), regs.size(), false};
    in.stack = reinterpret_cast<const uint8_t*>(stack.data());
    in.stack_size = in.stack_dyn_size = stack.size() * 8;
  }
};

// leaf 0x1000..0x1100 (CFA rsp+8) called from mid 0x2000.. (CFA rsp+24), called from
// main 0x3000.. whose caller's RA rule is undefined (the outermost frame).
struct ThreeFrames {
  Finder finder;
  ThreeFrames() {
    finder.Add(0x1000, 0x1100, CallRow(8));
    finder.Add(0x2000, 0x2100, CallRow(24));
    CfiRow outer = CallRow(16);
    outer.regs[16].kind = CfiRuleKind::kUndefined;
    finder.Add(0x3000, 0x3100, outer);
  }
  // [sp] = RA into mid; mid's frame 24 bytes: RA into main at sp+8+16.
  static std::vector<uint64_t> Stack() { return {0x2010, 0, 0, 0x3020, 0, 0, 0, 0}; }
};

TEST(Unwinder, ReportsPerfAddresses) {
  ThreeFrames t;
  Input s(0x1050, kSp, ThreeFrames::Stack());
  std::vector<uint64_t> ips;
  EXPECT_EQ(UnwindWith(s.in, 127, t.finder, &ips), UnwindStop::kComplete);
  EXPECT_EQ(ips, (std::vector<uint64_t>{0x1050, 0x200f, 0x301f}));
  // CFI of callers is looked up at the return address - 1 too.
  EXPECT_EQ(t.finder.asked, (std::vector<uint64_t>{0x1050, 0x200f, 0x301f}));
}

TEST(Unwinder, MaxFramesAndAppending) {
  ThreeFrames t;
  Input s(0x1050, kSp, ThreeFrames::Stack());
  std::vector<uint64_t> ips = {0xaa};  // the recorded part stays in front
  EXPECT_EQ(UnwindWith(s.in, 2, t.finder, &ips), UnwindStop::kMaxFrames);
  EXPECT_EQ(ips, (std::vector<uint64_t>{0xaa, 0x1050, 0x200f}));
  ips.clear();
  EXPECT_EQ(UnwindWith(s.in, 1, t.finder, &ips), UnwindStop::kMaxFrames);
  EXPECT_EQ(ips, (std::vector<uint64_t>{0x1050}));
  ips.clear();
  EXPECT_EQ(UnwindWith(s.in, 0, t.finder, &ips), UnwindStop::kMaxFrames);
  EXPECT_TRUE(ips.empty());
}

TEST(Unwinder, NoCfiKeepsThePartialChain) {
  ThreeFrames t;
  t.finder.missing = UnwindStop::kNoModule;  // e.g. a JIT map
  Input s(0x1050, kSp, {0x9010, 0, 0, 0});
  std::vector<uint64_t> ips;
  EXPECT_EQ(UnwindWith(s.in, 127, t.finder, &ips), UnwindStop::kNoModule);
  EXPECT_EQ(ips, (std::vector<uint64_t>{0x1050, 0x900f}));
}

TEST(Unwinder, StackEndAsPerf) {
  ThreeFrames t;
  // mid's RA slot (sp + 24) is the copy's last word.
  Input s(0x1050, kSp, {0x2010, 0, 0, 0x3020});
  std::vector<uint64_t> ips;
  // perf does not read the last word and makes the failed read a frame at ~0.
  EXPECT_EQ(UnwindWith(s.in, 127, t.finder, &ips), UnwindStop::kOutsideStack);
  EXPECT_EQ(ips, (std::vector<uint64_t>{0x1050, 0x200f, ~0ULL}));
  ips.clear();
  UnwindOptions exact;
  exact.perf_stack_end = false;
  EXPECT_EQ(UnwindWith(s.in, 127, t.finder, &ips, exact), UnwindStop::kComplete);
  EXPECT_EQ(ips, (std::vector<uint64_t>{0x1050, 0x200f, 0x301f}));
  // Shorter still: the RA is past the copy either way.
  s.in.stack_dyn_size = 16;
  ips.clear();
  EXPECT_EQ(UnwindWith(s.in, 127, t.finder, &ips, exact), UnwindStop::kOutsideStack);
  EXPECT_EQ(ips, (std::vector<uint64_t>{0x1050, 0x200f}));
}

TEST(Unwinder, SignalFrameMakesTheNextPcExact) {
  Finder f;
  f.Add(0x1000, 0x1100, CallRow(8));  // handler
  // The trampoline at 0x4000 (FDE from 0x3fff, as glibc's): CFA and RA from the
  // sigcontext on the stack: CFA = *(rsp + 8), rip = *rsp.
  CfiRow tramp = CallRow(0);
  tramp.signal_frame = true;
  tramp.cfa_is_expr = true;
  tramp.ops[0].atom = DW_OP_breg7;
  tramp.ops[0].number = 8;
  tramp.ops[1].atom = DW_OP_deref;
  tramp.ops[1].byte_offset = 2;
  tramp.nops = 2;
  tramp.cfa_op_count = 2;
  tramp.regs[16] = {CfiRuleKind::kAtReg, 7, 0, 0, false, 0};
  f.Add(0x3fff, 0x4010, tramp);
  f.Add(0x2000, 0x2100, CallRow(8));  // the interrupted function
  CfiRow outer = CallRow(8);
  outer.regs[16].kind = CfiRuleKind::kUndefined;
  f.Add(0x5000, 0x5100, outer);
  // handler frame: [sp] = 0x4000 (the trampoline); the trampoline's frame at sp + 8
  // holds rip 0x2040 (interrupted, exact) and the interrupted frame's sp, sp + 0x20,
  // where its RA into 0x5010 is.
  Input s(0x1050, kSp, {0x4000, 0x2040, kSp + 0x20, 0, 0x5010, 0, 0, 0});
  std::vector<uint64_t> ips;
  EXPECT_EQ(UnwindWith(s.in, 127, f, &ips), UnwindStop::kComplete);
  // The trampoline is a return address like any other (perf prints it at - 1); the
  // pc it restores is exact.
  EXPECT_EQ(ips, (std::vector<uint64_t>{0x1050, 0x3fff, 0x2040, 0x500f}));
  EXPECT_EQ(f.asked, (std::vector<uint64_t>{0x1050, 0x3fff, 0x2040, 0x500f}));
}

TEST(Unwinder, LoopsStop) {
  Finder f;
  CfiRow self = CallRow(0);  // CFA = rsp: never grows
  self.regs[16] = {CfiRuleKind::kAtCfa, 0, 0, 0, false, 0};
  f.Add(0x1000, 0x1100, self);
  Input s(0x1050, kSp, {0x1051, 0x1051, 0x1051, 0x1051});
  std::vector<uint64_t> ips;
  EXPECT_EQ(UnwindWith(s.in, 127, f, &ips), UnwindStop::kLoop);
  EXPECT_LE(ips.size(), 3u);
}

TEST(Unwinder, MalformedInputStopsBeforeWalking) {
  ThreeFrames t;
  std::vector<uint64_t> ips;
  Input s(0x1050, kSp, ThreeFrames::Stack());
  UnwindInput in = s.in;
  in.stack_dyn_size = in.stack_size + 8;
  EXPECT_EQ(UnwindWith(in, 127, t.finder, &ips), UnwindStop::kDynSizeTooLarge);
  in = s.in;
  in.stack_size = in.stack_dyn_size = 0;
  EXPECT_EQ(UnwindWith(in, 127, t.finder, &ips), UnwindStop::kNoStack);
  // A copy of stack_size bytes of which none is valid (dyn_size 0: a sample during an
  // execve, whose old mm is gone): perf prints no user frame, not even the ip.
  in = s.in;
  in.stack_dyn_size = 0;
  EXPECT_EQ(UnwindWith(in, 127, t.finder, &ips), UnwindStop::kNoStack);
  in = s.in;
  in.regs_abi = 0;
  in.regs = {};
  EXPECT_EQ(UnwindWith(in, 127, t.finder, &ips), UnwindStop::kNoRegs);
  in.stack_size = in.stack_dyn_size = 0;
  EXPECT_EQ(UnwindWith(in, 127, t.finder, &ips), UnwindStop::kNoUserContext);
  in = s.in;
  in.regs_mask = 0x3f;  // no IP/SP bit (and fewer values than recorded: read in order)
  EXPECT_EQ(UnwindWith(in, 127, t.finder, &ips), UnwindStop::kBadRegs);
  in = s.in;
  in.arch = UnwindArch::kUnknown;
  EXPECT_EQ(UnwindWith(in, 127, t.finder, &ips), UnwindStop::kUnsupportedArch);
  EXPECT_TRUE(ips.empty());
  // A stack pointer whose copy would wrap around the address space.
  Input high(0x1050, ~0ULL - 8, ThreeFrames::Stack());
  // The caller's CFA wraps to a small address: not above its callee's, so a loop.
  EXPECT_EQ(UnwindWith(high.in, 127, t.finder, &ips, {.perf_stack_end = false}), UnwindStop::kLoop);
  EXPECT_EQ(ips, (std::vector<uint64_t>{0x1050, 0x200f}));
}

TEST(Unwinder, LostRegisterStops) {
  Finder f;
  CfiRow by_rbx = CallRow(8);  // CFA from rbx, which the first frame does not know
  by_rbx.cfa_reg = 3;
  f.Add(0x1000, 0x1100, by_rbx);
  Input s(0x1050, kSp, ThreeFrames::Stack());
  s.in.regs_mask = kMaskX86_64 & ~uint64_t{2};  // no BX
  s.regs.erase(s.regs.begin() + 1);
  s.in.regs.size = s.regs.size();
  s.in.regs.data = reinterpret_cast<const uint8_t*>(s.regs.data());
  std::vector<uint64_t> ips;
  EXPECT_EQ(UnwindWith(s.in, 127, f, &ips), UnwindStop::kUnknownRegister);
}

TEST(Unwinder, HugeMaxFramesIsCapped) {
  // A 2-frame cycle whose CFA keeps growing through a large stack: bounded by
  // kMaxUnwindFrames (or the copy), never by the caller's max_frames.
  Finder f;
  f.Add(0x1000, 0x1100, CallRow(8));
  std::vector<uint64_t> stack(kMaxUnwindFrames * 2, 0x1010);
  Input s(0x1050, kSp, stack);
  std::vector<uint64_t> ips;
  EXPECT_EQ(UnwindWith(s.in, INT32_MAX, f, &ips), UnwindStop::kMaxFrames);
  EXPECT_EQ(ips.size(), static_cast<size_t>(kMaxUnwindFrames));
}

}  // namespace
}  // namespace perflens
