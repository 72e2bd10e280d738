// DsoModule: segments both ways, FramesAt, the lazy libdw handle, and lookups from
// several threads at once compared with a single-threaded Symbolizer.
#include "symbolize/dso_module.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "elf_test_util.h"
#include "symbolize/symbolizer.h"

namespace perflens {
namespace {

using testing::TempDir;

// The numbers of docs/architecture.md's worked example (non-PIE ET_EXEC).
TEST(ElfSegmentsTest, ConvertsBothWaysInsideSegmentsOnly) {
  ElfSegments s({{0x0, 0x400000, 0x800}, {0x1000, 0x401000, 0x2000}, {0x3000, 0x404000, 0x1800}});
  EXPECT_EQ(s.ToFileOffset(0x401530), 0x1530u);
  EXPECT_EQ(s.ToDsoVaddr(0x1530), 0x401530u);
  EXPECT_EQ(s.ToDsoVaddr(0x3900), 0x404900u);
  EXPECT_EQ(s.ToFileOffset(0x403000), std::nullopt);  // the gap between segments
  EXPECT_EQ(s.ToDsoVaddr(0x900), std::nullopt);
  EXPECT_EQ(s.ToDsoVaddr(0x4800), std::nullopt);  // past the last one
  EXPECT_EQ(ElfSegments().ToDsoVaddr(0), std::nullopt);
  // Overlapping (malformed) headers: the first one wins, as in the symbol loader.
  ElfSegments overlap({{0x1000, 0x401000, 0x1000}, {0x1800, 0x501800, 0x1000}});
  EXPECT_EQ(overlap.ToDsoVaddr(0x1900), 0x401900u);
}

TEST(SymbolFramesTest, SpillsPastTheInlineCapacity) {
  Symbol syms[6];
  SymbolFrames f;
  for (uint32_t i = 0; i < 6; ++i) f.push_back({&syms[i], 5 - i});
  ASSERT_EQ(f.size(), 6u);
  for (uint32_t i = 0; i < 6; ++i) {
    EXPECT_EQ(f[i].sym, &syms[i]);
    EXPECT_EQ(f[i].inline_depth, 5 - i);
  }
}

struct NonPie {
  std::string bin, stripped;
  std::map<std::string, uint64_t> nm;  // st_value (dso_vaddr)
};

NonPie BuildNonPie(const TempDir& dir) {
  NonPie p;
  p.bin = dir / "prog";
  p.stripped = dir / "prog.nodebug";
  EXPECT_TRUE(testing::Compile(dir, testing::kCProgram, "c", "-fno-pie -no-pie", p.bin));
  EXPECT_TRUE(testing::Run("objcopy --strip-debug " + p.bin + " " + p.stripped));
  p.nm = testing::NmValues(p.bin);
  return p;
}

TEST(DsoModuleTest, KeepsSegmentsTableAndPaths) {
  TempDir dir;
  NonPie p = BuildNonPie(dir);
  Dso dso(1, p.bin, DsoKind::kUser);
  Symbolizer s({.buildid_dir = dir / "empty-cache"}, nullptr);
  const DsoModule* m = s.Module(dso);
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(m->info().status, LoadStatus::kLoaded) << m->info().message;
  EXPECT_EQ(s.Module(dso), m);  // built once
  EXPECT_EQ(m->symbols_path(), p.bin);
  EXPECT_EQ(m->runtime_path(), p.bin);
  ASSERT_FALSE(m->segments().empty());

  // ET_EXEC: st_value != file offset; the module converts both ways.
  uint64_t main_vaddr = p.nm["main"];
  auto main_offset = m->ToFileOffset(main_vaddr);
  ASSERT_TRUE(main_offset.has_value());
  EXPECT_EQ(*main_offset, testing::VaddrToOffset(testing::ReadelfLoads(p.bin), main_vaddr));
  EXPECT_NE(*main_offset, main_vaddr);
  EXPECT_EQ(m->ToDsoVaddr(*main_offset), main_vaddr);

  SymbolFrames frames = m->FramesAt(*main_offset + 1);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].sym->name, "main");
  EXPECT_EQ(frames[0].inline_depth, 0u);
  EXPECT_EQ(frames[0].sym, s.Find(dso, *main_offset + 1));
  EXPECT_TRUE(m->FramesAt(0xffffffffff00).empty());
}

TEST(DsoModuleTest, OpensDwarfLazilyOnceFromAnyThread) {
  TempDir dir;
  NonPie p = BuildNonPie(dir);
  Dso with_debug(1, p.bin, DsoKind::kUser), without(2, p.stripped, DsoKind::kUser);
  Symbolizer s({.buildid_dir = dir / "empty-cache"}, nullptr);
  const DsoModule* m = s.Module(with_debug);
  Dwarf* seen[4] = {};
  std::vector<std::thread> threads;
  for (Dwarf*& d : seen) threads.emplace_back([&d, m] { d = m->dwarf(); });
  for (auto& t : threads) t.join();
  ASSERT_NE(seen[0], nullptr) << m->dwarf_error();
  for (Dwarf* d : seen) EXPECT_EQ(d, seen[0]);
  EXPECT_EQ(m->dwarf_error(), "");

  const DsoModule* n = s.Module(without);
  ASSERT_EQ(n->info().status, LoadStatus::kLoaded) << n->info().message;
  EXPECT_EQ(n->dwarf(), nullptr);
  EXPECT_NE(n->dwarf_error(), "");

  Dso jit(3, "/no/such/perf-1.map", DsoKind::kJitMap);
  EXPECT_EQ(s.Module(jit)->dwarf(), nullptr);
  EXPECT_EQ(s.Module(jit)->dwarf_error(), "no ELF file");
}

