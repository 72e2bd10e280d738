// Untrusted DWARF (issue #13): a debug file named by a recording may be truncated or
// hostile. DwarfIndex / DsoModule must answer what can be read, skip the rest with one
// problem naming the DSO (Symbolizer::LineInfoProblems), and never crash or hang.
// The files are written in assembly here (gas makes the line table from .loc), so that
// each test breaks exactly one thing in otherwise well-formed DWARF 4:
//   main [0x00, 0x40): lines 10, 3, 5, 12 every 16 bytes; `mid` inlined at
//   [0x10, 0x30) (called from bad.c:11), `leaf` inlined into it at [0x20, 0x30)
//   (called from bad.c:4). `other` (32 bytes, line 20) is in no good compile unit.
// (Cycles through DW_AT_abstract_origin / DW_AT_specification are bounded by libdw's
// dwarf_attr_integrate, which follows at most 16 links.)
#include <gtest/gtest.h>

#include <cstring>

#include "elf_test_util.h"
#include "symbolize/dso_module.h"
#include "symbolize/dwarf_index.h"
#include "symbolize/symbolizer.h"

namespace perflens {
namespace {

using testing::TempDir;

struct Spec {
  // The outer inlined call's DW_AT_abstract_origin: "mid" (a named abstract DIE) or
  // "cycle" (A's abstract_origin is B, B's specification is A; neither has a name).
  std::string origin = "mid";
  int nesting = 0;              // lexical blocks around main's inlined calls
  bool sibling_loop = false;    // a DIE in main whose DW_AT_sibling is itself
  bool bogus_ranges = false;    // two more CUs: ranges past the section, high_pc wrapping
  bool good_cu = true;          // without it only the bogus CUs (with bogus_ranges)
  // DIEs inlining `leaf` after the others in main, all with DW_AT_ranges naming one
  // list of as many [0x38, 0x39) entries.
  int shared_ranges = 0;
};

std::string Assembly(const Spec& s) {
  std::string a = R"(
	.text
	.globl main
	.type main, @function
main:
	.file 1 "bad.c"
	.loc 1 10 0
	.rept 16
	nop
	.endr
	.loc 1 3 0
	.rept 16
	nop
	.endr
	.loc 1 5 0
	.rept 16
	nop
	.endr
	.loc 1 12 0
	.rept 16
	nop
	.endr
	.size main, .-main
	.globl other
	.type other, @function
other:
	.loc 1 20 0
	.rept 32
	nop
	.endr
	.size other, .-other

	.section .debug_line,"",@progbits
.Lline0:
	.section .debug_abbrev,"",@progbits
.Labbrev0:
	.uleb128 1, 0x11
	.byte 1
	.uleb128 0x25, 0x08, 0x13, 0x0b, 0x03, 0x08, 0x11, 0x01, 0x12, 0x07, 0x10, 0x17, 0, 0
	.uleb128 2, 0x2e
	.byte 1
	.uleb128 0x03, 0x08, 0x11, 0x01, 0x12, 0x07, 0, 0
	.uleb128 3, 0x1d
	.byte 1
	.uleb128 0x31, 0x13, 0x11, 0x01, 0x12, 0x07, 0x58, 0x0b, 0x59, 0x0b, 0, 0
	.uleb128 4, 0x2e
	.byte 0
	.uleb128 0x31, 0x13, 0x20, 0x0b, 0, 0
	.uleb128 5, 0x2e
	.byte 0
	.uleb128 0x47, 0x13, 0, 0
	.uleb128 6, 0x2e
	.byte 0
	.uleb128 0x03, 0x08, 0x20, 0x0b, 0, 0
	.uleb128 7, 0x11
	.byte 0
	.uleb128 0x03, 0x08, 0x55, 0x17, 0, 0
	.uleb128 8, 0x11
	.byte 0
	.uleb128 0x03, 0x08, 0x11, 0x01, 0x12, 0x07, 0, 0
	.uleb128 9, 0x0b
	.byte 1
	.byte 0, 0
	.uleb128 10, 0x0b
	.byte 0
	.uleb128 0x01, 0x13, 0, 0
	.uleb128 11, 0x1d
	.byte 0
	.uleb128 0x31, 0x13, 0x55, 0x17, 0, 0
	.byte 0

	.section .debug_info,"",@progbits
)";
  if (s.good_cu) {
    a += R"(
.Lcu1:
	.long .Lcu1_end - .Lcu1 - 4
	.value 4
	.long .Labbrev0
	.byte 8
	.uleb128 1
	.asciz "handmade"
	.byte 0x0c
	.asciz "bad.c"
	.quad main
	.quad 0x40
	.long .Lline0
.LA:
	.uleb128 4
	.long .LB - .Lcu1
	.byte 3
.LB:
	.uleb128 5
	.long .LA - .Lcu1
.Lmid:
	.uleb128 6
	.asciz "mid"
	.byte 3
.Lleaf:
	.uleb128 6
	.asciz "leaf"
	.byte 3
	.uleb128 2
	.asciz "main"
	.quad main
	.quad 0x40
)";
    if (s.sibling_loop) a += ".Lloop:\n\t.uleb128 10\n\t.long .Lloop - .Lcu1\n";
    a += "\t.rept " + std::to_string(s.nesting) + "\n\t.uleb128 9\n\t.endr\n";
    a += std::string("\t.uleb128 3\n\t.long ") + (s.origin == "cycle" ? ".LA" : ".Lmid") + R"( - .Lcu1
	.quad main+0x10
	.quad 0x20
	.byte 1
	.byte 11
	.uleb128 3
	.long .Lleaf - .Lcu1
	.quad main+0x20
	.quad 0x10
	.byte 1
	.byte 4
	.byte 0
	.byte 0
)";
    a += "\t.rept " + std::to_string(s.nesting) + "\n\t.byte 0\n\t.endr\n";
    a += "\t.rept " + std::to_string(s.shared_ranges) +
         "\n\t.uleb128 11\n\t.long .Lleaf - .Lcu1\n\t.long .Lshared\n\t.endr\n";
    a += "\t.byte 0\n\t.byte 0\n.Lcu1_end:\n";
  }
  if (s.bogus_ranges) {
    a += R"(
.Lcu2:
	.long .Lcu2_end - .Lcu2 - 4
	.value 4
	.long .Labbrev0
	.byte 8
	.uleb128 7
	.asciz "ranges_past_the_section.c"
	.long 0x10000
.Lcu2_end:
.Lcu3:
	.long .Lcu3_end - .Lcu3 - 4
	.value 4
	.long .Labbrev0
	.byte 8
	.uleb128 8
	.asciz "high_pc_wraps.c"
	.quad other
	.quad 0xfffffffffffffff0
.Lcu3_end:
)";
  }
  a += "\t.section .debug_ranges,\"\",@progbits\n.Lshared:\n\t.rept " + std::to_string(s.shared_ranges) +
       "\n\t.quad 0x38, 0x39\n\t.endr\n\t.quad 0, 0\n";
  return a;
}

