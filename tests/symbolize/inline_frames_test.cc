// Source lines and inline frames (DsoModule::FramesAt / FindSourceLine over DwarfIndex).
// Two kinds of checks:
//  * fixed values on the committed binaries of data/inline/ (source and build.sh beside
//    them), read with `eu-addr2line -a -i -f -e BIN ADDR` and matching what perf 6.1
//    printed for the same code (`perf script -F +srcline` on a --call-graph dwarf
//    recording);
//  * every address of every function of those binaries and of freshly compiled ones
//    (DWARF 4 and 5, C and C++) against eu-addr2line run now: frame count, names,
//    files, lines and columns.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <sstream>
#include <thread>

#include "elf_test_util.h"
#include "symbolize/demangle.h"
#include "symbolize/dso_module.h"
#include "symbolize/dwarf_index.h"
#include "symbolize/symbolizer.h"

namespace perflens {
namespace {

using testing::TempDir;

std::string DataPath(const std::string& name) { return std::string(PERFLENS_SOURCE_DIR) + "/tests/symbolize/data/inline/" + name; }

struct Loaded {
  std::unique_ptr<Dso> dso;
  std::unique_ptr<Symbolizer> symbolizer;
  const DsoModule* module = nullptr;
};

Loaded Load(const std::string& path, bool demangle = true) {
  Loaded l;
  l.dso = std::make_unique<Dso>(1, path, DsoKind::kUser);
  l.symbolizer = std::make_unique<Symbolizer>(
      SymbolizeOptions{.buildid_dir = "/nonexistent/perflens-test-cache", .demangle = demangle}, nullptr);
  l.module = l.symbolizer->Module(*l.dso);
  EXPECT_EQ(l.module->info().status, LoadStatus::kLoaded) << l.module->info().message;
  return l;
}

// "name file:line:col" per frame, innermost first; names get " (inlined)" as perf prints.
std::vector<std::string> Describe(const SymbolFrames& frames) {
  std::vector<std::string> out;
  for (const SymbolFrame& f : frames) {
    out.push_back(std::string(f.sym->name) + (f.sym->inlined ? " (inlined)" : "") + " " + std::string(f.line.file) +
                  ":" + std::to_string(f.line.line) + ":" + std::to_string(f.line.column) + " d" +
                  std::to_string(f.inline_depth));
  }
  return out;
}

SymbolFrames FramesAtVaddr(const DsoModule* m, uint64_t dso_vaddr) {
  std::optional<uint64_t> file_offset = m->ToFileOffset(dso_vaddr);
  EXPECT_TRUE(file_offset.has_value());
  return file_offset ? m->FramesAt(*file_offset) : SymbolFrames{};
}

const std::string kInvokeImpl = "__invoke_impl<unsigned int, main(int, char**)::<lambda(unsigned int)>&, unsigned int>";
const std::string kInvokeR = "__invoke_r<unsigned int, main(int, char**)::<lambda(unsigned int)>&, unsigned int>";
const std::string kMInvoke = "std::_Function_handler<unsigned int (unsigned int), main::{lambda(unsigned int)#1}>::_M_invoke";

TEST(InlineFramesTest, CxxChainThroughStdFunction) {
  Loaded l = Load(DataPath("inline_cxx"));
  EXPECT_EQ(Describe(FramesAtVaddr(l.module, 0x1210)),
            (std::vector<std::string>{
                "mix (inlined) /src/inline/inline_cxx.cc:6:22 d6",
                "step (inlined) /src/inline/inline_cxx.cc:9:38 d5",
                "Acc<unsigned int>::add (inlined) /src/inline/inline_cxx.cc:14:32 d4",
                "operator() (inlined) /src/inline/inline_cxx.cc:23:39 d3",
                kInvokeImpl + " (inlined) /usr/include/c++/12/bits/invoke.h:61:36 d2",
                kInvokeR + " (inlined) /usr/include/c++/12/bits/invoke.h:114:35 d1",
                // DWARF's name for the function: no linkage name, so perf shows it inlined.
                "_M_invoke (inlined) /usr/include/c++/12/bits/std_function.h:290:30 d0",
            }));
  // Directly in _M_invoke: the ELF symbol (binutils renames the DIE to it).
  EXPECT_EQ(Describe(FramesAtVaddr(l.module, 0x121b)),
            (std::vector<std::string>{kMInvoke + " /usr/include/c++/12/bits/std_function.h:292:7 d0"}));
  // A member with a linkage name, inlined into run (whose demangled name is the ELF one).
  EXPECT_EQ(Describe(FramesAtVaddr(l.module, 0x1296)),
            (std::vector<std::string>{
                "std::function<unsigned int (unsigned int)>::operator() (inlined) "
                "/usr/include/c++/12/bits/std_function.h:591:9 d1",
                "run /src/inline/inline_cxx.cc:18:42 d0",
            }));
  EXPECT_EQ(FormatSrcline(l.module->FindSourceLine(*l.module->ToFileOffset(0x1212)), false), "inline_cxx.cc:9");
  EXPECT_EQ(FormatSrcline(l.module->FindSourceLine(*l.module->ToFileOffset(0x1212)), true),
            "/src/inline/inline_cxx.cc:9");
}

TEST(InlineFramesTest, InlineSymbolsAreInternedPerElfSymbolAndName) {
  Loaded l = Load(DataPath("inline_cxx"));
  SymbolFrames a = FramesAtVaddr(l.module, 0x1210), b = FramesAtVaddr(l.module, 0x120d);
  ASSERT_EQ(a.size(), 7u);
  ASSERT_EQ(b.size(), 7u);
  const Symbol* base = l.module->FindSymbol(*l.module->ToFileOffset(0x1210));
  ASSERT_NE(base, nullptr);
  EXPECT_EQ(base->name, kMInvoke);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].sym, b[i].sym) << i;  // one object per (ELF symbol, name)
    EXPECT_EQ(a[i].sym->inlined, 1u);
    EXPECT_EQ(a[i].sym->start, base->start);  // perf prints mix+0x20 from the ELF start
    EXPECT_EQ(a[i].sym->end, base->end);
    EXPECT_GE(a[i].sym->index, l.module->symbols()->size());
  }
  for (size_t i = 0; i + 1 < a.size(); ++i) EXPECT_NE(a[i].sym->index, a[i + 1].sym->index);
  EXPECT_EQ(base->inlined, 0u);
  // The hot path is untouched: FindSymbol still answers the ELF symbol.
  EXPECT_EQ(l.symbolizer->Find(*l.dso, *l.module->ToFileOffset(0x1210)), base);
}

