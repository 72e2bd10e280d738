// perflens annotate's core: capstone's text in objdump's spelling, perf's
// calc_percent over instructions, and Annotate end to end on the `pie` replay
// fixture (tests/scenario/fixtures/pie: hot.c, its binary in the fixture
// build-id cache), whose numbers are perf 6.1's (expected-perf-annotate.txt
// there).
#include "report/annotate.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "base/mapped_file.h"
#include "perfdata/perf_file.h"
#include "symbolize/disassembler.h"
#include "testutil/perf_data_writer.h"

namespace perflens {
namespace {

std::vector<std::string> Texts(const std::vector<Instruction>& code) {
  std::vector<std::string> out;
  for (const Instruction& i : code) out.push_back(fmt::format("{:x}: {} {}", i.dso_vaddr, i.mnemonic, i.operands));
  return out;
}

TEST(AnnotateDisassembly, ObjdumpSpellingOfCapstoneAtt) {
  EXPECT_EQ(ObjdumpX86Operands("$8, %rsp"), "$0x8,%rsp");
  EXPECT_EQ(ObjdumpX86Operands("-8(%rbp), %rbx"), "-0x8(%rbp),%rbx");
  EXPECT_EQ(ObjdumpX86Operands("$0x1d, %rdx"), "$0x1d,%rdx");
  EXPECT_EQ(ObjdumpX86Operands("*(%rax, %rcx, 8)"), "*(%rax,%rcx,8)");
  EXPECT_EQ(ObjdumpX86Operands("(%rax, %rax)"), "(%rax,%rax,1)");
  EXPECT_EQ(ObjdumpX86Operands("0xbf81(%rip), %rax"), "0xbf81(%rip),%rax");
  EXPECT_EQ(ObjdumpX86Mnemonic("pushq", "%rbp"), "push");
  EXPECT_EQ(ObjdumpX86Mnemonic("retq", ""), "ret");
  EXPECT_EQ(ObjdumpX86Mnemonic("movl", "$0x6d,%eax"), "mov");
  EXPECT_EQ(ObjdumpX86Mnemonic("movabsq", "$0x9e36aab97f49659c,%rcx"), "movabs");
  EXPECT_EQ(ObjdumpX86Mnemonic("cmovsl", "%ebx,%esi"), "cmovs");
  EXPECT_EQ(ObjdumpX86Mnemonic("nopl", "(%rax,%rax,1)"),
            "nopl");  // memory only: the suffix stays
  EXPECT_EQ(ObjdumpX86Mnemonic("movb", "$0x2d,-0x40(%rbp)"), "movb");
  EXPECT_EQ(ObjdumpX86Mnemonic("movzbl", "%al,%eax"),
            "movzbl");  // not a size suffix
  EXPECT_EQ(ObjdumpX86Mnemonic("movq", "%xmm0,%rax"), "movq");
  EXPECT_EQ(ObjdumpX86Mnemonic("cvtsi2sdl", "%eax,%xmm1"), "cvtsi2sd");
  EXPECT_EQ(ObjdumpX86Mnemonic("cvtsi2sdl", "0x8(%rsp),%xmm0"), "cvtsi2sdl");
  EXPECT_EQ(ObjdumpX86Mnemonic("rep stosq", "%rax,%es:(%rdi)"), "rep stosq");
}

// hot.c's hash_mix as gcc 12 -O1 compiled it (the pie fixture's binary,
// dso_vaddr 0x1191).
const std::vector<uint8_t> kHashMix = {
    0x48, 0x89, 0xf8, 0x85, 0xf6, 0x7e, 0x2e, 0xb9, 0x00, 0x00, 0x00, 0x00, 0x48, 0xbf, 0x15, 0x7c, 0x4a, 0x7f,
    0xb9, 0x79, 0x37, 0x9e, 0x48, 0x89, 0xc2, 0x48, 0xc1, 0xea, 0x0d, 0x48, 0x31, 0xc2, 0x48, 0x0f, 0xaf, 0xd7,
    0x48, 0x89, 0xd0, 0x48, 0xc1, 0xe0, 0x07, 0x48, 0x31, 0xd0, 0x83, 0xc1, 0x01, 0x39, 0xce, 0x75, 0xe1, 0xc3};

TEST(AnnotateDisassembly, X86_64AsObjdumpPrintsIt) {
  auto d = Disassembler::Create(CodeArch::kX86_64);
  ASSERT_TRUE(d.ok()) << d.error().message;
  const std::vector<Instruction> code = d->Disassemble(kHashMix, 0x1191);
  // objdump -d --no-show-raw-insn of the same bytes (the branch targets'
  // <sym+off> are added by the printer).
  EXPECT_EQ(Texts(code),
            (std::vector<std::string>{
                "1191: mov %rdi,%rax", "1194: test %esi,%esi", "1196: jle 11c6", "1198: mov $0x0,%ecx",
                "119d: movabs $0x9e3779b97f4a7c15,%rdi", "11a7: mov %rax,%rdx", "11aa: shr $0xd,%rdx",
                "11ae: xor %rax,%rdx", "11b1: imul %rdi,%rdx", "11b5: mov %rdx,%rax", "11b8: shl $0x7,%rax",
                "11bc: xor %rdx,%rax", "11bf: add $0x1,%ecx", "11c2: cmp %ecx,%esi", "11c4: jne 11a7", "11c6: ret "}));
  ASSERT_EQ(code.size(), 16u);
  EXPECT_TRUE(code[2].branch);
  EXPECT_EQ(code[2].target, 0x11c6u);
  EXPECT_FALSE(code[0].target.has_value());
}

TEST(AnnotateDisassembly, UndecodableBytesAreBadAndDecodingGoesOn) {
  auto d = Disassembler::Create(CodeArch::kX86_64);
  ASSERT_TRUE(d.ok());
  const std::vector<uint8_t> bytes = {0x55, 0x06, 0xc3};  // push %rbp; (invalid in 64-bit); ret
  EXPECT_EQ(Texts(d->Disassemble(bytes, 0x10)), (std::vector<std::string>{"10: push %rbp", "11: (bad) ", "12: ret "}));
}

TEST(AnnotateDisassembly, Aarch64) {
  auto d = Disassembler::Create(CodeArch::kAarch64);
  ASSERT_TRUE(d.ok()) << d.error().message;
  // stp x29, x30, [sp, #-16]!; mov x29, sp; bl +8; b.ne -8 (to 0x4004); ret
  const std::vector<uint8_t> bytes = {0xfd, 0x7b, 0xbf, 0xa9, 0xfd, 0x03, 0x00, 0x91, 0x02, 0x00,
                                      0x00, 0x94, 0xc1, 0xff, 0xff, 0x54, 0xc0, 0x03, 0x5f, 0xd6};
  const std::vector<Instruction> code = d->Disassemble(bytes, 0x4000);
  ASSERT_EQ(code.size(), 5u);
  EXPECT_EQ(code[0].mnemonic, "stp");
  EXPECT_EQ(code[1].mnemonic, "mov");
  EXPECT_EQ(code[1].operands, "x29, sp");
  EXPECT_EQ(code[2].mnemonic, "bl");
  EXPECT_EQ(code[2].operands, "4010");
  EXPECT_EQ(code[2].target, 0x4010u);
  EXPECT_EQ(code[3].mnemonic, "b.ne");
  EXPECT_EQ(code[3].operands, "4004");
  EXPECT_EQ(code[4].mnemonic, "ret");
  EXPECT_EQ(CodeArchFromName("aarch64"), CodeArch::kAarch64);
  EXPECT_EQ(CodeArchFromName("x86_64"), CodeArch::kX86_64);
  EXPECT_FALSE(CodeArchFromName("riscv64").has_value());
}

// A real aarch64 function: LeafMix.constprop.0 of tests/unwind/testdata/arm64/dwarf_arm64
// (aarch64-linux-gnu-gcc -O2, non-PIE: text PT_LOAD p_offset 0, p_vaddr 0x400000, so
// dso_vaddr 0x400830 is file offset 0x830, 0x44 bytes), against
// `aarch64-linux-gnu-objdump -d --no-show-raw-insn`: the same instructions at the
// same addresses, and the branch targets objdump names (400790 <Scale>, ...). One
// spelling differs: capstone's `movz w2, #0` is objdump's alias `mov w2, #0x0`.
TEST(AnnotateDisassembly, Aarch64FunctionAsObjdumpSplitsIt) {
  std::ifstream in(std::string(PERFLENS_SOURCE_DIR) + "/tests/unwind/testdata/arm64/dwarf_arm64", std::ios::binary);
  std::vector<uint8_t> bytes(0x44);
  in.seekg(0x830);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(in.good());
  auto d = Disassembler::Create(CodeArch::kAarch64);
  ASSERT_TRUE(d.ok());
  const std::vector<Instruction> code = d->Disassemble(bytes, 0x400830);
  std::vector<std::string> mnemonics;
  for (const Instruction& i : code) mnemonics.push_back(fmt::format("{:x} {}", i.dso_vaddr, i.mnemonic));
  EXPECT_EQ(mnemonics, (std::vector<std::string>{"400830 adrp", "400834 mov", "400838 add", "40083c movz", "400840 str",
                                                 "400844 nop", "400848 and", "40084c add", "400850 ldr", "400854 eor",
                                                 "400858 bl", "40085c bl", "400860 mov", "400864 cmp", "400868 b.ne",
                                                 "40086c ldr", "400870 ret"}));
  ASSERT_EQ(code.size(), 17u);
  EXPECT_EQ(code[0].target, 0x420000u);  // adrp x3, 420000
  EXPECT_FALSE(code[0].branch);
  EXPECT_EQ(code[10].operands, "400790");
  EXPECT_EQ(code[10].target, 0x400790u);
  EXPECT_TRUE(code[10].branch);
  EXPECT_EQ(code[14].operands, "400848");
  EXPECT_EQ(code[8].operands, "x0, [x3, x0, lsl #3]");
}

// End to end on aarch64: a synthetic recording whose HEADER_ARCH is "aarch64" (this
// x86_64 machine cannot record one), the real dwarf_arm64 mapped as the unwinding test
// maps it (MMAP2 0x400000, pgoff 0), and 8 samples in LeafMix.constprop.0: 3 at
// 0x400848 (and), 1 at 0x40084e (inside `add` at 0x40084c: perf's calc_percent gives
// it to that instruction) and 4 at 0x400868 (b.ne). objdump's layout: "addr:", a tab,
// the mnemonic, a tab, the operands (perf expands the tabs from the line's column 0).
TEST(AnnotateFixture, Aarch64RecordingIsDisassembledAsAarch64) {
  const std::string binary = std::string(PERFLENS_SOURCE_DIR) + "/tests/unwind/testdata/arm64/dwarf_arm64";
  testutil::PerfDataWriter w;
  EventAttr attr;
  attr.type = 1;  // PERF_TYPE_SOFTWARE cpu-clock
  attr.size = 128;
  attr.sample_type = kSampleIp | kSampleTid | kSamplePeriod;
  attr.sample_period = 1000;
  w.AddAttr(attr);
  w.AddFeature(kFeatArch, w.FeatureString("aarch64"));
  constexpr uint32_t kPid = 4242;
  w.Comm(kPid, kPid, "dwarf_arm64");
  testutil::PerfDataWriter::Mmap2Fields m;
  m.pid = m.tid = kPid;
  m.start = 0x400000;
  m.len = 0x1000;
  m.filename = binary;
  w.Mmap2(m);
  for (uint64_t ip : {0x400848, 0x400848, 0x400848, 0x40084e, 0x400868, 0x400868, 0x400868, 0x400868}) {
    testutil::SampleFields sf;
    sf.pid = sf.tid = kPid;
    sf.period = 1000;
    sf.ip = ip;
    w.Sample(0, sf);
  }
  auto file = PerfFile::FromBytes(MappedFile::FromBuffer(w.Finish()));
  ASSERT_TRUE(file.ok()) << file.error().message;
  AnnotateOptions o;
  o.symbolize.buildid_dir = "/nonexistent";
  o.symbol = "LeafMix.constprop.0";
  auto a = Annotate::Create(file->get(), o);
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE((*a)->Process().ok());
  const std::vector<const AnnotatedSymbol*> selected = (*a)->Selected();
  ASSERT_EQ(selected.size(), 1u);
  std::string out;
  Status st = (*a)->Print(*selected[0], &out);
  ASSERT_TRUE(st.ok()) << st.error().message;
  for (const char* line :
       {" Percent |\tSource code & Disassembly of dwarf_arm64 for cpu-clock:HG (8 samples, percent: local period)\n",
        "         : 5      0000000000400830 <LeafMix.constprop.0>:\n", "    0.00 :   400830: adrp    x3, 420000 <",
        "   37.50 :   400848: and     x0, x2, #0x1ff\n", "   12.50 :   40084c: add     w2, w2, #1\n",
        "    0.00 :   400858: bl      400790 <Scale>\n",
        "   50.00 :   400868: b.ne    400848 <LeafMix.constprop.0+0x18>\n", "    0.00 :   400870: ret\n"})
    EXPECT_NE(out.find(line), std::string::npos) << line << "in\n" << out;
}

// perf's calc_percent: a sample inside an instruction (not at its first byte)
// is that instruction's; the last one runs to the symbol's end.
TEST(AnnotatePercent, CostsSpanUpToTheNextInstruction) {
  std::vector<Instruction> code(3);
  code[0].dso_vaddr = 0x100, code[1].dso_vaddr = 0x104, code[2].dso_vaddr = 0x10a;
  std::map<uint64_t, AddrCost> by_offset = {{0x0, {1, 10}}, {0x2, {2, 20}}, {0x3, {6, 60}},
                                            {0x4, {3, 30}}, {0xc, {4, 40}}, {0xf, {5, 50}}};
  const std::vector<AddrCost> c = CostsPerInstruction(code, 0x100, 0x10, by_offset);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].nr_samples, 9u);  // 0x3, the first instruction's last byte, included
  EXPECT_EQ(c[0].period, 90u);
  EXPECT_EQ(c[1].period, 30u);
  EXPECT_EQ(c[2].period, 90u);
  const AddrCost total{21, 210};
  EXPECT_DOUBLE_EQ(LocalPeriodPercent(c[0], total), 100.0 * 90 / 210);
  EXPECT_DOUBLE_EQ(LocalPeriodPercent(c[0], AddrCost{}), 0.0);
}