// Assembles and links `spec` into dir/name (no libc); "" on failure.
std::string Build(const TempDir& dir, const std::string& name, const Spec& spec) {
  const std::string src = dir / (name + ".s"), out = dir / name;
  testing::WriteFile(src, Assembly(spec));
  std::string log;
  if (!testing::Run("gcc -nostdlib -static -Wl,--build-id=none -e main -o " + out + " " + src + " 2>&1", &log)) {
    ADD_FAILURE() << "cannot build " << name << ":\n" << log;
    return "";
  }
  return out;
}

// Overwrites `bytes` at `offset` of the file.
void Patch(const std::string& path, uint64_t offset, const void* bytes, size_t n) {
  std::string data = testing::ReadFile(path);
  ASSERT_LE(offset + n, data.size());
  std::memcpy(data.data() + offset, bytes, n);
  testing::WriteFile(path, data);
}

struct Loaded {
  std::unique_ptr<Dso> dso;
  std::unique_ptr<Symbolizer> symbolizer;
  const DsoModule* module = nullptr;
  std::map<std::string, uint64_t> syms;  // st_value by name
};

Loaded Load(const std::string& path) {
  Loaded l;
  l.dso = std::make_unique<Dso>(1, path, DsoKind::kUser);
  l.symbolizer = std::make_unique<Symbolizer>(SymbolizeOptions{.buildid_dir = "/nonexistent/perflens-test-cache"}, nullptr);
  l.module = l.symbolizer->Module(*l.dso);
  EXPECT_EQ(l.module->info().status, LoadStatus::kLoaded) << l.module->info().message;
  l.syms = testing::NmValues(path);
  return l;
}

// "name file:line d<depth>" per frame at `sym`+`off`, innermost first.
std::vector<std::string> Frames(const Loaded& l, const std::string& sym, uint64_t off) {
  std::optional<uint64_t> at = l.module->ToFileOffset(l.syms.at(sym) + off);
  EXPECT_TRUE(at.has_value());
  std::vector<std::string> out;
  if (!at) return out;
  for (const SymbolFrame& f : l.module->FramesAt(*at))
    out.push_back(std::string(f.sym->name) + (f.sym->inlined ? " (inlined)" : "") + " " + std::string(f.line.file) +
                  ":" + std::to_string(f.line.line) + " d" + std::to_string(f.inline_depth));
  return out;
}

