#include "base/shared_library.h"

#include <dlfcn.h>

namespace perflens {

SharedLibrary& SharedLibrary::operator=(SharedLibrary&& o) noexcept {
  if (this != &o) {
    if (handle_) dlclose(handle_);
    handle_ = o.handle_;
    name_ = std::move(o.name_);
    o.handle_ = nullptr;
  }
  return *this;
}

SharedLibrary::~SharedLibrary() {
  if (handle_) dlclose(handle_);
}

Result<SharedLibrary> SharedLibrary::Open(const std::string& soname) {
  void* h = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* why = dlerror();
    return Err("{} is not available ({})", soname, why ? why : "dlopen failed");
  }
  SharedLibrary lib;
  lib.handle_ = h;
  lib.name_ = soname;
  return lib;
}

Result<void*> SharedLibrary::Address(const char* symbol) const {
  dlerror();
  void* p = handle_ ? dlsym(handle_, symbol) : nullptr;
  if (!p) return Err("{} has no {}", name_, symbol);
  return p;
}

}  // namespace perflens
