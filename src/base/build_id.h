// BuildId: the GNU build-id note bytes (NT_GNU_BUILD_ID), 1..20 bytes (sha1 is 20,
// md5 16; perf stores up to BUILD_ID_SIZE = 20).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace perflens {

struct BuildId {
  static constexpr size_t kMaxSize = 20;
  std::array<uint8_t, kMaxSize> bytes{};
  uint8_t size = 0;

  bool empty() const { return size == 0; }
  // Lower-case hex of the first `size` bytes, as perf prints it.
  std::string ToHex() const;
  // Parses hex (even number of digits, up to 40); nullopt on bad input.
  static std::optional<BuildId> FromHex(std::string_view hex);
  static BuildId FromBytes(const uint8_t* p, size_t n);

  // Whether a file whose NT_GNU_BUILD_ID note is `note` is the one this recorded id
  // names: equal, or (perf's dso__build_id_equal) this id is 20 bytes — read from a
  // perf.data build-id entry without the size byte, zero-padded — and is `note`
  // (16 bytes: md5, lld's default; 8: --build-id=fast) followed by zero bytes only.
  bool MatchesNote(const BuildId& note) const;
  // The id without that zero padding when it is 20 bytes ending in zeros that would make
  // a 16- or 8-byte id (its /usr/lib/debug/.build-id name); itself otherwise.
  BuildId Unpadded() const;

  friend bool operator==(const BuildId& a, const BuildId& b) {
    return a.size == b.size && std::memcmp(a.bytes.data(), b.bytes.data(), a.size) == 0;
  }
};

}  // namespace perflens
