#include "symbolize/demangle.h"

#include <cxxabi.h>

#include <array>
#include <cstdlib>
#include <memory>

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

std::string DemangleLikePerf(std::string_view mangled) {
  if (!StartsWith(mangled, "_Z")) return "";
  std::string_view base = mangled.substr(0, mangled.find('@'));
  std::string full = DemangleFull(base);
  if (full.empty()) {
    size_t dot = base.find('.', 2);
    if (dot == std::string_view::npos) return "";
    full = DemangleFull(base.substr(0, dot));
    if (full.empty()) return "";
  }
  return StripFunctionSignature(full);
}

}  // namespace perflens
