#include "symbolize/debug_file_finder.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>

#include "elf_test_util.h"

namespace perflens {
namespace {

const BuildId kBid = *BuildId::FromHex("0123456789abcdef0123456789abcdef01234567");

std::vector<std::string> Paths(const std::vector<Candidate>& v) {
  std::vector<std::string> out;
  for (const Candidate& c : v) out.push_back(c.path);
  return out;
}

TEST(DebugFileFinderTest, PerfOrderWithBuildId) {
  FinderOptions o{"", "/cache", "elf"};
  auto c = DebugFileCandidates("/usr/bin/prog", kBid, "prog.debug", o);
  std::vector<std::string> want = {
      "/usr/bin/prog.debug",
      "/usr/bin/.debug/prog.debug",
      "/usr/lib/debug/usr/bin/prog.debug",
      "/cache/.build-id/01/23456789abcdef0123456789abcdef01234567/elf",
      "/cache/.build-id/01/23456789abcdef0123456789abcdef01234567",
      "/cache/usr/bin/prog/0123456789abcdef0123456789abcdef01234567/elf",
      "/cache/.build-id/01/23456789abcdef0123456789abcdef01234567/debug",
      "/usr/lib/debug/usr/bin/prog.debug",
      "/usr/lib/debug/usr/bin/prog",
      "/usr/lib/debug/.build-id/01/23456789abcdef0123456789abcdef01234567.debug",
      "/usr/bin/prog",
      "/usr/bin/.debug/prog",
      "/usr/lib/debug/bin/prog",
  };
  EXPECT_EQ(Paths(c), want);
  EXPECT_EQ(c.front().kind, CandidateKind::kDebuglink);
  EXPECT_EQ(c[10].kind, CandidateKind::kSystemPath);
  EXPECT_STREQ(CandidateKindName(c[3].kind), "build-id cache");
}

TEST(DebugFileFinderTest, NoBuildIdSkipsBuildIdKinds) {
  auto c = DebugFileCandidates("/opt/a/lib.so", BuildId{}, "", {"", "/cache", "elf"});
  for (const Candidate& x : c) {
    EXPECT_NE(x.kind, CandidateKind::kBuildIdCache);
    EXPECT_NE(x.kind, CandidateKind::kBuildIdDebuginfo);
  }
  EXPECT_EQ(Paths(c), (std::vector<std::string>{"/usr/lib/debug/opt/a/lib.so.debug", "/usr/lib/debug/opt/a/lib.so",
                                                "/opt/a/lib.so", "/opt/a/.debug/lib.so"}));
}

TEST(DebugFileFinderTest, SpecialDsoGetsCacheOnly) {
  auto c = DebugFileCandidates("[vdso]", kBid, "", {"", "/cache", "vdso"});
  ASSERT_GE(c.size(), 2u);
  EXPECT_EQ(c[0].path, "/cache/.build-id/01/23456789abcdef0123456789abcdef01234567/vdso");
  EXPECT_EQ(c[1].path, "/cache/[vdso]/0123456789abcdef0123456789abcdef01234567/vdso");
}

TEST(DebugFileFinderTest, SymfsPrefixAndNoEscape) {
  FinderOptions o{"/sfs/", "/cache", "elf"};
  auto c = DebugFileCandidates("/usr/bin/prog", BuildId{}, "", o);
  for (const Candidate& x : c) EXPECT_EQ(x.path.rfind("/sfs/", 0), 0u) << x.path;
  EXPECT_TRUE(DebugFileCandidates("/../../etc/passwd", kBid, "", o).empty());
  EXPECT_TRUE(DebugFileCandidates("/a/../../etc/passwd", BuildId{}, "", o).empty());
  auto d = DebugFileCandidates("/a/./b/../prog", BuildId{}, "../../../etc/passwd", o);
  for (const Candidate& x : d) {
    EXPECT_EQ(x.path.find(".."), std::string::npos) << x.path;
    EXPECT_NE(x.kind, CandidateKind::kDebuglink);
  }
}

TEST(DebugFileFinderTest, SymfsSymlinkEscapeRefused) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir / "usr/bin");
  std::filesystem::create_symlink("/etc/hostname", dir / "usr/bin/prog");
  testing::WriteFile(dir / "usr/bin/inside", "x");
  FinderOptions o{dir.path(), "", "elf"};
  for (const Candidate& c : DebugFileCandidates("/usr/bin/prog", BuildId{}, "", o))
    EXPECT_NE(c.kind, CandidateKind::kSystemPath) << c.path;
  bool found = false;
  for (const Candidate& c : DebugFileCandidates("/usr/bin/inside", BuildId{}, "", o))
    found |= c.kind == CandidateKind::kSystemPath && c.path == dir / "usr/bin/inside";
  EXPECT_TRUE(found);
}

