// Dso identity in the Machine: one Dso per (path, build-id), or (path, maj/min/ino) when
// no build-id is known; recorded header build-ids attach to later MMAPs of the same path
// (perf's dsos__findnew_id / dso__set_build_id on the header table).
#include <sys/mman.h>

#include <string>

#include <gtest/gtest.h>

#include "model/machine.h"
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

const std::string kA = "/usr/bin/a", kB = "/usr/lib/libb.so";

TEST(DsoIdentityTest, SamePathDifferentBuildIdsAreTwoDsos) {
  Machine m;
  BuildId id1 = *BuildId::FromHex("1111111111111111111111111111111111111111");
  BuildId id2 = *BuildId::FromHex("2222222222222222222222222222222222222222");
  MmapEvent e1 = Mmap(100, 100, 0x400000, 0x1000, 0, kA);
  e1.build_id = id1;
  MmapEvent e2 = Mmap(200, 200, 0x400000, 0x1000, 0, kA);
  e2.build_id = id2;
  m.ProcessMmap(e1, kMiscUser);
  m.ProcessMmap(e2, kMiscUser);
  const Dso* d1 = m.FindMap(m.FindThread(100), kMiscUser, 0x400000)->dso;
  const Dso* d2 = m.FindMap(m.FindThread(200), kMiscUser, 0x400000)->dso;
  EXPECT_NE(d1, d2);
  EXPECT_EQ(d1->build_id(), id1);
  EXPECT_EQ(d2->build_id(), id2);
  EXPECT_EQ(d1->long_name(), d2->long_name());
  // The same build-id again finds the first one.
  EXPECT_EQ(m.FindOrCreateDso(kA, DsoKind::kUser, id1), d1);
}

TEST(DsoIdentityTest, SamePathInodeIdentity) {
  Machine m;
  MmapEvent e = Mmap(100, 100, 0x400000, 0x1000, 0, kA);
  e.maj = 8;
  e.min = 1;
  e.ino = 5555;
  m.ProcessMmap(e, kMiscUser);
  const Dso* d1 = m.FindMap(m.FindThread(100), kMiscUser, 0x400000)->dso;
  e.pid = e.tid = 200;
  m.ProcessMmap(e, kMiscUser);
  EXPECT_EQ(m.FindMap(m.FindThread(200), kMiscUser, 0x400000)->dso, d1);  // same file
  e.pid = e.tid = 300;
  e.ino = 6666;  // replaced on disk between runs
  m.ProcessMmap(e, kMiscUser);
  EXPECT_NE(m.FindMap(m.FindThread(300), kMiscUser, 0x400000)->dso, d1);
  EXPECT_EQ(m.dsos().size(), 2u);
}

TEST(DsoIdentityTest, HeaderBuildIdsAttachToLaterMmaps) {
  Machine m;
  BuildId id = *BuildId::FromHex("abcdef0123456789abcdef0123456789abcdef01");
  BuildId kid = *BuildId::FromHex("0123456789abcdef0123456789abcdef01234567");
  BuildIdEntry user;
  user.misc = kMiscUser;
  user.build_id = id;
  user.filename = kB;
  BuildIdEntry kernel;
  kernel.misc = kMiscKernel;
  kernel.build_id = kid;
  kernel.filename = "[kernel.kallsyms]";
  m.AddBuildIds({user, kernel});
  ASSERT_EQ(m.dsos().size(), 2u);
  // MMAP2 with a file identity adopts the header Dso (which had none).
  MmapEvent e = Mmap(100, 100, 0x7f0000000000, 0x1000, 0x1000, kB);
  e.ino = 77;
  m.ProcessMmap(e, kMiscUser);
  const Dso* d = m.FindMap(m.FindThread(100), kMiscUser, 0x7f0000000000)->dso;
  EXPECT_EQ(d->build_id(), id);
  EXPECT_EQ(d->ino, 77u);
  // A plain MMAP (no identity) of the same path finds it too.
  MmapEvent plain = Mmap(200, 200, 0x7f0000000000, 0x1000, 0x1000, kB);
  m.ProcessMmap(plain, kMiscUser);
  EXPECT_EQ(m.FindMap(m.FindThread(200), kMiscUser, 0x7f0000000000)->dso, d);
  // The kernel MMAP uses the header's kernel Dso.
  const std::string k = "[kernel.kallsyms]_text";
  m.ProcessMmap(Mmap(kNoPid, 0, 0xffffffff81000000, 0x1000000, 0xffffffff81000000, k), kMiscKernel);
  EXPECT_EQ(m.kernel_dso()->build_id(), kid);
  EXPECT_EQ(m.dsos().size(), 2u);
}

TEST(DsoIdentityTest, ShortNamesAndClassification) {
  EXPECT_EQ(Dso(0, "/usr/lib/x86_64-linux-gnu/libc.so.6", DsoKind::kUser).short_name(), "libc.so.6");
  EXPECT_EQ(Dso(0, "[kernel.kallsyms]", DsoKind::kKernel).short_name(), "[kernel.kallsyms]");
  EXPECT_EQ(Dso(0, "/tmp/perf-77.map", DsoKind::kJitMap).short_name(), "[JIT] tid 77");
  EXPECT_EQ(Dso(0, "a.out", DsoKind::kUser).short_name(), "a.out");
  EXPECT_EQ(ClassifyUserMapName("[vdso]", 0), DsoKind::kVdso);
  EXPECT_EQ(ClassifyUserMapName("//anon", 0), DsoKind::kAnon);
  EXPECT_EQ(ClassifyUserMapName("/dev/zero (deleted)", 0), DsoKind::kAnon);
  EXPECT_EQ(ClassifyUserMapName("/anon_hugepage (deleted)", 0), DsoKind::kAnon);
  EXPECT_EQ(ClassifyUserMapName("/usr/bin/x", MAP_HUGETLB), DsoKind::kAnon);
  EXPECT_EQ(ClassifyUserMapName("[heap]", 0), DsoKind::kAnon);
  EXPECT_EQ(ClassifyUserMapName("[stack:123]", 0), DsoKind::kAnon);
  EXPECT_EQ(ClassifyUserMapName("/SYSV00000000 (deleted)", 0), DsoKind::kAnon);
  EXPECT_EQ(ClassifyUserMapName("[uprobes]", 0), DsoKind::kUnknown);
  EXPECT_EQ(ClassifyUserMapName("/usr/bin/x", 0), DsoKind::kUser);
}

}  // namespace
}  // namespace perflens