std::string Srcline(const Loaded& l, const std::string& sym, uint64_t off) {
  return FormatSrcline(l.module->FindSourceLine(*l.module->ToFileOffset(l.syms.at(sym) + off)), false);
}

using Lines = std::vector<std::string>;

// The well-formed file, for the exact answers the broken ones are compared with.
TEST(BadDwarfTest, WellFormedFileReadsInFull) {
  TempDir dir;
  Loaded l = Load(Build(dir, "good", {}));
  EXPECT_EQ(Frames(l, "main", 0x04), (Lines{"main bad.c:10 d0"}));
  EXPECT_EQ(Frames(l, "main", 0x14), (Lines{"mid (inlined) bad.c:3 d1", "main bad.c:11 d0"}));
  EXPECT_EQ(Frames(l, "main", 0x24), (Lines{"leaf (inlined) bad.c:5 d2", "mid (inlined) bad.c:4 d1", "main bad.c:11 d0"}));
  EXPECT_EQ(Srcline(l, "main", 0x34), "bad.c:12");
  EXPECT_EQ(Srcline(l, "other", 0x4), "??:0");  // no compile unit covers it
  EXPECT_EQ(Frames(l, "other", 0x4), (Lines{"other :0 d0"}));
  EXPECT_TRUE(l.symbolizer->LineInfoProblems().empty());
  EXPECT_EQ(l.module->line_info_problem(), "");
}

// .debug_line's unit_length claims more bytes than the section has: no line anywhere,
// the inline tree still gives its frames (their call sites unknown: the file names are
// in the line table), and one problem names the DSO.
TEST(BadDwarfTest, TruncatedLineTable) {
  TempDir dir;
  const std::string path = Build(dir, "truncated_line", {});
  uint64_t offset = 0, size = 0;
  ASSERT_TRUE(testing::ReadelfSection(path, ".debug_line", &offset, &size));
  const uint32_t unit_length = static_cast<uint32_t>(size + 64);
  Patch(path, offset, &unit_length, 4);
  Loaded l = Load(path);
  EXPECT_EQ(Srcline(l, "main", 0x04), "??:0");
  EXPECT_EQ(Srcline(l, "main", 0x34), "??:0");
  EXPECT_EQ(Frames(l, "main", 0x24), (Lines{"leaf (inlined) :0 d2", "mid (inlined) :0 d1", "main :0 d0"}));
  EXPECT_EQ(Frames(l, "main", 0x04), (Lines{"main :0 d0"}));
  EXPECT_FALSE(l.module->line_info_failed());  // the index opened; one CU part is skipped
  const std::string problem = l.module->line_info_problem();
  EXPECT_EQ(problem.rfind(path + ": compile unit at 0xb: line table unreadable (", 0), 0u) << problem;
  const std::vector<std::string> problems = l.symbolizer->LineInfoProblems();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "1 DSO with unreadable DWARF skipped (srclines there print as ??:0): " + problem);
}

// A DW_AT_abstract_origin / DW_AT_specification cycle (A -> B -> A) names no function:
// the lookup ends, the frame is there under perf's name for a nameless one ("??").
TEST(BadDwarfTest, AbstractOriginCycle) {
  TempDir dir;
  Loaded l = Load(Build(dir, "origin_cycle", {.origin = "cycle"}));
  EXPECT_EQ(Frames(l, "main", 0x14), (Lines{"?? (inlined) bad.c:3 d1", "main bad.c:11 d0"}));
  EXPECT_EQ(Frames(l, "main", 0x24), (Lines{"leaf (inlined) bad.c:5 d2", "?? (inlined) bad.c:4 d1", "main bad.c:11 d0"}));
  EXPECT_EQ(Srcline(l, "main", 0x14), "bad.c:3");
  EXPECT_EQ(l.module->line_info_problem(), "");  // well-formed, only unnamed
}