TEST(InlineFramesTest, NoDemangleKeepsLinkageNames) {
  Loaded l = Load(DataPath("inline_cxx"), /*demangle=*/false);
  SymbolFrames f = FramesAtVaddr(l.module, 0x1296);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].sym->name, "_ZNKSt8functionIFjjEEclEj");
  EXPECT_EQ(f[1].sym->name, "_Z3runRKSt8functionIFjjEEj");
  EXPECT_EQ(f[1].sym->inlined, 0u);
}

TEST(InlineFramesTest, CStaticInlineChainDwarf4And5) {
  for (const char* bin : {"inline_c_dwarf5", "inline_c_dwarf4"}) {
    SCOPED_TRACE(bin);
    Loaded l = Load(DataPath(bin));
    // What perf 6.1 printed for this address: leaf/middle (inlined), then outer.
    EXPECT_EQ(Describe(FramesAtVaddr(l.module, 0x1193)), (std::vector<std::string>{
                                                            "leaf (inlined) /src/inline/inline_c.c:5:17 d2",
                                                            "middle (inlined) /src/inline/inline_c.c:8:35 d1",
                                                            "outer /src/inline/inline_c.c:13:41 d0",
                                                        }));
    EXPECT_EQ(Describe(FramesAtVaddr(l.module, 0x1170)),
              (std::vector<std::string>{"outer /src/inline/inline_c.c:13:26 d0"}));
    EXPECT_EQ(Describe(FramesAtVaddr(l.module, 0x105e)),
              (std::vector<std::string>{"main /src/inline/inline_c.c:18:3 d0"}));
    EXPECT_TRUE(l.symbolizer->LineInfoProblems().empty());
  }
}

TEST(InlineFramesTest, WithoutDebugInfoOneFrameNoLineReportedOnce) {
  Loaded l = Load(DataPath("inline_c_nodebug"));
  uint64_t outer = *l.module->ToFileOffset(0x1193);
  SymbolFrames f = l.module->FramesAt(outer);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].sym, l.module->FindSymbol(outer));
  EXPECT_EQ(f[0].sym->name, "outer");
  EXPECT_FALSE(f[0].line.known());
  EXPECT_FALSE(l.module->FindSourceLine(outer).known());
  EXPECT_EQ(FormatSrcline(l.module->FindSourceLine(outer), false), "??:0");
  EXPECT_TRUE(l.module->line_info_failed());
  EXPECT_NE(l.module->line_info_error().find("inline_c_nodebug"), std::string::npos) << l.module->line_info_error();
  for (int i = 0; i < 3; ++i) l.module->FramesAt(outer + i);
  auto problems = l.symbolizer->LineInfoProblems();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].rfind("1 DSO without line info", 0), 0u) << problems[0];
  EXPECT_TRUE(l.symbolizer->Problems().empty());  // the symbol summary is unchanged

  // Before anything asked for lines, nothing is reported.
  Loaded fresh = Load(DataPath("inline_c_nodebug"));
  EXPECT_FALSE(fresh.module->line_info_failed());
  EXPECT_TRUE(fresh.symbolizer->LineInfoProblems().empty());
}