// The vdso and kallsyms lists, in the order the "looked in"/"tried" summaries quote.
TEST(DebugFileFinderTest, VdsoSourcesInOrder) {
  DebugFileQuery q{"[vdso]", kBid, "", "/my/vdso.so", "/proc/self/fd/9"};
  auto c = DebugFileCandidates(VdsoDebugSources(), q, {"", "/cache", "vdso"});
  EXPECT_EQ(Paths(c), (std::vector<std::string>{
                          "/my/vdso.so",
                          "/cache/.build-id/01/23456789abcdef0123456789abcdef01234567/vdso",
                          "/cache/[vdso]/0123456789abcdef0123456789abcdef01234567/vdso",
                          "/cache/.build-id/01/23456789abcdef0123456789abcdef01234567/debug",
                          "/usr/lib/debug/.build-id/01/23456789abcdef0123456789abcdef01234567.debug",
                          "/proc/self/fd/9",
                      }));
  EXPECT_EQ(c.front().kind, CandidateKind::kUserFile);
  EXPECT_EQ(c.back().kind, CandidateKind::kLocalImage);
  // No build-id recorded: only the user's file and the local image.
  q.build_id = BuildId{};
  EXPECT_EQ(Paths(DebugFileCandidates(VdsoDebugSources(), q, {"", "/cache", "vdso"})),
            (std::vector<std::string>{"/my/vdso.so", "/proc/self/fd/9"}));
}

TEST(DebugFileFinderTest, KallsymsSourcesInOrder) {
  DebugFileQuery q{"[kernel.kallsyms]", kBid, "", "", "/proc/kallsyms"};
  EXPECT_EQ(Paths(DebugFileCandidates(KallsymsDebugSources(), q, {"", "/cache", "kallsyms"})),
            (std::vector<std::string>{
                "/cache/[kernel.kallsyms]/0123456789abcdef0123456789abcdef01234567/kallsyms",
                "/cache/.build-id/01/23456789abcdef0123456789abcdef01234567/kallsyms",
                "/cache/[kernel.kallsyms]/0123456789abcdef0123456789abcdef01234567",
                "/proc/kallsyms",
            }));
  q.user_file = "/k/kallsyms";
  EXPECT_EQ(Paths(DebugFileCandidates(UserFileSource(), q, {"", "/cache", "kallsyms"})),
            (std::vector<std::string>{"/k/kallsyms"}));
}

TEST(DebugFileFinderTest, SystemPathSourceIsTheBinaryAlone) {
  auto c = DebugFileCandidates(SystemPathSource(), {"/usr/bin/prog", kBid, "prog.debug", "", ""},
                               {"/sysroot", "/cache", "elf"});
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].path, "/sysroot/usr/bin/prog");
  EXPECT_EQ(c[0].kind, CandidateKind::kSystemPath);
}

// perflens archive writes entries where the sources above read them.
TEST(DebugFileFinderTest, BuildIdCacheEntryIsWhereTheFinderLooks) {
  auto e = BuildIdCacheEntryFor("/usr/bin/../bin/prog", kBid);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->entry_dir, "usr/bin/prog/0123456789abcdef0123456789abcdef01234567");
  EXPECT_EQ(e->link, ".build-id/01/23456789abcdef0123456789abcdef01234567");
  EXPECT_EQ(e->link_target, "../../usr/bin/prog/0123456789abcdef0123456789abcdef01234567");
  auto paths = Paths(DebugFileCandidates("/usr/bin/prog", kBid, "", {"", "/cache", "elf"}));
  EXPECT_NE(std::find(paths.begin(), paths.end(), "/cache/" + e->entry_dir + "/elf"), paths.end());
  EXPECT_NE(std::find(paths.begin(), paths.end(), "/cache/" + e->link + "/elf"), paths.end());
  EXPECT_NE(std::find(paths.begin(), paths.end(), "/cache/" + e->link + "/debug"), paths.end());

  auto k = BuildIdCacheEntryFor("[kernel.kallsyms]", kBid);
  ASSERT_TRUE(k.has_value());
  DebugFileQuery kq{"[kernel.kallsyms]", kBid, "", "", ""};
  EXPECT_EQ(Paths(DebugFileCandidates(KallsymsDebugSources(), kq, {"", "/cache", "kallsyms"})).front(),
            "/cache/" + k->entry_dir + "/kallsyms");
  auto v = BuildIdCacheEntryFor("[vdso]", kBid);
  ASSERT_TRUE(v.has_value());
  DebugFileQuery vq{"[vdso]", kBid, "", "", ""};
  auto vpaths = Paths(DebugFileCandidates(VdsoDebugSources(), vq, {"", "/cache", "vdso"}));
  EXPECT_NE(std::find(vpaths.begin(), vpaths.end(), "/cache/" + v->entry_dir + "/vdso"), vpaths.end());
}

