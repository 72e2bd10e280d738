// Demangling as perf 6.1 prints it by default: libiberty cplus_demangle with
// DMGL_NO_OPTS (Debian's perf 6.1 is built without libbfd and links libiberty), whose
// auto style tries Rust first, then C++.
// - Rust, both manglings, through libiberty's own rust_demangle (the code perf runs):
//   legacy "_ZN4prog4spin17h1a25dcd4f893588bE" → "prog::spin" (hash dropped, $LT$ $GT$
//   $RF$ $u20$ … and ".." decoded), v0 "_RNvCs56HGsqMBDvY_4prog4spin" → "prog::spin",
//   generic arguments kept ("std::rt::lang_start::<()>::{closure#0}").
// - C++ without the top-level function's parameters, return type and cv-qualifiers
//   ("std::vector<int, std::allocator<int> >::push_back" for
//   _ZNSt6vectorIiSaIiEE9push_backERKi). Built on abi::__cxa_demangle plus a trimmer.
#pragma once

#include <string>
#include <string_view>

namespace perflens {

// True when DemangleLikePerf may change `name` (a "_Z" C++/legacy Rust name or a v0 Rust
// name: "_R", "R", "__R"): the cheap test symbol tables use to demangle lazily.
bool MaybeMangled(std::string_view name);

// The demangled name, or "" when `mangled` is neither a Rust nor an Itanium C++ name
// (perf keeps those as they are). Version suffixes ("@@GLIBCXX_3.4") and clone suffixes (".cold") are
// dropped, as cplus_demangle without DMGL_PARAMS ignores trailing text.
std::string DemangleLikePerf(std::string_view mangled);

// As perf 6.1 demangles under -v (verbose > 0): libiberty cplus_demangle with
// DMGL_PARAMS | DMGL_ANSI, then perf's legacy-Rust pass. C++ keeps the whole signature:
// "unsigned long algo::detail::MixRounds<unsigned long, 100000>(unsigned long)", a
// clone suffix becomes " [clone .constprop.0]", and a name with other trailing text
// ("_Z1fv@@V1") does not demangle (""). Rust as DemangleLikePerf.
std::string DemangleWithParamsLikePerf(std::string_view mangled);
// DemangleWithParamsLikePerf when `params`, else DemangleLikePerf.
inline std::string DemangleLikePerf(std::string_view mangled, bool params) {
  return params ? DemangleWithParamsLikePerf(mangled) : DemangleLikePerf(mangled);
}

// Rust alone (libiberty rust_demangle, DMGL_NO_OPTS): "" when `mangled` is not a legacy
// or v0 Rust symbol.
std::string DemangleRust(std::string_view mangled);

// With `params` true, the full __cxa_demangle text ("f(int) const"); "" on failure.
std::string DemangleFull(std::string_view mangled);

// Drops the top-level parameter list, function qualifiers, clone suffixes and the
// return type from a __cxa_demangle result: "void ns::f<int>(int) const" → "ns::f<int>".
std::string StripFunctionSignature(std::string_view demangled);

}  // namespace perflens
