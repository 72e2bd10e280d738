// BuildId hex round trips and comparisons; Result/Status basics; MappedFile buffers.
#include "base/build_id.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "base/mapped_file.h"
#include "base/result.h"

namespace perflens {
namespace {

TEST(BuildIdTest, HexRoundTrip) {
  auto id = BuildId::FromHex("0108ed02807e834e9b0a58754cb4a2a297c0a9bc");
  ASSERT_TRUE(id.has_value());
  EXPECT_EQ(id->size, 20u);
  EXPECT_EQ(id->bytes[0], 0x01);
  EXPECT_EQ(id->bytes[19], 0xbc);
  EXPECT_EQ(id->ToHex(), "0108ed02807e834e9b0a58754cb4a2a297c0a9bc");
  auto md5 = BuildId::FromHex("00112233445566778899AABBCCDDEEFF");
  ASSERT_TRUE(md5.has_value());
  EXPECT_EQ(md5->size, 16u);
  EXPECT_EQ(md5->ToHex(), "00112233445566778899aabbccddeeff");
  EXPECT_FALSE(BuildId::FromHex("abc").has_value());     // odd length
  EXPECT_FALSE(BuildId::FromHex("zz").has_value());      // not hex
  EXPECT_FALSE(BuildId::FromHex(std::string(42, 'a')).has_value());  // > 20 bytes
  EXPECT_TRUE(BuildId{}.empty());
}

TEST(BuildIdTest, EqualityUsesOnlyTheUsedBytes) {
  const uint8_t raw[20] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
  BuildId a = BuildId::FromBytes(raw, 16);
  BuildId b = BuildId::FromBytes(raw, 16);
  BuildId c = BuildId::FromBytes(raw, 20);
  EXPECT_EQ(a, b);
  EXPECT_FALSE(a == c);
  EXPECT_EQ(c.ToHex().size(), 40u);
}

Result<int> Half(int v) {
  if (v % 2) return Err("{} is odd (at offset {:#x})", v, 16);
  return v / 2;
}

Status HalfTwice(int v) {
  PERFLENS_RETURN_IF_ERROR(Half(v));
  PERFLENS_RETURN_IF_ERROR(Half(v / 2));
  return Status::Ok();
}

// perf's dso__build_id_equal: a 20-byte recorded id matches a shorter note it starts
// with when the rest is zero.
TEST(BuildIdTest, ZeroPaddedIdsMatchShorterNotes) {
  const BuildId md5 = *BuildId::FromHex("b4f1a2a3a4a5a6a7a8a9aaabacadae0c");
  const BuildId padded = *BuildId::FromHex("b4f1a2a3a4a5a6a7a8a9aaabacadae0c00000000");
  EXPECT_TRUE(padded.MatchesNote(md5));
  EXPECT_TRUE(padded.MatchesNote(padded));
  EXPECT_FALSE(md5.MatchesNote(padded));  // only the recorded (20-byte) side is padded
  EXPECT_FALSE(BuildId::FromHex("b4f1a2a3a4a5a6a7a8a9aaabacadae0c00000001")->MatchesNote(md5));
  EXPECT_FALSE(BuildId::FromHex("c4f1a2a3a4a5a6a7a8a9aaabacadae0c00000000")->MatchesNote(md5));
  EXPECT_FALSE(padded.MatchesNote(BuildId{}));
  EXPECT_EQ(padded.Unpadded(), md5);
  EXPECT_EQ(padded.Unpadded().ToHex(), "b4f1a2a3a4a5a6a7a8a9aaabacadae0c");
  const BuildId fast = *BuildId::FromHex("0123456789abcdef");
  const BuildId fast_padded = *BuildId::FromHex("0123456789abcdef000000000000000000000000");
  EXPECT_TRUE(fast_padded.MatchesNote(fast));
  EXPECT_EQ(fast_padded.Unpadded(), fast);
  // A full sha1 id, and ids of other sizes, are their own unpadded form.
  const BuildId sha1 = *BuildId::FromHex("0123456789abcdef0123456789abcdef01234567");
  EXPECT_EQ(sha1.Unpadded(), sha1);
  EXPECT_EQ(md5.Unpadded(), md5);
}

TEST(ResultTest, ValuesErrorsAndPropagation) {
  auto ok = Half(8);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 4);
  auto bad = Half(7);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "7 is odd (at offset 0x10)");
  EXPECT_TRUE(HalfTwice(8).ok());
  Status s = HalfTwice(6);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "3 is odd (at offset 0x10)");
}

TEST(MappedFileTest, BufferAndFile) {
  MappedFile m = MappedFile::FromBuffer({1, 2, 3}, "buf");
  EXPECT_EQ(m.size(), 3u);
  EXPECT_EQ(m.data()[2], 3);
  EXPECT_EQ(m.name(), "buf");
  MappedFile moved = std::move(m);
  EXPECT_EQ(moved.bytes().size(), 3u);
  EXPECT_EQ(moved.data()[0], 1);

  std::string path = ::testing::TempDir() + "/perflens_mapped_file_test.bin";
  FILE* f = fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  fwrite("hello", 1, 5, f);
  fclose(f);
  auto mf = MappedFile::Open(path);
  ASSERT_TRUE(mf.ok()) << mf.error().message;
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(mf->data()), mf->size()), "hello");
  EXPECT_FALSE(MappedFile::Open(path, /*max_size=*/4).ok());
  EXPECT_FALSE(MappedFile::Open(path + ".does-not-exist").ok());
  std::remove(path.c_str());
}

}  // namespace
}  // namespace perflens
