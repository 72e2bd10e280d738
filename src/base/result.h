// Result<T>: a value or an Error, returned at module edges instead of exceptions.
// Modelled on llvm::Expected / absl::StatusOr: errors carry a human message that
// already names the file offset and record type where that applies.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

#include <fmt/format.h>

namespace perflens {

struct Error {
  std::string message;
};

// Builds an Error with fmt formatting: Err("bad size {} at offset {:#x}", n, off).
template <typename... Args>
Error Err(fmt::format_string<Args...> f, Args&&... args) {
  return Error{fmt::format(f, std::forward<Args>(args)...)};
}

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error error) : v_(std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { assert(ok()); return std::get<0>(v_); }
  const T& value() const& { assert(ok()); return std::get<0>(v_); }
  T&& value() && { assert(ok()); return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const { assert(!ok()); return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// Result<void> equivalent.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), ok_(false) {}
  static Status Ok() { return Status(); }
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { assert(!ok_); return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

}  // namespace perflens

// Propagates an error from an expression returning Result<T> or Status.
#define PERFLENS_RETURN_IF_ERROR(expr)        \
  do {                                        \
    auto perflens_status_ = (expr);           \
    if (!perflens_status_.ok()) return perflens_status_.error(); \
  } while (0)
