// SharedLibrary: a library opened with dlopen when first needed instead of linked.
//
// Why: every library perflens links is loaded and relocated at each start, used or not.
// libdebuginfod (libcurl and ~25 more libraries behind it) costs ~11 ms and capstone
// ~3 ms of a start that is otherwise ~5 ms, while most runs never fetch a file or
// disassemble. Those two are opened here on first use; their headers still give the
// types.
#pragma once

#include <string>

#include "base/result.h"

namespace perflens {

class SharedLibrary {
 public:
  SharedLibrary() = default;
  SharedLibrary(SharedLibrary&& o) noexcept : handle_(o.handle_), name_(std::move(o.name_)) { o.handle_ = nullptr; }
  SharedLibrary& operator=(SharedLibrary&& o) noexcept;
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;
  ~SharedLibrary();

  // dlopen(soname, RTLD_NOW | RTLD_LOCAL). `soname` is the versioned name the -dev
  // package's headers belong to (e.g. "libcapstone.so.4"), never a path. Errors:
  // "SONAME is not available (dlerror text)".
  static Result<SharedLibrary> Open(const std::string& soname);

  // The address of `symbol` as a pointer to F (a function type, e.g.
  // decltype(cs_open)). Errors: "SONAME has no SYMBOL".
  template <typename F>
  Result<F*> Function(const char* symbol) const {
    auto p = Address(symbol);
    if (!p.ok()) return p.error();
    return reinterpret_cast<F*>(*p);
  }

  // Sets *fn to `symbol`'s address (F deduced from the pointer, e.g. a field declared
  // decltype(cs_open)*). Errors: as Function.
  template <typename F>
  Status Bind(const char* symbol, F** fn) const {
    auto p = Function<F>(symbol);
    if (!p.ok()) return p.error();
    *fn = *p;
    return Status::Ok();
  }

  const std::string& name() const { return name_; }

 private:
  Result<void*> Address(const char* symbol) const;
  void* handle_ = nullptr;
  std::string name_;
};

}  // namespace perflens