TEST(DebugFileFinderTest, BuildIdCacheEntryRefusesUnsafeNames) {
  for (const char* bad : {"/../../etc/passwd", "/tmp/../../x", "/", "/..", "/.build-id/01/23", "/a/../.build-id",
                          "relative/path", "..", ".", ""})
    EXPECT_FALSE(BuildIdCacheEntryFor(bad, kBid).has_value()) << bad;
  EXPECT_FALSE(BuildIdCacheEntryFor("/usr/bin/prog", BuildId{}).has_value());
  // ".." that stays below "/" is normalized away: the entry stays inside the cache.
  auto e = BuildIdCacheEntryFor("/tmp/x/../../etc/passwd", kBid);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->entry_dir, "etc/passwd/0123456789abcdef0123456789abcdef01234567");
  EXPECT_EQ(e->entry_dir.find(".."), std::string::npos);
}

TEST(DebugFileFinderTest, DefaultBuildIdDir) {
  const char* old_dir = getenv("PERF_BUILDID_DIR");
  std::string saved = old_dir ? old_dir : "";
  setenv("PERF_BUILDID_DIR", "/x/cache", 1);
  EXPECT_EQ(DefaultBuildIdDir(), "/x/cache");
  unsetenv("PERF_BUILDID_DIR");
  if (const char* home = getenv("HOME")) {
    EXPECT_EQ(DefaultBuildIdDir(), std::string(home) + "/.debug");
  }
  if (old_dir) setenv("PERF_BUILDID_DIR", saved.c_str(), 1);
}

// debuginfod is two rows after every local source, emitted only when enabled and with a
// build-id; the paths are descriptions the Symbolizer fetches, never local files.
TEST(DebugFileFinderTest, DebuginfodRowsComeLastAndOnlyWhenEnabled) {
  FinderOptions o{"/sfs", "/cache", "elf"};
  auto off = DebugFileCandidates("/usr/bin/prog", kBid, "", o);
  for (const Candidate& c : off) EXPECT_FALSE(IsRemoteCandidate(c.kind)) << c.path;
  o.debuginfod = true;
  auto on = DebugFileCandidates("/usr/bin/prog", kBid, "", o);
  ASSERT_EQ(on.size(), off.size() + 2);
  EXPECT_EQ(on[on.size() - 2].kind, CandidateKind::kDebuginfodExecutable);
  EXPECT_EQ(on[on.size() - 2].path, "debuginfod executable 0123456789abcdef0123456789abcdef01234567");
  EXPECT_EQ(on.back().kind, CandidateKind::kDebuginfodDebuginfo);
  EXPECT_EQ(on.back().path, "debuginfod debuginfo 0123456789abcdef0123456789abcdef01234567");
  EXPECT_TRUE(IsRemoteCandidate(on.back().kind));
  EXPECT_STREQ(CandidateKindName(on.back().kind), "debuginfod debuginfo");
  // No build-id: nothing to ask a server for.
  for (const Candidate& c : DebugFileCandidates("/usr/bin/prog", BuildId{}, "", o))
    EXPECT_FALSE(IsRemoteCandidate(c.kind)) << c.path;
  // The vdso asks for its image after the local one.
  DebugFileQuery q{"[vdso]", kBid, "", "", "/proc/self/fd/9"};
  auto v = DebugFileCandidates(VdsoDebugSources(), q, {"", "/cache", "vdso", true});
  ASSERT_GE(v.size(), 2u);
  EXPECT_EQ(v[v.size() - 2].kind, CandidateKind::kLocalImage);
  EXPECT_EQ(v.back().kind, CandidateKind::kDebuginfodExecutable);
}

}  // namespace
}  // namespace perflens
