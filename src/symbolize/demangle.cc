#include "symbolize/demangle.h"

#include <cxxabi.h>
// libiberty-dev's header; libiberty.a has no other users here.
#include <libiberty/demangle.h>

#include <array>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>

namespace perflens {
namespace {

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool EndsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}
bool IsIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Special names whose inner encoding libiberty prints with parameters anyway.
constexpr std::array<std::string_view, 16> kSpecialPrefixes = {
    "vtable for ", "VTT for ", "construction vtable for ", "typeinfo for ", "typeinfo name for ",
    "typeinfo fn for ", "guard variable for ", "non-virtual thunk to ", "virtual thunk to ",
    "covariant return thunk to ", "transaction clone for ", "non-transaction clone for ",
    "reference temporary", "TLS init function for ", "TLS wrapper function for ", "hidden alias for ",
};

// Operator spellings after the keyword `operator`, longest first.
constexpr std::array<std::string_view, 42> kOperators = {
    "<=>", "->*", "<<=", ">>=", "()", "[]", "->", "<<", ">>", "<=", ">=", "==", "!=", "&&",
    "||", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "\"\"", " new[]",
    " delete[]", " new", " delete", " co_await", ",", "<", ">", "+", "-", "*", "/", "%", "&", "|",
    "^",
};

// Length of the operator token at `s[i]` (just after "operator"); 0 for a conversion
// operator ("operator int"), which has no return type.
size_t OperatorLength(std::string_view s, size_t i) {
  std::string_view rest = s.substr(i);
  for (std::string_view op : kOperators) {
    if (StartsWith(rest, op)) return op.size();
  }
  if (!rest.empty() && (rest[0] == '!' || rest[0] == '~' || rest[0] == '=')) return 1;
  return 0;
}

// perf 6.1's own legacy-Rust pass (util/demangle-rust.c), run on what cplus_demangle
// returned: a C++ demangling that ends in "::h" + 16 lowercase hex digits (5 to 15 of
// them distinct) and holds only [A-Za-z0-9_.:$] with known $…$ escapes and no "...".
// It matters only where libiberty's Rust demangler declined and its C++ one did not
// ("_ZN3foo3bar17h…E@@V1": C++ ignores the trailing text).
constexpr size_t kRustHashLength = 3 + 16;  // "::h" + hex
constexpr std::array<std::pair<std::string_view, char>, 13> kRustEscapes = {{
    {"$C$", ','}, {"$SP$", '@'}, {"$BP$", '*'}, {"$RF$", '&'}, {"$LT$", '<'}, {"$GT$", '>'}, {"$LP$", '('},
    {"$RP$", ')'}, {"$u20$", ' '}, {"$u27$", '\''}, {"$u5b$", '['}, {"$u5d$", ']'}, {"$u7e$", '~'},
}};

size_t RustEscapeLength(std::string_view s, char* value) {
  for (const auto& [seq, c] : kRustEscapes) {
    if (StartsWith(s, seq)) {
      *value = c;
      return seq.size();
    }
  }
  return 0;
}

bool LooksLikeLegacyRust(std::string_view d) {
  if (d.size() <= kRustHashLength) return false;
  std::string_view hash = d.substr(d.size() - kRustHashLength);
  if (!StartsWith(hash, "::h")) return false;
  bool seen[16] = {};
  for (char c : hash.substr(3)) {
    if (c >= '0' && c <= '9') seen[c - '0'] = true;
    else if (c >= 'a' && c <= 'f') seen[c - 'a' + 10] = true;
    else return false;
  }
  int distinct = 0;
  for (bool b : seen) distinct += b;
  if (distinct < 5 || distinct > 15) return false;
  std::string_view body = d.substr(0, d.size() - kRustHashLength);
  for (size_t i = 0; i < body.size();) {
    char c = body[i], unused;
    if (c == '$') {
      size_t n = RustEscapeLength(body.substr(i), &unused);
      if (n == 0) return false;
      i += n;
    } else if (c == '.' && StartsWith(body.substr(i), "...")) {
      return false;
    } else if (IsIdentChar(c) || c == '.' || c == ':') {
      ++i;
    } else {
      return false;
    }
  }
  return true;
}

// The legacy-Rust cleanup of a name LooksLikeLegacyRust accepted: escapes decoded, the
// '_' that precedes an escape at a path component's start dropped, ".." → "::",
// "." → "-", the hash dropped.
std::string CleanLegacyRust(std::string_view d) {
  std::string_view body = d.substr(0, d.size() - kRustHashLength);
  std::string out;
  for (size_t i = 0; i < body.size();) {
    char c = body[i];
    if (c == '$') {
      char value = 0;
      i += RustEscapeLength(body.substr(i), &value);
      out += value;
    } else if (c == '_' && (i == 0 || body[i - 1] == ':') && i + 1 < body.size() && body[i + 1] == '$') {
      ++i;
    } else if (c == '.') {
      const bool pair = i + 1 < body.size() && body[i + 1] == '.';
      out += pair ? "::" : "-";
      i += pair ? 2 : 1;
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

}  // namespace

std::string DemangleFull(std::string_view mangled) {
  std::string in(mangled);
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(abi::__cxa_demangle(in.c_str(), nullptr, nullptr, &status),
                                                 &std::free);
  if (status != 0 || !out) return "";
  return out.get();
}

std::string StripFunctionSignature(std::string_view d) {
  for (std::string_view p : kSpecialPrefixes) {
    if (StartsWith(d, p)) return std::string(d);
  }
  // Clone suffixes: "f(int) [clone .cold] [clone .isra.0]".
  while (EndsWith(d, "]")) {
    size_t pos = d.rfind(" [clone ");
    if (pos == std::string_view::npos) break;
    d = d.substr(0, pos);
  }
  // Function qualifiers after the parameter list.
  for (bool changed = true; changed;) {
    changed = false;
    for (std::string_view q : {" const", " volatile", " &&", " &", " restrict", " noexcept", " transaction_safe"}) {
      if (EndsWith(d, q)) {
        d.remove_suffix(q.size());
        changed = true;
      }
    }
  }
  if (!EndsWith(d, ")")) return std::string(d);
  // The '(' matching the final ')'.
  int depth = 0;
  size_t open = std::string_view::npos;
  for (size_t i = d.size(); i-- > 0;) {
    if (d[i] == ')') ++depth;
    else if (d[i] == '(' && --depth == 0) {
      open = i;
      break;
    }
  }
  if (open == std::string_view::npos || open == 0) return std::string(d);
  std::string_view name = d.substr(0, open);
  // Drop a return type: the name starts after the last top-level space that is not
  // part of an operator spelling ("operator new", "operator< <int>").
  size_t name_start = 0;
  depth = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (c == 'o' && StartsWith(name.substr(i), "operator") && (i == 0 || !IsIdentChar(name[i - 1])) &&
        (i + 8 >= name.size() || !IsIdentChar(name[i + 8]))) {
      size_t len = OperatorLength(name, i + 8);
      if (len == 0) {
        if (depth == 0) break;  // conversion operator: no return type, rest is the name
        continue;
      }
      i += 8 + len - 1;
      if (i + 2 < name.size() && name[i + 1] == ' ' && name[i + 2] == '<') ++i;  // "operator< <T>"
      continue;
    }
    if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
    else if ((c == '>' || c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    else if (c == ' ' && depth == 0) name_start = i + 1;
  }
  return std::string(name.substr(name_start));
}

bool MaybeMangled(std::string_view name) {
  return StartsWith(name, "_Z") || StartsWith(name, "_R") || StartsWith(name, "R") || StartsWith(name, "__R");
}

std::string DemangleRust(std::string_view mangled) {
  // libiberty's own test: legacy names are "_ZN…17h<16 hex>E" (a "." suffix such as
  // ".llvm.123" ignored), v0 names "_R…"/"R…"/"__R…" (a "." suffix ignored).
  if (!StartsWith(mangled, "_ZN") && !StartsWith(mangled, "_R") && !StartsWith(mangled, "R") &&
      !StartsWith(mangled, "__R"))
    return "";
  // A legacy name's last segment is the hash "17h<16 hex>": libiberty returns nothing
  // for a _ZN name without it, after scanning the name. Most C++ names have no "17h",
  // and the copy and the scan were a tenth of loading a C++ DSO's symbols.
  if (StartsWith(mangled, "_ZN") && mangled.find("17h") == std::string_view::npos) return "";
  const std::string in(mangled);  // NUL-terminated; an embedded NUL ends the name, as in the ELF string table
  std::unique_ptr<char, decltype(&std::free)> out(rust_demangle(in.c_str(), DMGL_NO_OPTS), &std::free);
  return out ? std::string(out.get()) : std::string();
}

std::string DemangleLikePerf(std::string_view mangled) {
  // cplus_demangle's auto style: Rust first (legacy Rust names are valid C++ names too).
  std::string rust = DemangleRust(mangled);
  if (!rust.empty()) return rust;
  if (!StartsWith(mangled, "_Z")) return "";
  std::string_view base = mangled.substr(0, mangled.find('@'));
  std::string full = DemangleFull(base);
  if (full.empty()) {
    size_t dot = base.find('.', 2);
    if (dot == std::string_view::npos) return "";
    full = DemangleFull(base.substr(0, dot));
    if (full.empty()) return "";
  }
  std::string name = StripFunctionSignature(full);
  return LooksLikeLegacyRust(name) ? CleanLegacyRust(name) : name;
}

std::string DemangleWithParamsLikePerf(std::string_view mangled) {
  // perf's bfd_demangle without libbfd: cplus_demangle, whose auto style tries Rust first.
  const std::string in(mangled);
  std::unique_ptr<char, decltype(&std::free)> out(cplus_demangle(in.c_str(), DMGL_PARAMS | DMGL_ANSI), &std::free);
  if (!out) return "";
  std::string name(out.get());
  return LooksLikeLegacyRust(name) ? CleanLegacyRust(name) : name;
}

}  // namespace perflens