// CUs whose ranges cannot be read (DW_AT_ranges past the section) or are empty (a
// high_pc that wraps) are skipped; the good CU answers as before, addresses of the
// bogus ones give no line and one frame, and the unreadable ranges are one problem.
TEST(BadDwarfTest, BogusCompileUnitRanges) {
  TempDir dir;
  const std::string path = Build(dir, "bogus_ranges", {.bogus_ranges = true});
  Loaded l = Load(path);
  EXPECT_EQ(Frames(l, "main", 0x24), (Lines{"leaf (inlined) bad.c:5 d2", "mid (inlined) bad.c:4 d1", "main bad.c:11 d0"}));
  EXPECT_EQ(Frames(l, "other", 0x4), (Lines{"other :0 d0"}));
  EXPECT_EQ(Srcline(l, "other", 0x4), "??:0");
  ASSERT_NE(l.module->dwarf_index(), nullptr);
  EXPECT_EQ(l.module->dwarf_index()->compile_unit_count(), 1u);
  const std::string problem = l.module->line_info_problem();
  EXPECT_EQ(problem.rfind(path + ": compile unit at 0x", 0), 0u) << problem;
  EXPECT_NE(problem.find(": address ranges unreadable ("), std::string::npos) << problem;
  EXPECT_EQ(l.symbolizer->LineInfoProblems().size(), 1u);

  // With only the bogus CUs there is no line info at all: one problem, naming the DSO.
  const std::string only = Build(dir, "only_bogus_ranges", {.bogus_ranges = true, .good_cu = false});
  Loaded o = Load(only);
  EXPECT_EQ(Frames(o, "main", 0x24), (Lines{"main :0 d0"}));
  EXPECT_TRUE(o.module->line_info_failed());
  EXPECT_EQ(o.module->line_info_error().rfind(only + ": compile unit at 0x", 0), 0u) << o.module->line_info_error();
  const std::vector<std::string> problems = o.symbolizer->LineInfoProblems();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "1 DSO without line info (srclines print as ??:0): " + o.module->line_info_error());
}

// 300 nested lexical blocks (deeper than DwarfIndex reads, 256): the inlined calls
// inside are not read, the function and its lines are.
TEST(BadDwarfTest, DeepNestingIsCut) {
  TempDir dir;
  const std::string path = Build(dir, "deep", {.nesting = 300});
  Loaded l = Load(path);
  EXPECT_EQ(Frames(l, "main", 0x24), (Lines{"main bad.c:5 d0"}));
  EXPECT_EQ(l.module->line_info_problem(), path + ": compile unit at 0xb: DIEs nested deeper than 256 skipped");
  // 200 are read in full.
  Loaded shallow = Load(Build(dir, "shallow", {.nesting = 200}));
  EXPECT_EQ(Frames(shallow, "main", 0x24),
            (Lines{"leaf (inlined) bad.c:5 d2", "mid (inlined) bad.c:4 d1", "main bad.c:11 d0"}));
  EXPECT_EQ(shallow.module->line_info_problem(), "");
}

// A DW_AT_sibling pointing at its own DIE would make the sibling walk loop for ever:
// libdw refuses it, the walk stops there (the DIEs after it in main are not read) and
// the DSO's problem says so.
TEST(BadDwarfTest, SiblingLoopEnds) {
  TempDir dir;
  const std::string path = Build(dir, "sibling_loop", {.sibling_loop = true});
  Loaded l = Load(path);
  EXPECT_EQ(Frames(l, "main", 0x24), (Lines{"main bad.c:5 d0"}));
  const std::string problem = l.module->line_info_problem();
  EXPECT_EQ(problem.rfind(path + ": DIE at 0x", 0), 0u) << problem;
  EXPECT_NE(problem.find(": next sibling unreadable ("), std::string::npos) << problem;
}

// 1000 DIEs naming one list of 1000 ranges: reading stops after as many entries as the
// DWARF has bytes (not 1000 x 1000), the DIEs read before answer, and it is a problem.
TEST(BadDwarfTest, SharedRangeListIsReadBounded) {
  TempDir dir;
  const std::string path = Build(dir, "shared_ranges", {.shared_ranges = 1000});
  Loaded l = Load(path);
  EXPECT_EQ(Frames(l, "main", 0x24), (Lines{"leaf (inlined) bad.c:5 d2", "mid (inlined) bad.c:4 d1", "main bad.c:11 d0"}));
  EXPECT_EQ(Frames(l, "main", 0x38), (Lines{"leaf (inlined) bad.c:12 d1", "main :0 d0"}));
  EXPECT_EQ(l.module->line_info_problem(),
            path + ": compile unit at 0xb: more address ranges than the DWARF has bytes; the rest skipped");
  // 20 x 20 is within the bytes: read in full, no problem.
  Loaded small = Load(Build(dir, "shared_ranges_small", {.shared_ranges = 20}));
  EXPECT_EQ(Frames(small, "main", 0x38), (Lines{"leaf (inlined) bad.c:12 d1", "main :0 d0"}));
  EXPECT_EQ(small.module->line_info_problem(), "");
}

}  // namespace
}  // namespace perflens
