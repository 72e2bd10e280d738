// MappedFile::DropPages: the resident pages of a range go (the process's RssFile falls)
// and the bytes stay readable and unchanged (read back from the page cache).
#include "base/mapped_file.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace perflens {
namespace {

// RssFile from /proc/self/status, in KiB; -1 when the kernel does not report it.
long RssFileKb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("RssFile:", 0) == 0) return std::strtol(line.c_str() + 8, nullptr, 10);
  return -1;
}

class DropPagesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/perflens-mapped-XXXXXX";
    int fd = mkstemp(tmpl);
    ASSERT_GE(fd, 0);
    path_ = tmpl;
    bytes_.resize(kSize);
    for (size_t i = 0; i < kSize; ++i) bytes_[i] = static_cast<uint8_t>(i * 7 + i / 4096);
    ASSERT_EQ(write(fd, bytes_.data(), kSize), static_cast<ssize_t>(kSize));
    close(fd);
  }
  void TearDown() override { std::remove(path_.c_str()); }
  static constexpr size_t kSize = 32u << 20;
  std::string path_;
  std::vector<uint8_t> bytes_;
};

TEST_F(DropPagesTest, DropPagesKeepsTheBytesAndGivesBackTheirPages) {
  auto f = MappedFile::Open(path_);
  ASSERT_TRUE(f.ok()) << f.error().message;
  uint64_t sum = 0;
  for (size_t i = 0; i < kSize; i += 512) sum += f->data()[i];  // every page resident
  const long before = RssFileKb();
  // Not page-aligned on purpose: only the whole pages inside go.
  f->DropPages(100, kSize - 100);
  const long after = RssFileKb();
  if (before >= 0) {
    EXPECT_LT(after, before - static_cast<long>(kSize / 1024 / 2)) << before << " KiB -> " << after;
  }
  EXPECT_EQ(std::memcmp(f->data(), bytes_.data(), kSize), 0) << "the bytes read back unchanged";
  uint64_t again = 0;
  for (size_t i = 0; i < kSize; i += 512) again += f->data()[i];
  EXPECT_EQ(again, sum);
  f->DropPages(kSize, 2 * kSize);  // past the end: nothing
  f->DropPages(10, 20);            // no whole page: nothing
  EXPECT_EQ(f->data()[15], bytes_[15]);
}

TEST_F(DropPagesTest, DropPagesOfABufferDoesNothing) {
  MappedFile b = MappedFile::FromBuffer(bytes_);
  b.DropPages(0, kSize);
  EXPECT_EQ(std::memcmp(b.data(), bytes_.data(), kSize), 0);
}

}  // namespace
}  // namespace perflens