// The pie fixture: perf 6.1's `perf annotate --stdio` gives hash_mix 160
// samples and 13.75 / 16.25 / 35.00 / 19.38 / 15.62 at 11ae / 11b1 / 11b5 /
// 11bc / 11bf.
TEST(AnnotateFixture, PieHashMixAsPerf) {
  const std::string fixtures = std::string(PERFLENS_SOURCE_DIR) + "/tests/scenario/fixtures";
  char tmpl[] = "/tmp/perflens-annotate-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  auto file = PerfFile::Open(fixtures + "/pie/perf.data");
  ASSERT_TRUE(file.ok()) << file.error().message;
  AnnotateOptions o;
  o.symbolize.buildid_dir = fixtures + "/cache";
  o.symbolize.symfs = tmpl;  // nothing of this machine
  auto a = Annotate::Create(file->get(), o);
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_TRUE((*a)->Process().ok());
  const std::vector<const AnnotatedSymbol*> selected = (*a)->Selected();
  ASSERT_EQ(selected.size(), 3u);
  EXPECT_EQ(selected[0]->sym->name, "hash_mix");
  EXPECT_EQ(selected[0]->total.nr_samples, 160u);
  EXPECT_EQ(selected[1]->sym->name, "polynomial");
  EXPECT_EQ(selected[2]->sym->name, "walk_array");
  std::string out;
  Status st = (*a)->Print(*selected[0], &out);
  rmdir(tmpl);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(out.rfind(" Percent |\tSource code & Disassembly of hot for "
                      "cpu-clock:pppH (160 samples, percent: "
                      "local period)\n"
                      "--------------------------------------------------------"
                      "------------------------------------"
                      "------------\n",
                      0),
            0u)
      << out;
  for (const char* line :
       {"    0.00 :   1191:   mov    %rdi,%rax\n", "    0.00 :   1196:   jle    11c6 <hash_mix+0x35>\n",
        "   13.75 :   11ae:   xor    %rax,%rdx\n", "   16.25 :   11b1:   imul   %rdi,%rdx\n",
        "   35.00 :   11b5:   mov    %rdx,%rax\n", "   19.38 :   11bc:   xor    %rdx,%rax\n",
        "   15.62 :   11bf:   add    $0x1,%ecx\n", "    0.00 :   11c6:   ret\n",
        "         : 5    0000000000001191 <hash_mix>:\n"})
    EXPECT_NE(out.find(line), std::string::npos) << line << "in\n" << out;
  // A symbol of no DSO file: the kernel's are refused with a reason.
}

}  // namespace
}  // namespace perflens
