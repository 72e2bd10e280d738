// Control characters in names read from a recording (comms, symbols, paths, event
// names, header strings) would reach a terminal raw: an ESC sequence can rewrite the
// screen, a newline forges an output line. Printed names go through EscapeControl:
// each C0 control byte (0x00-0x1f, newline and tab included) and DEL (0x7f) becomes
// "\xNN"; every other byte, UTF-8 included, is kept. JSON output escapes by itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace perflens {

// True when `s` holds a byte EscapeControl would rewrite.
inline bool HasControlChars(std::string_view s) {
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7f) return true;
  return false;
}

// Appends `s` to `out` with control bytes as "\xNN" (lowercase hex).
inline void AppendEscapedControl(std::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) {
      out->append("\\x");
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
    } else {
      out->push_back(static_cast<char>(c));
    }
  }
}

// `s` with control bytes as "\xNN".
inline std::string EscapeControl(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  AppendEscapedControl(s, &out);
  return out;
}

}  // namespace perflens
