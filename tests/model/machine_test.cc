// Machine: how MMAP/COMM/FORK/EXIT/KSYMBOL rebuild threads, shared map sets and Dsos,
// checked against perf 6.1's machine.c / thread.c / map.c behaviour. Records are applied
// through the Process* entry points with hand-built events; every test checks exact
// owners, names and addresses.
#include "model/machine.h"

#include <sys/mman.h>

#include <string>

#include <gtest/gtest.h>

#include "perfdata/perf_event.h"

namespace perflens {
namespace {

constexpr uint32_t kNoPid = UINT32_MAX;

MmapEvent Mmap(uint32_t pid, uint32_t tid, uint64_t start, uint64_t len, uint64_t pgoff, const std::string& name,
               uint32_t prot = PROT_READ | PROT_EXEC) {
  MmapEvent e;
  e.pid = pid;
  e.tid = tid;
  e.start = start;
  e.len = len;
  e.pgoff = pgoff;
  e.filename = name;  // callers keep `name` alive for the call
  e.prot = prot;
  e.flags = MAP_PRIVATE;
  e.is_mmap2 = true;
  return e;
}

TaskEvent Task(uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid) {
  TaskEvent e;
  e.pid = pid;
  e.ppid = ppid;
  e.tid = tid;
  e.ptid = ptid;
  return e;
}

CommEvent Comm(uint32_t pid, uint32_t tid, const std::string& comm, bool exec = false) {
  CommEvent e;
  e.pid = pid;
  e.tid = tid;
  e.comm = comm;
  e.exec = exec;
  return e;
}

// The long name of the DSO holding `ip` in `t`'s process, or "" when unmapped.
std::string OwnerName(Machine& m, Thread* t, uint64_t ip) {
  const Map* map = m.FindMap(t, kMiscUser, ip);
  return map && map->dso ? map->dso->long_name() : "";
}

const std::string kA = "/usr/bin/a", kB = "/usr/lib/libb.so", kC = "/usr/lib/libc.so";

TEST(MachineTest, SwapperIsRegisteredAs0Slash0) {
  Machine m("x86_64");
  Thread* idle = m.FindThread(0);
  ASSERT_NE(idle, nullptr);
  EXPECT_EQ(idle->pid(), 0u);
  EXPECT_EQ(idle->comm(), "swapper");
  EXPECT_FALSE(idle->comm_is_placeholder());
}

TEST(MachineTest, NewThreadHasPlaceholderCommUntilARealOne) {
  Machine m;
  Thread* t = m.FindOrCreateThread(42, 43);
  EXPECT_EQ(t->comm(), ":43");
  EXPECT_TRUE(t->comm_is_placeholder());
  EXPECT_EQ(*t->placeholder_name(), ":43");
  EXPECT_EQ(t->first_real_comm(), nullptr);
  m.ProcessComm(Comm(42, 43, "worker"), 100);
  m.ProcessComm(Comm(42, 43, "worker2"), 200);
  EXPECT_EQ(t->comm(), "worker2");
  EXPECT_FALSE(t->comm_is_placeholder());
  ASSERT_NE(t->first_real_comm(), nullptr);
  EXPECT_EQ(*t->first_real_comm(), "worker");
  EXPECT_EQ(*t->placeholder_name(), ":43");  // remembered for comm__override
  // The placeholder is replaced, not kept in the history.
  ASSERT_EQ(t->comms().size(), 2u);
  // The leader was created on the way, with its own placeholder.
  EXPECT_EQ(m.FindThread(42)->comm(), ":42");
}

TEST(MachineTest, CommHistoryAndCommAt) {
  Machine m;
  m.ProcessComm(Comm(7, 7, "sh"), 1000);
  m.ProcessComm(Comm(7, 7, "make", /*exec=*/true), 2000);
  m.ProcessComm(Comm(7, 7, "cc1"), 3000);
  Thread* t = m.FindThread(7);
  ASSERT_EQ(t->comms().size(), 3u);
  EXPECT_TRUE(t->comms()[1].exec);
  EXPECT_FALSE(t->comms()[0].exec);
  EXPECT_EQ(t->CommAt(0), "sh");  // before the first: the first
  EXPECT_EQ(t->CommAt(1000), "sh");
  EXPECT_EQ(t->CommAt(1999), "sh");
  EXPECT_EQ(t->CommAt(2000), "make");
  EXPECT_EQ(t->CommAt(2999), "make");
  EXPECT_EQ(t->CommAt(UINT64_MAX), "cc1");
  EXPECT_EQ(t->comm(), "cc1");
  // Interned: equal names share one pointer across threads.
  m.ProcessComm(Comm(8, 8, "cc1"), 3000);
  EXPECT_EQ(m.FindThread(8)->comm_ptr(), t->comm_ptr());
}

TEST(MachineTest, ThreadsOfOneProcessShareMaps) {
  Machine m;
  Thread* leader = m.FindOrCreateThread(100, 100);
  Thread* worker = m.FindOrCreateThread(100, 101);
  EXPECT_EQ(worker->shared_maps(), leader->shared_maps());
  m.ProcessMmap(Mmap(100, 101, 0x400000, 0x1000, 0, kA), kMiscUser);  // mapped by a worker
  EXPECT_EQ(OwnerName(m, leader, 0x400800), kA);
  EXPECT_EQ(OwnerName(m, worker, 0x400800), kA);
  // A thread FORK (pid == parent pid) shares them too.
  m.ProcessFork(Task(100, 100, 102, 100), 0);
  Thread* t102 = m.FindThread(102);
  EXPECT_EQ(t102->shared_maps(), leader->shared_maps());
  m.ProcessMmap(Mmap(100, 102, 0x500000, 0x1000, 0, kB), kMiscUser);
  EXPECT_EQ(OwnerName(m, leader, 0x500000), kB);
  EXPECT_EQ(OwnerName(m, worker, 0x500000), kB);
}

TEST(MachineTest, ForkOfANewProcessCopiesMaps) {
  Machine m;
  m.ProcessComm(Comm(100, 100, "parent"), 0);
  m.ProcessMmap(Mmap(100, 100, 0x400000, 0x1000, 0, kA), kMiscUser);
  m.ProcessFork(Task(200, 100, 200, 100), 0);
  Thread* parent = m.FindThread(100);
  Thread* child = m.FindThread(200);
  ASSERT_NE(child, nullptr);
  EXPECT_NE(child->shared_maps(), parent->shared_maps());
  EXPECT_EQ(child->pid(), 200u);
  EXPECT_EQ(child->comm(), "parent");  // inherits the parent's comm
  EXPECT_EQ(OwnerName(m, child, 0x400000), kA);
  m.ProcessMmap(Mmap(200, 200, 0x600000, 0x1000, 0, kB), kMiscUser);
  m.ProcessMmap(Mmap(100, 100, 0x700000, 0x1000, 0, kC), kMiscUser);
  EXPECT_EQ(OwnerName(m, child, 0x600000), kB);
  EXPECT_EQ(OwnerName(m, parent, 0x600000), "");
  EXPECT_EQ(OwnerName(m, parent, 0x700000), kC);
  EXPECT_EQ(OwnerName(m, child, 0x700000), "");
  // A child mmap over an inherited range cuts only the child's copy.
  m.ProcessMmap(Mmap(200, 200, 0x400000, 0x1000, 0, kC), kMiscUser);
  EXPECT_EQ(OwnerName(m, child, 0x400000), kC);
  EXPECT_EQ(OwnerName(m, parent, 0x400000), kA);
}

TEST(MachineTest, ForkExecGetsEmptyMaps) {
  Machine m;
  m.ProcessMmap(Mmap(100, 100, 0x400000, 0x1000, 0, kA), kMiscUser);
  m.ProcessFork(Task(300, 100, 300, 100), kMiscForkExec);
  Thread* child = m.FindThread(300);
  EXPECT_EQ(child->maps().size(), 0u);
  EXPECT_EQ(OwnerName(m, child, 0x400000), "");
}

TEST(MachineTest, ForkOfAPlaceholderParentGivesAPlaceholderChild) {
  Machine m;
  m.ProcessFork(Task(500, 400, 500, 400), 0);
  Thread* child = m.FindThread(500);
  EXPECT_EQ(child->comm(), ":500");
  EXPECT_TRUE(child->comm_is_placeholder());
}

TEST(MachineTest, ExitKeepsTheThreadAndALaterForkReplacesIt) {
  Machine m;
  m.ProcessComm(Comm(100, 100, "parent"), 0);
  m.ProcessMmap(Mmap(100, 100, 0x400000, 0x1000, 0, kA), kMiscUser);
  m.ProcessFork(Task(200, 100, 200, 100), 0);
  m.ProcessComm(Comm(200, 200, "old"), 10);
  Thread* old = m.FindThread(200);
  m.ProcessExit(Task(200, 100, 200, 100));
  // perf 6.1: samples after EXIT still find the thread, its comm and maps.
  EXPECT_EQ(m.FindThread(200), old);
  EXPECT_EQ(old->comm(), "old");
  EXPECT_EQ(OwnerName(m, old, 0x400000), kA);
  // The tid is recycled: a new FORK replaces the thread (the old object stays valid).
  m.ProcessMmap(Mmap(100, 100, 0x400000, 0x1000, 0, kB), kMiscUser);
  m.ProcessFork(Task(200, 100, 200, 100), 0);
  Thread* fresh = m.FindThread(200);
  EXPECT_NE(fresh, old);
  EXPECT_EQ(fresh->comm(), "parent");
  EXPECT_EQ(OwnerName(m, fresh, 0x400000), kB);
  EXPECT_EQ(old->comm(), "old");
  EXPECT_EQ(OwnerName(m, old, 0x400000), kA);
}

// FindThread has a direct-mapped cache by tid: tids sharing a slot, and a recycled
// parent dropped by FORK, must still give the live thread.
// perf prints the placeholder of a thread with tid -1 (kernel records, -a) as ":-1".
TEST(MachineTest, PlaceholderCommOfTidMinusOne) {
  Machine m;
  EXPECT_EQ(m.FindOrCreateThread(UINT32_MAX, UINT32_MAX)->comm(), ":-1");
  EXPECT_EQ(m.FindOrCreateThread(42, 42)->comm(), ":42");
}

TEST(MachineTest, ThreadLookupCacheFollowsTheLiveTable) {
  Machine m;
  Thread* a = m.FindOrCreateThread(300, 300);
  Thread* b = m.FindOrCreateThread(300 + 256, 300 + 256);  // same cache slot as 300
  EXPECT_EQ(m.FindThread(300), a);
  EXPECT_EQ(m.FindThread(300 + 256), b);
  EXPECT_EQ(m.FindThread(300), a);
  EXPECT_EQ(m.FindThread(300 + 512), nullptr);
  // FORK names tid 300 as parent with another pid: perf drops the stale thread.
  m.ProcessFork(Task(301, 400, 301, 300), 0);
  Thread* parent = m.FindThread(300);
  ASSERT_NE(parent, nullptr);
  EXPECT_NE(parent, a);
  EXPECT_EQ(parent->pid(), 400u);
  EXPECT_EQ(m.FindThread(300 + 256), b);
}

TEST(MachineTest, FindOrCreateThreadKeepsAKnownPid) {
  Machine m;
  Thread* t = m.FindOrCreateThread(100, 105);
  // perf's machine__update_thread_pid: a known pid is not changed by a later lookup.
  Thread* again = m.FindOrCreateThread(999, 105);
  EXPECT_EQ(again, t);
  EXPECT_EQ(t->pid(), 100u);
  EXPECT_EQ(t->shared_maps(), m.FindThread(100)->shared_maps());
  EXPECT_EQ(m.FindThread(999), nullptr);  // no leader was created for the wrong pid
}

TEST(MachineTest, FindOrCreateThreadLearnsAnUnknownPid) {
  Machine m;
  m.ProcessMmap(Mmap(100, 100, 0x400000, 0x1000, 0, kA), kMiscUser);
  Thread* t = m.FindOrCreateThread(kNoPid, 105);
  EXPECT_EQ(t->pid(), kNoPid);
  EXPECT_EQ(t->maps().size(), 0u);
  Thread* again = m.FindOrCreateThread(100, 105);
  EXPECT_EQ(again, t);
  EXPECT_EQ(t->pid(), 100u);
  EXPECT_EQ(t->shared_maps(), m.FindThread(100)->shared_maps());  // joins the leader's maps
  EXPECT_EQ(OwnerName(m, t, 0x400000), kA);
  // A leader with an unknown pid learns its own pid and keeps its maps.
  Thread* lone = m.FindOrCreateThread(kNoPid, 300);
  auto maps = lone->shared_maps();
  m.FindOrCreateThread(300, 300);
  EXPECT_EQ(lone->pid(), 300u);
  EXPECT_EQ(lone->shared_maps(), maps);
}

TEST(MachineTest, ExecCommDoesNotClearMaps) {
  Machine m;
  m.ProcessMmap(Mmap(100, 100, 0x400000, 0x1000, 0, kA), kMiscUser);
  m.ProcessComm(Comm(100, 100, "newprog", /*exec=*/true), 50);
  Thread* t = m.FindThread(100);
  EXPECT_EQ(t->comm(), "newprog");
  EXPECT_EQ(OwnerName(m, t, 0x400000), kA);
}

TEST(MachineTest, VdsoGetsPgoffZeroAndVdsoKind) {
  Machine m("x86_64");
  const std::string vdso = "[vdso]";
  m.ProcessMmap(Mmap(100, 100, 0x7ffd00001000, 0x2000, 0x1234, vdso), kMiscUser);
  const Map* map = m.FindMap(m.FindThread(100), kMiscUser, 0x7ffd00001100);
  ASSERT_NE(map, nullptr);
  EXPECT_EQ(map->pgoff, 0u);
  EXPECT_FALSE(map->identity);
  EXPECT_EQ(map->MapIp(0x7ffd00001100), 0x100u);
  EXPECT_EQ(map->dso->kind(), DsoKind::kVdso);
  EXPECT_EQ(map->dso->long_name(), "[vdso]");
  EXPECT_EQ(map->dso->short_name(), "[vdso]");
}

TEST(MachineTest, VdsoBelow4GiBOnX86_64IsVdso32) {
  Machine m("x86_64");
  const std::string vdso = "[vdso]";
  m.ProcessMmap(Mmap(100, 100, 0xf7fc1000, 0x2000, 0, vdso), kMiscUser);
  const Map* map = m.FindMap(m.FindThread(100), kMiscUser, 0xf7fc1000);
  ASSERT_NE(map, nullptr);
  EXPECT_EQ(map->dso->kind(), DsoKind::kVdso32);
  EXPECT_EQ(map->dso->long_name(), "[vdso32]");
  // On a 32-bit recording the same address is the ordinary vdso.
  Machine m32("i686");
  m32.ProcessMmap(Mmap(100, 100, 0xf7fc1000, 0x2000, 0, vdso), kMiscUser);
  EXPECT_EQ(m32.FindMap(m32.FindThread(100), kMiscUser, 0xf7fc1000)->dso->kind(), DsoKind::kVdso);
}

// After `perf inject --jit`: jitted-*.so maps at the JIT's code addresses, then an
// executable map of the runtime's code heap file over them; the injected names stay.
TEST(MachineTest, HeapFileMapKeepsInjectedJittedMaps) {
  Machine m;
  const std::string j1 = "/home/u/.debug/jit/x/jitted-4242-1.so", j2 = "/home/u/.debug/jit/x/jitted-4242-2.so";
  const std::string heap = "/dev/shm/code-heap", lib = "/usr/lib/libfoo.so";
  m.ProcessMmap(Mmap(4242, 4242, 0x7f0000001000, 0x100, 0x40, j1), kMiscUser);
  m.ProcessMmap(Mmap(4242, 4242, 0x7f0000002000, 0x80, 0x40, j2), kMiscUser);
  m.ProcessMmap(Mmap(4242, 4242, 0x7f0000000000, 0x10000, 0x3000, heap), kMiscUser);
  Thread* t = m.FindThread(4242);
  auto name_at = [&](uint64_t ip) {
    const Map* map = m.FindMap(t, kMiscUser, ip);
    return map ? map->dso->long_name() : std::string("<none>");
  };
  EXPECT_EQ(name_at(0x7f0000001010), j1);
  EXPECT_EQ(m.FindMap(t, kMiscUser, 0x7f0000001010)->pgoff, 0x40u);
  EXPECT_EQ(name_at(0x7f00000020ff - 0x80), j2);
  EXPECT_EQ(name_at(0x7f0000000800), heap);  // the heap elsewhere
  EXPECT_EQ(name_at(0x7f0000001100), heap);
  const Map* h = m.FindMap(t, kMiscUser, 0x7f0000003000);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->MapIp(0x7f0000003000), 0x3000u + 0x3000);  // the heap's offsets stay its own
  // A non-executable map (data) or another file does replace them as usual.
  m.ProcessMmap(Mmap(4242, 4242, 0x7f0000002000, 0x1000, 0, lib, PROT_READ), kMiscUser);
  EXPECT_EQ(name_at(0x7f0000002010), lib);
}

TEST(MachineTest, AnonExecutableMemoryIsAJitMap) {
  Machine m;
  const std::string anon = "//anon";
  m.ProcessMmap(Mmap(4242, 4243, 0x7f0000000000, 0x10000, 0x555, anon, PROT_READ | PROT_EXEC), kMiscUser);
  const Map* map = m.FindMap(m.FindThread(4243), kMiscUser, 0x7f0000000123);
  ASSERT_NE(map, nullptr);
  EXPECT_TRUE(map->identity);
  EXPECT_EQ(map->MapIp(0x7f0000000123), 0x7f0000000123u);
  EXPECT_EQ(map->dso->kind(), DsoKind::kJitMap);
  EXPECT_EQ(map->dso->long_name(), "/tmp/perf-4242.map");  // keyed by pid, not tid
  EXPECT_EQ(map->dso->short_name(), "[JIT] tid 4242");
  EXPECT_EQ(map->dso->jit_pid, 4242u);
  // Non-executable anon memory stays //anon.
  m.ProcessMmap(Mmap(4242, 4242, 0x7f1000000000, 0x1000, 0, anon, PROT_READ | PROT_WRITE), kMiscUser);
  const Map* data = m.FindMap(m.FindThread(4242), kMiscUser, 0x7f1000000000);
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(data->dso->kind(), DsoKind::kAnon);
  EXPECT_EQ(data->dso->long_name(), "//anon");
  EXPECT_TRUE(data->identity);
}

// Tools that back .text with huge pages copy it onto anonymous memory mapped over the
// same addresses: the code is still the file's, so the map keeps the file's identity
// (perf 6.1 shows //anon there and no symbols).
TEST(MachineTest, AnonymousTextRemapKeepsTheFilesIdentity) {
  Machine m;
  const std::string prog = "/usr/bin/prog", anon = "//anon", huge = "/anon_hugepage";
  m.ProcessMmap(Mmap(77, 77, 0x400000, 0x400000, 0x1000, prog), kMiscUser);
  m.ProcessMmap(Mmap(77, 77, 0x600000, 0x200000, 0, huge, PROT_READ | PROT_EXEC), kMiscUser);
  const Map* map = m.FindMap(m.FindThread(77), kMiscUser, 0x600123);
  ASSERT_NE(map, nullptr);
  EXPECT_FALSE(map->identity);
  EXPECT_EQ(map->dso->long_name(), prog);
  EXPECT_EQ(map->MapIp(0x600123), 0x1000u + 0x200123u);  // the file offset it had before
  EXPECT_EQ(m.stats().nr_text_remaps, 1u);
  EXPECT_EQ(m.stats().first_text_remap, "pid 77: [0x600000, 0x800000) in /usr/bin/prog");
  // Around it the file's map is as it was.
  EXPECT_EQ(m.FindMap(m.FindThread(77), kMiscUser, 0x400010)->MapIp(0x400010), 0x1010u);

  // Not a remap: anonymous memory sticking out of the file's map, or over a data map.
  m.ProcessMmap(Mmap(77, 77, 0x7f0000, 0x20000, 0, anon, PROT_READ | PROT_EXEC), kMiscUser);
  EXPECT_EQ(m.FindMap(m.FindThread(77), kMiscUser, 0x7f0000)->dso->kind(), DsoKind::kJitMap);
  const std::string data = "/usr/lib/data.bin";
  m.ProcessMmap(Mmap(77, 77, 0x900000, 0x10000, 0, data, PROT_READ), kMiscUser);
  m.ProcessMmap(Mmap(77, 77, 0x900000, 0x1000, 0, anon, PROT_READ | PROT_EXEC), kMiscUser);
  EXPECT_EQ(m.FindMap(m.FindThread(77), kMiscUser, 0x900000)->dso->kind(), DsoKind::kJitMap);
  EXPECT_EQ(m.stats().nr_text_remaps, 1u);
}

TEST(MachineTest, KernelMmapSetsTheAnchor) {
  Machine m("x86_64");
  const std::string k = "[kernel.kallsyms]_text";
  MmapEvent e = Mmap(kNoPid, 0, 0xffffffff81000000, 0x1000000, 0xffffffff81000000, k);
  m.ProcessMmap(e, kMiscKernel);
  EXPECT_EQ(m.kernel_ref_symbol(), "_text");
  EXPECT_EQ(m.kernel_ref_addr(), 0xffffffff81000000u);
  ASSERT_NE(m.kernel_dso(), nullptr);
  EXPECT_EQ(m.kernel_dso()->long_name(), "[kernel.kallsyms]");
  EXPECT_EQ(m.kernel_dso()->kind(), DsoKind::kKernel);
  const Map* map = m.FindMap(nullptr, kMiscKernel, 0xffffffff81234567);
  ASSERT_NE(map, nullptr);
  EXPECT_EQ(map->dso, m.kernel_dso());
  EXPECT_EQ(map->MapIp(0xffffffff81234567), 0xffffffff81234567u);
  // Kernel maps are not visible to user-mode lookups, and vice versa.
  EXPECT_EQ(m.FindMap(m.FindThread(0), kMiscUser, 0xffffffff81234567), nullptr);
  EXPECT_EQ(m.FindMap(nullptr, kMiscHypervisor, 0xffffffff81234567), nullptr);
}

TEST(MachineTest, ModuleMmapIsModuleRelative) {
  Machine m("x86_64");
  const std::string k = "[kernel.kallsyms]_text";
  m.ProcessMmap(Mmap(kNoPid, 0, 0xffffffff81000000, 0x1000000, 0xffffffff81000000, k), kMiscKernel);
  const std::string xfs = "/lib/modules/6.1.0/kernel/fs/xfs/xfs.ko.xz";
  const std::string nft = "/lib/modules/6.1.0/kernel/net/nf-tables.ko";
  m.ProcessMmap(Mmap(kNoPid, 0, 0xffffffffc0a00000, 0x100000, 0, xfs), kMiscKernel);
  m.ProcessMmap(Mmap(kNoPid, 0, 0xffffffffc0b00000, 0x10000, 0, nft), kMiscKernel);
  const Map* map = m.FindMap(nullptr, kMiscKernel, 0xffffffffc0a01234);
  ASSERT_NE(map, nullptr);
  EXPECT_EQ(map->dso->long_name(), xfs);
  EXPECT_EQ(map->dso->short_name(), "[xfs]");
  EXPECT_EQ(map->dso->kind(), DsoKind::kKernelModule);
  EXPECT_EQ(map->MapIp(0xffffffffc0a01234), 0x1234u);
  EXPECT_EQ(m.FindMap(nullptr, kMiscKernel, 0xffffffffc0b00000)->dso->short_name(), "[nf_tables]");
}

TEST(MachineTest, KsymbolRegisterAndUnregister) {
  Machine m("x86_64");
  KsymbolEvent e;
  e.addr = 0xffffffffc0001000;
  e.len = 0x80;
  e.ksym_type = 1;  // BPF
  e.name = "bpf_prog_6deef7357e7b4530";
  m.ProcessKsymbol(e);
  const Map* map = m.FindMap(nullptr, kMiscKernel, 0xffffffffc0001040);
  ASSERT_NE(map, nullptr);
  EXPECT_EQ(map->dso->kind(), DsoKind::kKsymbol);
  EXPECT_EQ(map->dso->long_name(), "bpf_prog_6deef7357e7b4530");
  EXPECT_EQ(map->MapIp(0xffffffffc0001040), 0xffffffffc0001040u);
  ASSERT_EQ(map->dso->ksymbol_symbols.size(), 1u);
  EXPECT_EQ(map->dso->ksymbol_symbols[0].start, 0xffffffffc0001000u);
  EXPECT_EQ(map->dso->ksymbol_symbols[0].end, 0xffffffffc0001080u);
  EXPECT_EQ(m.FindMap(nullptr, kMiscKernel, 0xffffffffc0001080), nullptr);
  e.flags = 1;  // PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER
  m.ProcessKsymbol(e);
  EXPECT_EQ(m.FindMap(nullptr, kMiscKernel, 0xffffffffc0001040), nullptr);
}

TEST(MachineTest, FindMapCacheIsInvalidatedByNewMaps) {
  Machine m;
  m.ProcessMmap(Mmap(100, 100, 0x400000, 0x3000, 0, kA), kMiscUser);
  Thread* t = m.FindThread(100);
  EXPECT_EQ(OwnerName(m, t, 0x401000), kA);  // fills the cache
  m.ProcessMmap(Mmap(100, 100, 0x401000, 0x1000, 0, kB), kMiscUser);
  EXPECT_EQ(OwnerName(m, t, 0x401000), kB);
  EXPECT_EQ(m.FindMap(t, kMiscUser, 0x402000)->MapIp(0x402000), 0x2000u);
}

TEST(MachineTest, GuestMmapsAreCountedNotModelled) {
  Machine m;
  m.ProcessMmap(Mmap(100, 100, 0x400000, 0x1000, 0, kA), kMiscGuestUser);
  EXPECT_EQ(m.stats().nr_guest_records, 1u);
  EXPECT_EQ(m.stats().nr_mmap_events, 1u);
  EXPECT_EQ(m.FindThread(100), nullptr);
}

}  // namespace
}  // namespace perflens
