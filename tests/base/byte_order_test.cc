// Loader and ByteCursor: byte order, unaligned loads, and bounds behaviour.
#include "base/byte_order.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace perflens {
namespace {

TEST(LoaderTest, DecodesBothByteOrdersUnaligned) {
  // One leading byte so that every load is unaligned.
  const std::vector<uint8_t> b = {0xee, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08};
  Loader le{false}, be{true};
  EXPECT_EQ(le.U16(b.data() + 1), 0x0201u);
  EXPECT_EQ(be.U16(b.data() + 1), 0x0102u);
  EXPECT_EQ(le.U32(b.data() + 1), 0x04030201u);
  EXPECT_EQ(be.U32(b.data() + 1), 0x01020304u);
  EXPECT_EQ(le.U64(b.data() + 1), 0x0807060504030201u);
  EXPECT_EQ(be.U64(b.data() + 1), 0x0102030405060708u);
  EXPECT_EQ(le.U8(b.data()), 0xeeu);
  const std::vector<uint8_t> neg = {0xff, 0xff, 0xff, 0xfe};
  EXPECT_EQ(be.S32(neg.data()), -2);
}

TEST(ByteCursorTest, ReadsInOrderAndFailsPastTheEnd) {
  const std::vector<uint8_t> b = {1, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 'a', 'b', 0, 'z'};
  ByteCursor c(b.data(), b.size(), Loader{false});
  EXPECT_EQ(c.U16(), 1u);
  EXPECT_EQ(c.U32(), 2u);
  EXPECT_EQ(c.U64(), 3u);
  EXPECT_EQ(c.pos(), 14u);
  EXPECT_EQ(c.remaining(), 4u);
  EXPECT_EQ(c.FixedString(4), "ab");
  EXPECT_FALSE(c.failed());
  EXPECT_EQ(c.U8(), 0u);  // past the end: 0 and failed
  EXPECT_TRUE(c.failed());
  EXPECT_EQ(c.remaining(), 0u);
  EXPECT_EQ(c.U64(), 0u);
  EXPECT_EQ(c.Bytes(1), nullptr);
}

TEST(ByteCursorTest, HugeSkipDoesNotWrap) {
  const std::vector<uint8_t> b(16);
  ByteCursor c(b.data(), b.size(), Loader{false});
  c.Skip(8);
  EXPECT_FALSE(c.Has(SIZE_MAX));
  EXPECT_FALSE(c.Skip(SIZE_MAX - 4));
  EXPECT_TRUE(c.failed());
}

TEST(FitsInTest, OverflowSafe) {
  EXPECT_TRUE(FitsIn(0, 100, 100));
  EXPECT_TRUE(FitsIn(100, 0, 100));
  EXPECT_FALSE(FitsIn(101, 0, 100));
  EXPECT_FALSE(FitsIn(50, 51, 100));
  EXPECT_FALSE(FitsIn(8, UINT64_MAX - 4, 100));  // offset + size would wrap
  EXPECT_FALSE(FitsIn(UINT64_MAX, 2, UINT64_MAX));
}

}  // namespace
}  // namespace perflens
