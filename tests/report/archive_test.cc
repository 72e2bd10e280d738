// Archive on hostile input: a synthetic perf.data whose MMAP2 file names climb with
// "..", name the archive's own .build-id directory, or lack a build-id, all carrying
// the build-id of a binary in the fixture cache (tests/scenario/fixtures/cache), so the
// Symbolizer loads them. Nothing may be written outside the archive directory, a
// planted symlink in a merged cache must not be followed, and unsafe names are listed
// as not archived.
#include "report/archive.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/mapped_file.h"
#include "perfdata/perf_event.h"
#include "testutil/perf_data_writer.h"

namespace perflens {
namespace {

namespace fs = std::filesystem;
using testutil::PerfDataWriter;
using testutil::SampleFields;

// /tmp/perflens-fixture/bin/hot of the pie fixture, in the fixture cache.
constexpr const char* kHotBuildId = "2b482a6195ca77afbbd9d3654f9e24c39573ed47";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class ArchiveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = "/tmp/perflens-archive-unit-" + std::to_string(getpid()) + "-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    fs::create_directories(dir_ + "/symfs");
    fs::create_directories(dir_ + "/outside");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // One sample in each of `names`, each mapped with hot's build-id (empty names: none).
  std::vector<uint8_t> Recording(const std::vector<std::string>& names, bool with_build_id = true) {
    PerfDataWriter w;
    EventAttr a;
    a.type = 1;
    a.size = 128;
    a.sample_type = kSampleIp | kSampleTid | kSamplePeriod;
    a.sample_period = 1000;
    w.AddAttr(a);
    w.Comm(7, 7, "evil");
    const BuildId bid = *BuildId::FromHex(kHotBuildId);
    uint64_t start = 0x400000;
    for (const std::string& name : names) {
      PerfDataWriter::Mmap2Fields m;
      m.pid = m.tid = 7;
      m.start = start;
      m.len = 0x1000;
      m.pgoff = 0x1000;
      if (with_build_id) m.build_id.assign(bid.bytes.begin(), bid.bytes.begin() + bid.size);
      else m.ino = 42;
      m.filename = name;
      w.Mmap2(m);
      SampleFields s;
      s.pid = s.tid = 7;
      s.period = 1000;
      s.ip = start + 0x140;
      w.Sample(0, s);
      start += 0x100000;
    }
    return w.Finish();
  }

  // The plan of `bytes` read with the fixture cache and an empty symfs.
  std::unique_ptr<Archive> Plan(const std::vector<uint8_t>& bytes) {
    auto file = PerfFile::FromBytes(MappedFile::FromBuffer(bytes));
    EXPECT_TRUE(file.ok());
    file_ = std::move(*file);
    ArchiveOptions o;
    o.symbolize.buildid_dir = std::string(PERFLENS_SOURCE_DIR) + "/tests/scenario/fixtures/cache";
    o.symbolize.symfs = dir_ + "/symfs";
    o.use_threads = false;
    auto a = Archive::Create(file_.get(), o);
    EXPECT_TRUE(a.ok());
    EXPECT_TRUE((*a)->Process().ok());
    return std::move(*a);
  }

  // Every path under dir_ except those under `inside` and the test's own directories.
  std::vector<std::string> WrittenElsewhere(const std::string& inside) {
    std::vector<std::string> out;
    for (auto it = fs::recursive_directory_iterator(dir_); it != fs::recursive_directory_iterator(); ++it) {
      const std::string p = it->path().string();
      if (p == inside || p.rfind(inside + "/", 0) == 0 || p == dir_ + "/symfs" || p == dir_ + "/outside") continue;
      out.push_back(p);
    }
    return out;
  }