TEST(InlineFramesTest, NonElfModulesNeverOpenDwarf) {
  Symbolizer s({.buildid_dir = "/nonexistent/perflens-test-cache"}, nullptr);
  Dso ksym(2, "bpf_prog_1", DsoKind::kKsymbol);
  ksym.ksymbol_symbols.push_back({0xffffffffc0002000, 0xffffffffc0002040, "bpf_prog_1"});
  const DsoModule* m = s.Module(ksym);
  SymbolFrames f = m->FramesAt(0xffffffffc0002010);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].sym->name, "bpf_prog_1");
  EXPECT_FALSE(m->line_info_failed());  // never asked: no ELF file, no libdw call
}

TEST(FormatSrclineTest, PerfText) {
  EXPECT_EQ(FormatSrcline({"/a/b/c.cc", 12, 3}, false), "c.cc:12");
  EXPECT_EQ(FormatSrcline({"/a/b/c.cc", 12, 3}, true), "/a/b/c.cc:12");
  EXPECT_EQ(FormatSrcline({"c.cc", 0, 0}, false), "c.cc:0");
  EXPECT_EQ(FormatSrcline({}, false), "??:0");
  EXPECT_EQ(FormatSrcline({}, true), "??:0");
}

// ---- Every address against eu-addr2line.

struct A2lFrame {
  std::string name, file;
  uint32_t line = 0, column = 0;
};

// Runs `TOOL -a -i -f` (eu-addr2line, or binutils addr2line: perf 6.1's) on `vaddrs`;
// one record list per address.
std::map<uint64_t, std::vector<A2lFrame>> Addr2line(const std::string& tool, const std::string& bin,
                                                    const std::vector<uint64_t>& vaddrs) {
  std::map<uint64_t, std::vector<A2lFrame>> out;
  std::string args;
  for (uint64_t a : vaddrs) args += fmt::format(" {:#x}", a);
  std::string text;
  // eu-addr2line exits 1 when some address has no line; the output is what counts.
  testing::Run(tool + " -a -i -f -e " + bin + args, &text);
  EXPECT_FALSE(text.empty()) << "needs " << tool;
  std::istringstream in(text);
  std::string name, loc;
  std::vector<A2lFrame>* cur = nullptr;
  while (std::getline(in, name)) {
    if (name.rfind("0x", 0) == 0) {
      cur = &out[std::stoull(name, nullptr, 16)];
      continue;
    }
    if (!cur || !std::getline(in, loc)) break;
    A2lFrame f;
    f.name = name.substr(0, name.find(" inlined at "));
    loc = loc.substr(0, loc.find(" (discriminator "));
    // file:line[:column]; "??:0" when unknown.
    size_t c2 = loc.rfind(':'), c1 = c2 == std::string::npos ? c2 : loc.rfind(':', c2 - 1);
    std::string tail = c1 == std::string::npos ? "" : loc.substr(c1 + 1, c2 - c1 - 1);
    bool has_column = c1 != std::string::npos && !tail.empty() && tail.find_first_not_of("0123456789") == std::string::npos;
    if (has_column) {
      f.file = loc.substr(0, c1);
      f.line = std::stoul(tail);
      f.column = std::stoul(loc.substr(c2 + 1));
    } else if (c2 != std::string::npos) {
      f.file = loc.substr(0, c2);
      f.line = std::stoul("0" + loc.substr(c2 + 1).substr(0, loc.substr(c2 + 1).find_first_not_of("0123456789")));
    }
    if (f.file == "??") f.file.clear();
    cur->push_back(f);
  }
  return out;
}

std::string PerfName(const std::string& a2l_name) {
  std::string d = a2l_name.rfind("_Z", 0) == 0 ? DemangleLikePerf(a2l_name) : "";
  return d.empty() ? a2l_name : d;
}

