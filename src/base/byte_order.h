// Endian-aware unaligned loads over untrusted bytes.
//
// perf.data is written in the recording machine's byte order (include/uapi/linux/
// perf_event.h structs, native layout). Parsers decode every field through Loader so
// that cross-endian files are handled at the edge and never by mutating bytes.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace perflens {

// Decodes integers from a byte pointer; `swap` is true when the file's byte order
// differs from the host's. All loads are unaligned-safe (memcpy).
struct Loader {
  bool swap = false;

  uint8_t U8(const uint8_t* p) const { return *p; }
  uint16_t U16(const uint8_t* p) const {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return swap ? __builtin_bswap16(v) : v;
  }
  uint32_t U32(const uint8_t* p) const {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return swap ? __builtin_bswap32(v) : v;
  }
  uint64_t U64(const uint8_t* p) const {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return swap ? __builtin_bswap64(v) : v;
  }
  int32_t S32(const uint8_t* p) const { return static_cast<int32_t>(U32(p)); }
};

// A bounds-checked cursor over [data, data+size). Reads past the end set `failed`
// and return zero, so a parser can read a whole struct and check once.
class ByteCursor {
 public:
  ByteCursor(const uint8_t* data, size_t size, Loader loader)
      : data_(data), size_(size), loader_(loader) {}

  size_t pos() const { return pos_; }
  size_t size() const { return size_; }
  size_t remaining() const { return failed_ ? 0 : size_ - pos_; }
  bool failed() const { return failed_; }
  const uint8_t* here() const { return data_ + pos_; }
  const Loader& loader() const { return loader_; }

  bool Has(size_t n) const { return !failed_ && n <= size_ - pos_; }
  bool Skip(size_t n) {
    if (!Has(n)) return Fail();
    pos_ += n;
    return true;
  }
  uint8_t U8() { return Has(1) ? data_[pos_++] : (Fail(), 0); }
  uint16_t U16() { return Take<uint16_t>(2, &Loader::U16); }
  uint32_t U32() { return Take<uint32_t>(4, &Loader::U32); }
  uint64_t U64() { return Take<uint64_t>(8, &Loader::U64); }
  // Returns a view of the next n bytes, or nullptr (and fails) if they are not there.
  const uint8_t* Bytes(size_t n) {
    if (!Has(n)) return Fail(), nullptr;
    const uint8_t* p = data_ + pos_;
    pos_ += n;
    return p;
  }
  // A NUL-terminated string inside the next `n` bytes (stops at the first NUL).
  std::string_view FixedString(size_t n) {
    const uint8_t* p = Bytes(n);
    if (!p) return {};
    return std::string_view(reinterpret_cast<const char*>(p), strnlen(reinterpret_cast<const char*>(p), n));
  }
  bool Fail() {
    failed_ = true;
    return false;
  }

 private:
  template <typename T>
  T Take(size_t n, T (Loader::*load)(const uint8_t*) const) {
    if (!Has(n)) return Fail(), T{0};
    T v = (loader_.*load)(data_ + pos_);
    pos_ += n;
    return v;
  }

  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  bool failed_ = false;
  Loader loader_;
};

// Checked a+b <= limit without overflow.
inline bool FitsIn(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

}  // namespace perflens
