// Resolver: its (address space, ip) cache must never answer for a changed or a
// different address space — after an MMAP, or in a forked child whose Maps has the same
// generation as the parent's but other contents.
#include "session/resolver.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "perfdata/perf_event.h"

namespace perflens {
namespace {

MmapEvent Mmap(uint32_t pid, uint64_t start, uint64_t len, const std::string& name) {
  MmapEvent e;
  e.pid = e.tid = pid;
  e.start = start;
  e.len = len;
  e.filename = name;  // callers keep `name` alive for the call
  e.prot = PROT_READ | PROT_EXEC;
  e.flags = MAP_PRIVATE;
  e.is_mmap2 = true;
  return e;
}

std::string DsoName(const AddrLocation& al) { return al.dso ? al.dso->long_name() : ""; }

struct ResolverFixture {
  ResolverFixture() : symbolizer(SymbolizeOptions{.buildid_dir = "/nonexistent"}, &machine), resolver(&machine, &symbolizer) {}
  Machine machine;
  Symbolizer symbolizer;
  Resolver resolver;
};

const std::string kA = "/nonexistent/liba.so", kB = "/nonexistent/libb.so", kC = "/nonexistent/libc.so";

TEST(ResolverTest, AnMmapAfterALookupIsSeen) {
  ResolverFixture f;
  Thread* t = f.machine.FindOrCreateThread(100, 100);
  EXPECT_EQ(f.resolver.Resolve(t, kMiscUser, 0x400100).dso, nullptr);
  f.machine.ProcessMmap(Mmap(100, 0x400000, 0x1000, kA), kMiscUser);
  AddrLocation al = f.resolver.Resolve(t, kMiscUser, 0x400100);
  EXPECT_EQ(DsoName(al), kA);
  EXPECT_EQ(al.dso_addr, 0x100u);
  EXPECT_EQ(al.level, '.');
  EXPECT_EQ(DsoName(f.resolver.Resolve(t, kMiscUser, 0x400100)), kA);  // the cached answer
  f.machine.ProcessMmap(Mmap(100, 0x400000, 0x1000, kB), kMiscUser);
  EXPECT_EQ(DsoName(f.resolver.Resolve(t, kMiscUser, 0x400100)), kB);
}

TEST(ResolverTest, ForkedAddressSpacesAtEqualGenerationsStayApart) {
  ResolverFixture f;
  f.machine.ProcessMmap(Mmap(100, 0x400000, 0x1000, kA), kMiscUser);
  TaskEvent fork;
  fork.pid = fork.tid = 200;
  fork.ppid = fork.ptid = 100;
  f.machine.ProcessFork(fork, 0);
  Thread* parent = f.machine.FindThread(100);
  Thread* child = f.machine.FindThread(200);
  ASSERT_NE(child, nullptr);
  // One more MMAP each: both Maps are at the same generation, with different maps.
  f.machine.ProcessMmap(Mmap(100, 0x500000, 0x1000, kB), kMiscUser);
  f.machine.ProcessMmap(Mmap(200, 0x500000, 0x1000, kC), kMiscUser);
  ASSERT_EQ(parent->maps().generation(), child->maps().generation());
  EXPECT_EQ(DsoName(f.resolver.Resolve(parent, kMiscUser, 0x500010)), kB);
  EXPECT_EQ(DsoName(f.resolver.Resolve(child, kMiscUser, 0x500010)), kC);
  EXPECT_EQ(DsoName(f.resolver.Resolve(parent, kMiscUser, 0x500010)), kB);
  EXPECT_EQ(DsoName(f.resolver.Resolve(child, kMiscUser, 0x400010)), kA);
}

TEST(ResolverTest, KernelAndUserModesUseTheirOwnMaps) {
  ResolverFixture f;
  Thread* t = f.machine.FindOrCreateThread(100, 100);
  f.machine.ProcessMmap(Mmap(100, 0x400000, 0x1000, kA), kMiscUser);
  EXPECT_EQ(DsoName(f.resolver.Resolve(t, kMiscUser, 0x400100)), kA);
  AddrLocation k = f.resolver.Resolve(t, kMiscKernel, 0x400100);
  EXPECT_EQ(k.dso, nullptr);
  EXPECT_EQ(k.level, 'k');
  AddrLocation h = f.resolver.Resolve(t, kMiscHypervisor, 0x400100);
  EXPECT_EQ(h.dso, nullptr);
  EXPECT_EQ(h.level, 'H');
}

// The kernel MMAP covers [_text, _etext); perf 6.1 ends the kernel map where the last
// kallsyms symbol ends once loaded, so init text above _etext (start_kernel, in the boot
// CPU's idle chains of every perf record -a) resolves in [kernel.kallsyms]. An ip above
// the last symbol's end (a page past its start) stays in no map, as does one below _text.
TEST(ResolverTest, KernelInitTextAboveTheKernelMmapIsTheKernels) {
  char tmpl[] = "/tmp/perflens-resolver-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string kallsyms = std::string(tmpl) + "/kallsyms";
  std::ofstream(kallsyms) << "ffffffff81000000 T _text\n"
                             "ffffffff81000100 T do_idle\n"
                             "ffffffff81002000 T _etext\n"
                             "ffffffff83000000 T _sinittext\n"
                             "ffffffff83000100 T start_kernel\n"
                             "ffffffff83000400 T x86_64_start_kernel\n"
                             "ffffffffc0001000 t xfs_foo\t[xfs]\n";
  Machine machine("x86_64");
  Symbolizer symbolizer(SymbolizeOptions{.buildid_dir = "/nonexistent", .kallsyms = kallsyms}, &machine);
  Resolver resolver(&machine, &symbolizer);
  const std::string name = "[kernel.kallsyms]_text";
  MmapEvent k = Mmap(UINT32_MAX, 0xffffffff81000000, 0x2000, name);
  k.pgoff = 0xffffffff81000000;
  machine.ProcessMmap(k, kMiscKernel);
  Thread* t = machine.FindOrCreateThread(0, 0);
  auto sym = [&](uint64_t ip) {
    AddrLocation al = resolver.Resolve(t, kMiscKernel, ip);
    return al.sym ? al.sym->name : al.dso ? "(no symbol)" : "(no map)";
  };
  EXPECT_EQ(sym(0xffffffff81000150), "do_idle");
  EXPECT_EQ(sym(0xffffffff83000254), "start_kernel");
  EXPECT_EQ(sym(0xffffffff83000421), "x86_64_start_kernel");
  AddrLocation init = resolver.Resolve(t, kMiscKernel, 0xffffffff83000254);
  EXPECT_EQ(init.dso, machine.kernel_dso());
  EXPECT_EQ(init.level, 'k');
  EXPECT_EQ(sym(0xffffffff83002000), "(no map)") << "past the last symbol's end";
  EXPECT_EQ(sym(0xffffffff80000000), "(no map)") << "below _text";
  EXPECT_EQ(sym(0xffffffffc0001004), "(no map)") << "a module without a map is not the kernel's";
  unlink(kallsyms.c_str());
  rmdir(tmpl);
}

}  // namespace
}  // namespace perflens