// Compares every address of the functions that have DWARF; returns how many frames.
size_t CompareAllAddresses(const std::string& bin) {
  Loaded l = Load(bin);
  const DsoModule* m = l.module;
  std::vector<uint64_t> vaddrs;
  for (const Symbol& s : m->symbols()->symbols()) {
    if (s.type != 2 /*STT_FUNC*/ || s.end - s.start > 4096) continue;
    for (uint64_t off = s.start; off < s.end; ++off)
      if (auto v = m->ToDsoVaddr(off)) vaddrs.push_back(*v);
  }
  EXPECT_GT(vaddrs.size(), 100u);
  auto want = Addr2line("eu-addr2line", bin, vaddrs);
  auto binutils = Addr2line("addr2line", bin, vaddrs);
  size_t frames_compared = 0, mismatches = 0, oracles_disagree = 0;
  for (uint64_t v : vaddrs) {
    SymbolFrames got = m->FramesAt(*m->ToFileOffset(v));
    const std::vector<A2lFrame>& w = want[v];
    const std::vector<A2lFrame>& b = binutils[v];
    if (w.size() != b.size()) {
      // eu-addr2line 0.188 and binutils 2.40 see different inline chains where nested
      // DW_AT_ranges have holes (e.g. libstdc++'s _M_realloc_insert at -O2); perf runs
      // binutils, so there the frames and lines must be binutils'.
      ++oracles_disagree;
      bool same = got.size() == b.size();
      for (size_t i = 0; same && i < b.size(); ++i)
        same = got[i].line.file == b[i].file && got[i].line.line == b[i].line;
      if (!same && ++mismatches <= 10)
        ADD_FAILURE() << bin << " at " << std::hex << v << ": " << std::dec << got.size() << " frames, binutils "
                      << b.size();
      continue;
    }
    SourceLine line = m->FindSourceLine(*m->ToFileOffset(v));
    if (got.empty() || w.empty()) {
      ADD_FAILURE() << bin << " at " << std::hex << v << ": no frames (" << got.size() << ", " << w.size() << ")";
      return 0;
    }
    auto fail = [&](const std::string& what) {
      if (++mismatches <= 10) ADD_FAILURE() << bin << " at " << std::hex << v << ": " << what;
    };
    if (w[0].file.empty()) {  // no line info here (crt code, PLT): one frame, no line
      if (got.size() != 1 || got[0].line.known() || line.known()) fail("expected one frame without a line");
      continue;
    }
    if (got.size() != w.size()) {
      fail(fmt::format("{} frames, eu-addr2line {}", got.size(), w.size()));
      continue;
    }
    if (line.file != got[0].line.file || line.line != got[0].line.line) fail("FindSourceLine != innermost frame");
    for (size_t i = 0; i < w.size(); ++i) {
      const SymbolFrame& g = got[i];
      ++frames_compared;
      if (g.line.file != w[i].file || g.line.line != w[i].line || g.line.column != w[i].column)
        fail(fmt::format("frame {}: {}:{}:{} vs {}:{}:{}", i, g.line.file, g.line.line, g.line.column, w[i].file,
                         w[i].line, w[i].column));
      if (g.inline_depth != w.size() - 1 - i) fail(fmt::format("frame {}: depth {}", i, g.inline_depth));
      std::string expect = PerfName(w[i].name);
      // The innermost function binutils names by the ELF symbol (dwarf_index.h): as
      // perf's addr2line does, checked against binutils' own answer.
      const Symbol* elf = m->FindSymbol(*m->ToFileOffset(v));
      bool elf_renamed = i == 0 && g.sym == elf && (w.size() == 1 || PerfName(b[0].name) == elf->name);
      if (g.sym->name != expect && !elf_renamed) fail(fmt::format("frame {}: {} vs {}", i, g.sym->name, expect));
    }
  }
  EXPECT_EQ(mismatches, 0u) << bin;
  EXPECT_LT(oracles_disagree * 20, vaddrs.size()) << bin;  // the exception stays one
  return frames_compared;
}

TEST(InlineFramesTest, EveryAddressMatchesEuAddr2lineCommitted) {
  for (const char* bin : {"inline_cxx", "inline_c_dwarf5", "inline_c_dwarf4"}) {
    SCOPED_TRACE(bin);
    EXPECT_GT(CompareAllAddresses(DataPath(bin)), 50u);
  }
}

