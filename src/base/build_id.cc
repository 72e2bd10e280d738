#include "base/build_id.h"

namespace perflens {

std::string BuildId::ToHex() const {
  static const char kHex[] = "0123456789abcdef";
  std::string s;
  s.reserve(size * 2);
  for (size_t i = 0; i < size; ++i) {
    s.push_back(kHex[bytes[i] >> 4]);
    s.push_back(kHex[bytes[i] & 15]);
  }
  return s;
}

std::optional<BuildId> BuildId::FromHex(std::string_view hex) {
  if (hex.size() % 2 != 0 || hex.size() > 2 * kMaxSize || hex.empty()) return std::nullopt;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  BuildId id;
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = nibble(hex[i]), lo = nibble(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    id.bytes[i / 2] = static_cast<uint8_t>(hi << 4 | lo);
  }
  id.size = static_cast<uint8_t>(hex.size() / 2);
  return id;
}

bool BuildId::MatchesNote(const BuildId& note) const {
  if (*this == note) return true;
  if (size != kMaxSize || note.empty() || note.size >= size) return false;
  if (std::memcmp(bytes.data(), note.bytes.data(), note.size) != 0) return false;
  for (size_t i = note.size; i < size; ++i)
    if (bytes[i] != 0) return false;
  return true;
}

BuildId BuildId::Unpadded() const {
  if (size != kMaxSize) return *this;
  auto zeros = [this](size_t from, size_t to) {
    for (size_t i = from; i < to; ++i)
      if (bytes[i] != 0) return false;
    return true;
  };
  BuildId id = *this;
  if (zeros(16, kMaxSize)) id.size = zeros(8, 16) ? 8 : 16;
  return id;
}

BuildId BuildId::FromBytes(const uint8_t* p, size_t n) {
  BuildId id;
  if (n > kMaxSize) n = kMaxSize;
  std::memcpy(id.bytes.data(), p, n);
  id.size = static_cast<uint8_t>(n);
  return id;
}

}  // namespace perflens