// Several threads load and look up the same Dsos (user ELF, kernel and module through
// one kallsyms, KSYMBOL, missing files) in different orders; every answer must equal
// the single-threaded one, and every thread must see the same module per Dso.
TEST(DsoModuleTest, ConcurrentLookupsMatchSingleThreaded) {
  TempDir dir;
  NonPie p = BuildNonPie(dir);
  std::string pie = dir / "pie";
  ASSERT_TRUE(testing::Compile(dir, testing::kCxxProgram, "c++", "-fPIE -pie", pie));
  testing::WriteFile(dir / "kallsyms",
                     "ffffffff81000000 T _text\n"
                     "ffffffff81000100 T start_kernel\n"
                     "ffffffff81000200 t do_thing\n"
                     "ffffffffc0001000 t xfs_foo\t[xfs]\n"
                     "ffffffffc0001100 t xfs_bar\t[xfs]\n");
  std::vector<std::unique_ptr<Dso>> dsos;
  for (int i = 0; i < 8; ++i) {
    // Several Dsos per file: distinct modules, loaded side by side.
    dsos.push_back(std::make_unique<Dso>(static_cast<int>(dsos.size()), i % 2 ? p.bin : pie, DsoKind::kUser));
  }
  dsos.push_back(std::make_unique<Dso>(static_cast<int>(dsos.size()), "[kernel.kallsyms]", DsoKind::kKernel));
  dsos.push_back(std::make_unique<Dso>(static_cast<int>(dsos.size()), "[xfs]", DsoKind::kKernelModule));
  dsos.push_back(std::make_unique<Dso>(static_cast<int>(dsos.size()), "bpf_prog_1", DsoKind::kKsymbol));
  dsos.back()->ksymbol_symbols.push_back({0xffffffffc0002000, 0xffffffffc0002040, "bpf_prog_1"});
  dsos.push_back(std::make_unique<Dso>(static_cast<int>(dsos.size()), "/no/such/lib.so", DsoKind::kUser));
  dsos.push_back(std::make_unique<Dso>(static_cast<int>(dsos.size()), "//anon", DsoKind::kAnon));

  // Addresses: a spread over each space (file offsets, kernel, module-relative).
  std::vector<uint64_t> addrs;
  for (uint64_t a = 0; a < 0x3000; a += 7) addrs.push_back(a);
  for (uint64_t a = 0xffffffff81000000; a < 0xffffffff81000400; a += 13) addrs.push_back(a);
  for (uint64_t a = 0xffffffffc0001000; a < 0xffffffffc0002100; a += 17) addrs.push_back(a);

  const SymbolizeOptions options{.buildid_dir = dir / "empty-cache", .kallsyms = dir / "kallsyms"};
  auto key = [](const Symbol* sym) { return sym ? std::string(sym->name) + "@" + std::to_string(sym->start) : "-"; };
  std::vector<std::string> want;
  {
    Symbolizer single(options, nullptr);
    for (const auto& d : dsos)
      for (uint64_t a : addrs) want.push_back(key(single.Find(*d, a)));
  }
  size_t resolved = std::count_if(want.begin(), want.end(), [](const std::string& k) { return k != "-"; });
  ASSERT_GT(resolved, addrs.size());  // the test resolves something in several DSOs

  Symbolizer shared(options, nullptr);
  constexpr int kThreads = 4;
  std::atomic<int> ready{0};
  std::vector<std::vector<std::string>> got(kThreads, std::vector<std::string>(want.size()));
  std::vector<std::vector<const DsoModule*>> modules(kThreads, std::vector<const DsoModule*>(dsos.size()));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) {
      }
      // Each thread starts at another Dso, so that loads overlap.
      for (size_t n = 0; n < dsos.size(); ++n) {
        size_t i = (n + t * 3) % dsos.size();
        modules[t][i] = shared.Module(*dsos[i]);
        for (size_t j = 0; j < addrs.size(); ++j) got[t][i * addrs.size() + j] = key(shared.Find(*dsos[i], addrs[j]));
        shared.Problems();  // a snapshot beside the loads
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(got[t], want) << "thread " << t;
    EXPECT_EQ(modules[t], modules[0]) << "thread " << t;
  }
  // Failures are counted once per Dso, however many threads asked.
  auto problems = shared.Problems();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("/no/such/lib.so"), std::string::npos) << problems[0];
}

}  // namespace
}  // namespace perflens
