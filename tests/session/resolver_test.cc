// Resolver: its (address space, ip) cache must never answer for a changed or a
// different address space — after an MMAP, or in a forked child whose Maps has the same
// generation as the parent's but other contents.
#include "session/resolver.h"

#include <sys/mman.h>

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

}  // namespace
}  // namespace perflens