// The same on binaries built now by the system compiler (its DWARF 4 and 5, C and C++,
// including the templates and vector code of kCxxProgram).
TEST(InlineFramesTest, EveryAddressMatchesEuAddr2lineFreshBuilds) {
  TempDir dir;
  const std::string cxx = testing::ReadFile(DataPath("inline_cxx.cc"));
  struct Build {
    std::string source, lang, flags, name;
  } builds[] = {
      {cxx, "c++", "-O2 -gdwarf-5", "cxx5"},
      {cxx, "c++", "-O2 -gdwarf-4", "cxx4"},
      {testing::kCxxProgram, "c++", "-O2 -gdwarf-5", "vec5"},
      {testing::ReadFile(DataPath("inline_c.c")), "c", "-O3 -gdwarf-4", "c4"},
  };
  for (const Build& b : builds) {
    SCOPED_TRACE(b.name);
    std::string bin = dir / b.name;
    ASSERT_TRUE(testing::Compile(dir, b.source, b.lang, b.flags, bin));
    EXPECT_GT(CompareAllAddresses(bin), 50u);
  }
}

// Split DWARF (-gsplit-dwarf): the skeleton unit in the binary lists the code ranges and
// holds the line table, the .dwo beside it the inline scopes (libdw finds it by
// DW_AT_comp_dir and checks its DWO id). Debug info does not change the code, so the
// program built without it has the same addresses: each must give the same frames,
// names, lines and columns. Without the .dwo the lines remain, one frame per address.
// binutils 2.40 (perf 6.1's addr2line) reads neither: perf prints ??:0 there.
TEST(InlineFramesTest, SplitDwarfGivesThePlainBuildsFrames) {
  TempDir dir;
  testing::WriteFile(dir / "inl.c", testing::ReadFile(DataPath("inline_c.c")));
  const std::string cc = "cd " + dir.path() + " && cc -O2 -g -Wl,--build-id -o ";
  ASSERT_TRUE(testing::Run(cc + "plain inl.c && " + cc + "split -gsplit-dwarf inl.c"));
  ASSERT_TRUE(std::filesystem::exists(dir / "split.dwo") || std::filesystem::exists(dir / "split-inl.dwo") ||
              std::filesystem::exists(dir / "inl.dwo"))
      << "no .dwo written";
  Loaded plain = Load(dir / "plain");
  Loaded split = Load(dir / "split");
  std::vector<uint64_t> vaddrs;
  for (const Symbol& s : plain.module->symbols()->symbols()) {
    if (s.type != 2 /*STT_FUNC*/ || s.end - s.start > 4096) continue;
    for (uint64_t off = s.start; off < s.end; ++off)
      if (auto v = plain.module->ToDsoVaddr(off)) vaddrs.push_back(*v);
  }
  ASSERT_GT(vaddrs.size(), 100u);
  size_t inlined = 0, with_line = 0;
  for (uint64_t v : vaddrs) {
    const std::vector<std::string> want = Describe(FramesAtVaddr(plain.module, v));
    ASSERT_EQ(Describe(FramesAtVaddr(split.module, v)), want) << std::hex << v;
    inlined += want.size() > 1;
    with_line += FramesAtVaddr(plain.module, v)[0].line.known();
  }
  EXPECT_GT(inlined, 10u) << "the program inlines leaf into middle into outer";
  EXPECT_TRUE(split.symbolizer->LineInfoProblems().empty());

  // The .dwo gone: the skeleton's lines, no inline frames.
  for (const char* dwo : {"split.dwo", "split-inl.dwo", "inl.dwo"}) std::filesystem::remove(dir / dwo);
  Loaded bare = Load(dir / "split");
  size_t lines = 0;
  for (uint64_t v : vaddrs) {
    const SymbolFrames f = FramesAtVaddr(bare.module, v);
    ASSERT_EQ(f.size(), 1u) << std::hex << v;
    lines += f[0].line.known();
  }
  EXPECT_EQ(lines, with_line);
}

// Several threads ask a fresh module for every address at once (so CU reads race); all
// answers equal the single-threaded ones, interned symbols included.
TEST(InlineFramesTest, ConcurrentLookupsMatchSingleThreaded) {
  const std::string bin = DataPath("inline_cxx");
  auto collect = [](const DsoModule* m) {
    std::vector<std::string> out;
    for (uint64_t off = 0x1000; off < 0x1300; ++off)
      for (const std::string& s : Describe(m->FramesAt(off))) out.push_back(std::to_string(off) + " " + s);
    return out;
  };
  Loaded single = Load(bin);
  std::vector<std::string> want = collect(single.module);
  ASSERT_GT(want.size(), 0x300u);

  Loaded shared = Load(bin);
  constexpr int kThreads = 4;
  std::atomic<int> ready{0};
  std::vector<std::vector<std::string>> got(kThreads);
  std::vector<const Symbol*> mix(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) {
      }
      got[t] = collect(shared.module);
      mix[t] = shared.module->FramesAt(0x1210)[0].sym;
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(got[t], want) << "thread " << t;
    EXPECT_EQ(mix[t], mix[0]);
  }
}

}  // namespace
}  // namespace perflens
