// TarWriter: what it writes, GNU tar reads back — directories, files (from bytes and
// from a descriptor), symlinks, and names and link targets past ustar's 100 bytes
// (pax headers).
#include "base/tar_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace perflens {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class TarWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = "/tmp/perflens-tar-" + std::to_string(getpid()) + "-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }
  std::string dir_;
};

TEST_F(TarWriterTest, GnuTarReadsItBack) {
  const std::string long_dir = "tmp/" + std::string(120, 'd');
  const std::string source = dir_ + "/source";
  std::string big(70000, 'x');
  big[12345] = '\0';
  { std::ofstream(source, std::ios::binary) << big; }

  auto tar = TarWriter::Create(dir_ + "/out.tar");
  ASSERT_TRUE(tar.ok()) << tar.error().message;
  ASSERT_TRUE(tar->AddDirectory("tmp").ok());
  ASSERT_TRUE(tar->AddDirectory(long_dir).ok());
  ASSERT_TRUE(tar->AddFileData(long_dir + "/elf", "hello\n").ok());
  int fd = open(source.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(tar->AddFileFrom("tmp/big", fd, big.size(), source).ok());
  close(fd);
  ASSERT_TRUE(tar->AddSymlink("link", "../../" + long_dir).ok());
  ASSERT_TRUE(tar->Finish().ok());
  EXPECT_EQ(tar->bytes_written() % 512, 0u);
  EXPECT_FALSE(tar->Finish().ok());

  ASSERT_EQ(std::system(("mkdir '" + dir_ + "/x' && tar -xf '" + dir_ + "/out.tar' -C '" + dir_ + "/x'").c_str()), 0);
  EXPECT_EQ(Slurp(dir_ + "/x/" + long_dir + "/elf"), "hello\n");
  EXPECT_EQ(Slurp(dir_ + "/x/tmp/big"), big);
  char target[512] = {};
  ASSERT_GT(readlink((dir_ + "/x/link").c_str(), target, sizeof target - 1), 0);
  EXPECT_EQ(std::string(target), "../../" + long_dir);
}

TEST_F(TarWriterTest, ErrorsAreValues) {
  ASSERT_TRUE(TarWriter::Create(dir_ + "/a.tar").ok());
  auto again = TarWriter::Create(dir_ + "/a.tar");  // exists: not overwritten
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.error().message.find("a.tar"), std::string::npos);

  auto tar = TarWriter::Create(dir_ + "/b.tar");
  ASSERT_TRUE(tar.ok());
  EXPECT_FALSE(tar->AddFileData("", "x").ok());
  EXPECT_FALSE(tar->AddSymlink("l", "").ok());
  // A source shorter than promised.
  const std::string source = dir_ + "/short";
  { std::ofstream(source) << "abc"; }
  int fd = open(source.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  Status st = tar->AddFileFrom("f", fd, 10, source);
  close(fd);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("early"), std::string::npos) << st.error().message;
}

}  // namespace
}  // namespace perflens