  std::string dir_;
  std::unique_ptr<PerfFile> file_;
};

TEST_F(ArchiveTest, HostileNamesStayInsideTheArchive) {
  const std::string hot = Slurp(std::string(PERFLENS_SOURCE_DIR) + "/tests/scenario/fixtures/cache/.build-id/2b/" +
                                std::string(kHotBuildId + 2) + "/elf");
  ASSERT_GT(hot.size(), 1000u);
  auto archive = Plan(Recording({"/tmp/x/../../etc/passwd", "/../../../tmp/escape", "/.build-id/2b/evil",
                                 "/tmp/perflens-fixture/bin/hot"}));
  const ArchivePlan& plan = archive->plan();
  EXPECT_EQ(plan.nr_dsos_hit, 4u);
  // "/etc/passwd" (normalized) and hot itself are archived; the escaping name finds no
  // file at all (the finder gives it no candidates) and the .build-id one is refused.
  ASSERT_EQ(plan.files.size(), 2u);
  EXPECT_EQ(plan.files[0].RelativePath(), std::string("etc/passwd/") + kHotBuildId + "/elf");
  EXPECT_EQ(plan.files[1].RelativePath(), std::string("tmp/perflens-fixture/bin/hot/") + kHotBuildId + "/elf");
  ASSERT_EQ(plan.skipped.size(), 2u);
  EXPECT_EQ(plan.skipped[0].dso, "/../../../tmp/escape");
  EXPECT_EQ(plan.skipped[1].dso, "/.build-id/2b/evil");
  EXPECT_NE(plan.skipped[1].reason.find("cannot be stored safely"), std::string::npos) << plan.skipped[1].reason;

  const std::string out = dir_ + "/archive";
  auto written = archive->WriteTree(out);
  ASSERT_TRUE(written.ok()) << written.error().message;
  ASSERT_EQ(written->size(), 2u);
  EXPECT_EQ((*written)[0].bytes, hot.size());
  EXPECT_EQ(Slurp(out + "/etc/passwd/" + kHotBuildId + "/elf"), hot);
  EXPECT_EQ(Slurp(out + "/.build-id/2b/" + std::string(kHotBuildId + 2) + "/elf"), hot);
  EXPECT_EQ(WrittenElsewhere(out), std::vector<std::string>{});
  EXPECT_TRUE(fs::is_empty(dir_ + "/outside"));
  // Every link stays inside the archive.
  const std::string root = fs::canonical(out).string();
  for (auto it = fs::recursive_directory_iterator(out); it != fs::recursive_directory_iterator(); ++it) {
    if (!it->is_symlink()) continue;
    const std::string target = fs::weakly_canonical(it->path()).string();
    EXPECT_EQ(target.rfind(root + "/", 0), 0u) << it->path() << " -> " << target;
  }

  const std::string summary = FormatArchiveSummary(plan, *written, out, false, "perf.data");
  EXPECT_NE(summary.find("2 files"), std::string::npos) << summary;
  EXPECT_NE(summary.find("2 DSOs hit by samples not archived"), std::string::npos) << summary;
  EXPECT_NE(summary.find("perflens report -i perf.data --buildid-dir " + out), std::string::npos) << summary;
}

TEST_F(ArchiveTest, PlantedSymlinkInAMergedCacheIsNotFollowed) {
  auto archive = Plan(Recording({"/tmp/x/../../etc/passwd"}));
  ASSERT_EQ(archive->plan().files.size(), 1u);
  // A build-id cache (it has .build-id) whose "etc" leads outside.
  const std::string out = dir_ + "/archive";
  fs::create_directories(out + "/.build-id");
  fs::create_directory_symlink(dir_ + "/outside", out + "/etc");
  auto written = archive->WriteTree(out);
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.error().message.find("symlink"), std::string::npos) << written.error().message;
  EXPECT_TRUE(fs::is_empty(dir_ + "/outside"));
}

TEST_F(ArchiveTest, RefusesANonEmptyDirectoryThatIsNoCache) {
  auto archive = Plan(Recording({"/tmp/perflens-fixture/bin/hot"}));
  const std::string out = dir_ + "/archive";
  fs::create_directories(out);
  { std::ofstream(out + "/notes.txt") << "mine\n"; }
  auto written = archive->WriteTree(out);
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.error().message.find("refusing"), std::string::npos) << written.error().message;
  EXPECT_EQ(std::distance(fs::directory_iterator(out), fs::directory_iterator()), 1);
}

TEST_F(ArchiveTest, DsoWithoutBuildIdIsListedNotGuessed) {
  auto archive = Plan(Recording({"/tmp/perflens-fixture/bin/hot"}, /*with_build_id=*/false));
  EXPECT_TRUE(archive->plan().files.empty());
  ASSERT_EQ(archive->plan().skipped.size(), 1u);
  EXPECT_NE(archive->plan().skipped[0].reason.find("no build-id recorded"), std::string::npos);
}

TEST_F(ArchiveTest, TarHoldsTheSameTree) {
  auto archive = Plan(Recording({"/tmp/perflens-fixture/bin/hot", "/tmp/x/../../etc/passwd"}));
  const std::string out = dir_ + "/archive", tar = dir_ + "/archive.tar";
  ASSERT_TRUE(archive->WriteTree(out).ok());
  auto written = archive->WriteTar(tar);
  ASSERT_TRUE(written.ok()) << written.error().message;
  fs::create_directories(dir_ + "/unpacked");
  ASSERT_EQ(std::system(("tar -xf '" + tar + "' -C '" + dir_ + "/unpacked'").c_str()), 0);
  ASSERT_EQ(std::system(("diff -r --no-dereference '" + out + "' '" + dir_ + "/unpacked'").c_str()), 0);
  EXPECT_FALSE(archive->WriteTar(tar).ok());  // never overwrites
}

}  // namespace
}  // namespace perflens
