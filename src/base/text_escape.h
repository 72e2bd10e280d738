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

// `s` as valid UTF-8 (the form protobuf's string fields require, e.g. pprof's string
// table): every byte that does not start a well-formed sequence (overlong forms,
// surrogates and code points above U+10FFFF included) becomes U+FFFD; the rest is kept.
inline std::string ValidUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    size_t n = 0;
    uint32_t cp = 0, min = 0;
    if ((c & 0xe0) == 0xc0) n = 1, cp = c & 0x1f, min = 0x80;
    else if ((c & 0xf0) == 0xe0) n = 2, cp = c & 0x0f, min = 0x800;
    else if ((c & 0xf8) == 0xf0) n = 3, cp = c & 0x07, min = 0x10000;
    bool ok = n > 0 && i + n < s.size();
    for (size_t k = 1; ok && k <= n; ++k) {
      const unsigned char t = static_cast<unsigned char>(s[i + k]);
      ok = (t & 0xc0) == 0x80;
      cp = (cp << 6) | (t & 0x3f);
    }
    ok = ok && cp >= min && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
    if (ok) {
      out.append(s.substr(i, n + 1));
      i += n + 1;
    } else {
      out.append("\xef\xbf\xbd");
      ++i;
    }
  }
  return out;
}

}  // namespace perflens
