// The Put* helpers against snprintf with the conversion each one stands for, at the
// edges (0, one digit more, extremes, values wider than the width), and TextBuffer
// growth.
#include "report/text_buffer.h"

#include <gtest/gtest.h>

#include <cinttypes>
#include <climits>
#include <cstdio>
#include <string>

namespace perflens {
namespace {

template <typename Fn>
std::string Put(Fn fn) {
  char buf[kMaxNumber + 64];
  memset(buf, '#', sizeof(buf));
  char* end = fn(buf);
  EXPECT_EQ(end[0], '#') << "wrote past the returned end";
  return std::string(buf, end);
}

std::string Printf(const char* format, auto... args) {
  char buf[128];
  int n = snprintf(buf, sizeof(buf), format, args...);
  return std::string(buf, static_cast<size_t>(n));
}

const uint64_t kUnsigned[] = {0,
                              1,
                              9,
                              10,
                              15,
                              16,
                              99,
                              100,
                              12345,
                              99999,
                              100000,
                              999999999,
                              1000000000,
                              0xffffffffULL,
                              0x7f2c6ba6e6bdULL,
                              0xffffffff82255ff7ULL,
                              9999999999999999999ULL,
                              10000000000000000000ULL,
                              UINT64_MAX};

const int64_t kSigned[] = {0, 1, -1, 9, -9, 10, -10, 99, -99, 12345, -12345, 123456, -123456,
                           INT_MAX, INT_MIN, INT64_MAX, INT64_MIN};

TEST(TextBufferTest, DecimalAsPrintf) {
  for (uint64_t v : kUnsigned) {
    EXPECT_EQ(Put([&](char* p) { return PutDec(p, v); }), Printf("%" PRIu64, v)) << v;
    for (int w : {0, 1, 5, 10, 25})
      EXPECT_EQ(Put([&](char* p) { return PutDec(p, v, w); }), Printf("%*" PRIu64, w, v)) << v << " width " << w;
  }
}

TEST(TextBufferTest, SignedAsPrintf) {
  for (int64_t v : kSigned) {
    for (int w : {0, 1, 3, 5, 25}) {
      EXPECT_EQ(Put([&](char* p) { return PutIntRight(p, v, w); }), Printf("%*" PRId64, w, v)) << v << " " << w;
      EXPECT_EQ(Put([&](char* p) { return PutIntLeft(p, v, w); }), Printf("%-*" PRId64, w, v)) << v << " " << w;
      EXPECT_EQ(Put([&](char* p) { return PutIntZeroPad(p, v, w); }), Printf("%0*" PRId64, w, v)) << v << " " << w;
    }
  }
}

TEST(TextBufferTest, HexAsPrintf) {
  for (uint64_t v : kUnsigned) {
    EXPECT_EQ(Put([&](char* p) { return PutHex(p, v); }), Printf("%" PRIx64, v)) << v;
    for (int w : {0, 1, 4, 16, 20})
      EXPECT_EQ(Put([&](char* p) { return PutHex(p, v, w); }), Printf("%*" PRIx64, w, v)) << v << " width " << w;
  }
  for (int shift = 0; shift < 64; ++shift) {
    uint64_t v = 1ULL << shift;
    EXPECT_EQ(Put([&](char* p) { return PutHex(p, v); }), Printf("%" PRIx64, v));
    EXPECT_EQ(Put([&](char* p) { return PutHex(p, v - 1); }), Printf("%" PRIx64, v - 1));
  }
}

TEST(TextBufferTest, StringAsPrintf) {
  for (const char* s : {"", "a", "perflens_worklo", "sixteen_chars_xx", "a name longer than sixteen"}) {
    EXPECT_EQ(Put([&](char* p) { return PutStr(p, s); }), s);
    for (int w : {0, 5, 16})
      EXPECT_EQ(Put([&](char* p) { return PutStrRight(p, s, w); }), Printf("%*s", w, s)) << s << " " << w;
  }
}

// timestamp__scnprintf_usec: "%lu.%06lu" (usec truncated), padded by "%12s".
TEST(TextBufferTest, TimeUsecAsPerf) {
  for (uint64_t ns : {uint64_t{0}, uint64_t{999}, uint64_t{1000}, uint64_t{999999999}, uint64_t{1000000000},
                      uint64_t{3211485638123}, uint64_t{99999999999999}, uint64_t{100000000000000}, UINT64_MAX}) {
    std::string plain = Printf("%" PRIu64 ".%06" PRIu64, ns / 1000000000, ns % 1000000000 / 1000);
    EXPECT_EQ(Put([&](char* p) { return PutTimeUsec(p, ns); }), plain) << ns;
    EXPECT_EQ(Put([&](char* p) { return PutTimeUsec(p, ns, 12); }), Printf("%12s", plain.c_str())) << ns;
  }
}

TEST(TextBufferTest, GrowsKeepingText) {
  TextBuffer b(8);
  b.Append("12345");
  char* p = b.Reserve(100);  // past the capacity: reallocates
  EXPECT_GE(b.capacity(), 105u);
  p = PutStr(p, std::string(100, 'x'));
  b.Commit(p);
  EXPECT_EQ(b.view(), "12345" + std::string(100, 'x'));
  b.clear();
  EXPECT_EQ(b.size(), 0u);
  b.Append("y");
  EXPECT_EQ(b.view(), "y");
}

}  // namespace
}  // namespace perflens
