// Text output for the print hot paths (`perf script` prints ~6 bytes per input byte;
// a fmt::format_to per field was most of its time). A printer Reserve()s an upper bound
// for one line, writes through the returned cursor with the Put* helpers below and
// Commit()s the new end: one capacity check per line, no parsing of format strings.
//
// The Put* helpers produce exactly what the printf conversion named in their comment
// does (perf prints with fprintf), e.g. PutHexRight(p, 0x13a0, 16) is "%16lx":
// "            13a0". Each writes at `p` and returns the end of what it wrote; the
// caller has reserved room (kMaxNumber + width covers any number).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>

namespace perflens {

// Longest number a Put* helper writes without padding: "-9223372036854775808", or
// 20 decimal digits of UINT64_MAX.
inline constexpr size_t kMaxNumber = 20;

namespace text_detail {

inline constexpr char kDigitPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

inline int DecimalDigits(uint64_t v) {
  int n = 1;
  for (;;) {
    if (v < 10) return n;
    if (v < 100) return n + 1;
    if (v < 1000) return n + 2;
    if (v < 10000) return n + 3;
    v /= 10000;
    n += 4;
  }
}

inline int HexDigits(uint64_t v) { return v ? (67 - __builtin_clzll(v)) / 4 : 1; }

// Writes the `n` decimal digits of `v` ending at `end`.
inline void WriteDecimal(char* end, uint64_t v) {
  while (v >= 100) {
    const char* d = kDigitPairs + (v % 100) * 2;
    v /= 100;
    *--end = d[1];
    *--end = d[0];
  }
  if (v >= 10) {
    const char* d = kDigitPairs + v * 2;
    *--end = d[1];
    *--end = d[0];
  } else {
    *--end = static_cast<char>('0' + v);
  }
}

inline char* Pad(char* p, size_t width, size_t len, char fill = ' ') {
  if (width > len) {
    memset(p, fill, width - len);
    p += width - len;
  }
  return p;
}

inline uint64_t Magnitude(int64_t v) { return v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v); }

}  // namespace text_detail

// %s
inline char* PutStr(char* p, std::string_view s) {
  memcpy(p, s.data(), s.size());
  return p + s.size();
}

// %*s (width in bytes, as printf).
inline char* PutStrRight(char* p, std::string_view s, size_t width) {
  return PutStr(text_detail::Pad(p, width, s.size()), s);
}

// %lu, or %*lu with `width`.
inline char* PutDec(char* p, uint64_t v, size_t width = 0) {
  const int n = text_detail::DecimalDigits(v);
  p = text_detail::Pad(p, width, static_cast<size_t>(n));
  text_detail::WriteDecimal(p + n, v);
  return p + n;
}

// %*ld.
inline char* PutIntRight(char* p, int64_t v, size_t width) {
  const uint64_t m = text_detail::Magnitude(v);
  const int n = text_detail::DecimalDigits(m);
  p = text_detail::Pad(p, width, static_cast<size_t>(n) + (v < 0));
  if (v < 0) *p++ = '-';
  text_detail::WriteDecimal(p + n, m);
  return p + n;
}

// %-*ld.
inline char* PutIntLeft(char* p, int64_t v, size_t width) {
  char* start = p;
  const uint64_t m = text_detail::Magnitude(v);
  const int n = text_detail::DecimalDigits(m);
  if (v < 0) *p++ = '-';
  text_detail::WriteDecimal(p + n, m);
  p += n;
  return text_detail::Pad(p, width, static_cast<size_t>(p - start));
}

// %0*ld: zeros between the sign and the digits.
inline char* PutIntZeroPad(char* p, int64_t v, size_t width) {
  const uint64_t m = text_detail::Magnitude(v);
  const int n = text_detail::DecimalDigits(m);
  if (v < 0) *p++ = '-';
  p = text_detail::Pad(p, width, static_cast<size_t>(n) + (v < 0), '0');
  text_detail::WriteDecimal(p + n, m);
  return p + n;
}

// %lx, or %*lx with `width`.
inline char* PutHex(char* p, uint64_t v, size_t width = 0) {
  const int n = text_detail::HexDigits(v);
  p = text_detail::Pad(p, width, static_cast<size_t>(n));
  char* end = p + n;
  do {
    *--end = "0123456789abcdef"[v & 15];
    v >>= 4;
  } while (v);
  return p + n;
}

// perf's timestamp__scnprintf_usec, "%lu.%06lu" of seconds and microseconds
// (truncated), right-aligned in `width` as its callers' "%*s".
inline char* PutTimeUsec(char* p, uint64_t ns, size_t width = 0) {
  const uint64_t sec = ns / 1000000000, usec = ns % 1000000000 / 1000;
  const int n = text_detail::DecimalDigits(sec);
  p = text_detail::Pad(p, width, static_cast<size_t>(n) + 7);
  text_detail::WriteDecimal(p + n, sec);
  p += n;
  *p++ = '.';
  for (uint64_t pair : {usec / 10000, usec / 100 % 100, usec % 100}) {
    memcpy(p, text_detail::kDigitPairs + pair * 2, 2);
    p += 2;
  }
  return p;
}

// An append-only byte buffer that grows when a Reserve does not fit (a line can be
// longer than any fixed bound: symbol names have no limit).
class TextBuffer {
 public:
  explicit TextBuffer(size_t capacity) { Allocate(capacity, 0); }

  // Room for `n` more bytes; returns where they go. Invalidates earlier cursors.
  char* Reserve(size_t n) { return static_cast<size_t>(end_ - pos_) >= n ? pos_ : Grow(n); }
  // Ends the text at `p`, a cursor from the last Reserve moved past what was written.
  void Commit(char* p) { pos_ = p; }
  void Append(std::string_view s) { Commit(PutStr(Reserve(s.size()), s)); }

  std::string_view view() const { return {data_.get(), size()}; }
  size_t size() const { return static_cast<size_t>(pos_ - data_.get()); }
  size_t capacity() const { return static_cast<size_t>(end_ - data_.get()); }
  void clear() { pos_ = data_.get(); }
  // Drops the text after the first `size` bytes.
  void Truncate(size_t size) { pos_ = data_.get() + std::min(size, this->size()); }

 private:
  char* Grow(size_t n) {
    const size_t used = size();
    Allocate(std::max(capacity() * 2, used + n), used);
    return pos_;
  }
  void Allocate(size_t capacity, size_t keep) {
    auto fresh = std::make_unique_for_overwrite<char[]>(capacity);
    if (keep) memcpy(fresh.get(), data_.get(), keep);
    data_ = std::move(fresh);
    pos_ = data_.get() + keep;
    end_ = data_.get() + capacity;
  }

  std::unique_ptr<char[]> data_;
  char* pos_ = nullptr;
  char* end_ = nullptr;
};

}  // namespace perflens
