// C++ demangling as perf 6.1 prints it by default: libiberty cplus_demangle with
// DMGL_NO_OPTS, i.e. without the top-level function's parameters, return type and
// cv-qualifiers ("std::vector<int, std::allocator<int> >::push_back" for
// _ZNSt6vectorIiSaIiEE9push_backERKi). Built on abi::__cxa_demangle plus a trimmer.
#pragma once

#include <string>
#include <string_view>

namespace perflens {

// The demangled name, or "" when `mangled` is not an Itanium C++ name (perf keeps those
// as they are). Version suffixes ("@@GLIBCXX_3.4") and clone suffixes (".cold") are
// dropped, as cplus_demangle without DMGL_PARAMS ignores trailing text.
std::string DemangleLikePerf(std::string_view mangled);

// With `params` true, the full __cxa_demangle text ("f(int) const"); "" on failure.
std::string DemangleFull(std::string_view mangled);

// Drops the top-level parameter list, function qualifiers, clone suffixes and the
// return type from a __cxa_demangle result: "void ns::f<int>(int) const" → "ns::f<int>".
std::string StripFunctionSignature(std::string_view demangled);

}  // namespace perflens
