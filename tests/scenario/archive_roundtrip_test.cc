// `perflens archive` round trip on the replay fixtures (fixtures/README.md): archive a
// committed recording from the fixture cache into a fresh directory, then report on it
// with --buildid-dir ARCHIVE and an empty --symfs and HOME, so that none of the
// original files is reachable: the output must equal the report read from the fixture
// cache. The fixtures' kernel and vdso build-ids are fake (c0ffee00…, fee1dead…), so
// kallsyms and the vdso resolve only through the cache, never this machine's.
// --tar: the tarball, unpacked by GNU tar, is the same tree as the directory.
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "scenario_util.h"

namespace perflens::scenario {
namespace {

std::string FixturesDir() { return ScenarioSourceDir() + "/fixtures"; }
constexpr const char* kKernelBuildId = "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00";

class ArchiveRoundTrip : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    std::string tmpl = "/tmp/perflens-archive-" + std::to_string(getpid()) + "-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    for (const char* sub : {"/home", "/symfs"}) ASSERT_EQ(mkdir((dir_ + sub).c_str(), 0700), 0);
  }
  void TearDown() override { RunShell("rm -rf " + ShellQuote(dir_), "/tmp"); }

  std::string Data() const { return FixturesDir() + "/" + GetParam() + "/perf.data"; }

  // perflens ARGS -i perf.data with only `buildid_dir` and an empty symfs and HOME.
  CommandResult Perflens(const std::string& args, const std::string& buildid_dir) {
    return RunShell("env -u PERF_BUILDID_DIR HOME=" + ShellQuote(dir_ + "/home") + " " +
                        ShellQuote(PerflensBinary()) + " " + args + " -i " + ShellQuote(Data()) +
                        " --buildid-dir " + ShellQuote(buildid_dir) + " --symfs " + ShellQuote(dir_ + "/symfs"),
                    dir_);
  }

  std::string dir_;
};

TEST_P(ArchiveRoundTrip, ReportFromArchiveEqualsReportFromCache) {
  const std::string archive = dir_ + "/archive";
  CommandResult a = Perflens("archive -o " + ShellQuote(archive), FixturesDir() + "/cache");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_NE(a.out.find("perflens report -i " + Data() + " --buildid-dir " + archive), std::string::npos) << a.out;
  if (std::string(GetParam()) == "syscalls") {
    // The kernel's kallsyms, reachable through its .build-id link too.
    struct stat st;
    EXPECT_EQ(stat((archive + "/[kernel.kallsyms]/" + kKernelBuildId + "/kallsyms").c_str(), &st), 0) << a.out;
    EXPECT_EQ(stat((archive + "/.build-id/c0/" + std::string(kKernelBuildId + 2) + "/kallsyms").c_str(), &st), 0);
  }
  if (std::string(GetParam()) == "dlopen") {
    // perf recorded build-ids only for the DSOs that sample ips hit, not for the
    // program and libc seen in its callchains: those are listed, not guessed (and read
    // back unresolved from the fixture cache and from the archive alike).
    EXPECT_NE(a.out.find("/tmp/perflens-fixture/bin/dlopen_main: no build-id recorded"), std::string::npos) << a.out;
  } else {
    EXPECT_EQ(a.out.find("not archived"), std::string::npos) << a.out;
  }

  for (const char* mode : {"report --stdio --no-children -F overhead,sample,period,comm,dso,sym -g none "
                           "--percent-limit 0 -t '|'",
                           "report --stdio -g graph --children", "script"}) {
    CommandResult from_cache = Perflens(mode, FixturesDir() + "/cache");
    CommandResult from_archive = Perflens(mode, archive);
    ASSERT_EQ(from_cache.exit_code, 0) << mode << "\n" << from_cache.err;
    ASSERT_EQ(from_archive.exit_code, 0) << mode << "\n" << from_archive.err;
    EXPECT_GT(from_cache.out.size(), 100u) << mode;
    EXPECT_EQ(from_archive.out, from_cache.out) << mode;
    EXPECT_EQ(from_archive.err, from_cache.err) << mode;
  }

  // The same tree as one tarball: unpacked, it equals the directory (links included).
  const std::string tarball = dir_ + "/archive.tar";
  CommandResult t = Perflens("archive -o " + ShellQuote(tarball), FixturesDir() + "/cache");  // .tar: --tar
  ASSERT_EQ(t.exit_code, 0) << t.err;
  ASSERT_EQ(mkdir((dir_ + "/unpacked").c_str(), 0700), 0);
  CommandResult x = RunShell("tar -xf " + ShellQuote(tarball) + " -C " + ShellQuote(dir_ + "/unpacked"), dir_);
  ASSERT_EQ(x.exit_code, 0) << x.err;
  CommandResult diff = RunShell("diff -r --no-dereference " + ShellQuote(archive) + " " + ShellQuote(dir_ + "/unpacked"), dir_);
  EXPECT_EQ(diff.exit_code, 0) << diff.out << diff.err;
  // A second archive into the same cache merges (everything already there); a
  // non-empty directory that is no cache is refused; an existing tarball is kept.
  CommandResult again = Perflens("archive -o " + ShellQuote(archive), FixturesDir() + "/cache");
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("already in"), std::string::npos) << again.out;
  CommandResult refused = Perflens("archive -o " + ShellQuote(dir_), FixturesDir() + "/cache");
  EXPECT_EQ(refused.exit_code, 1) << refused.out;
  EXPECT_NE(refused.err.find("refusing"), std::string::npos) << refused.err;
  CommandResult tar_again = Perflens("archive --tar -o " + ShellQuote(tarball), FixturesDir() + "/cache");
  EXPECT_EQ(tar_again.exit_code, 1);
}

// syscalls: kernel frames under user ones; vdso: [vdso] frames; dlopen: a dlopen'ed
// library; dwarf_c: --call-graph dwarf, unwound from the archived binaries' CFI.
INSTANTIATE_TEST_SUITE_P(Fixtures, ArchiveRoundTrip, ::testing::Values("syscalls", "vdso", "dlopen", "dwarf_c"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

}  // namespace
}  // namespace perflens::scenario
