// units/error.hpp: typed errors for bad input, and Result<T>.
//
// Bad input (a catalog file, a config, a CLI flag, an HTTP body) is reported as an Error value
// that names where it came from (file or flag), the field, what is wrong and a hint. The shells
// turn it into exit code 2, HTTP 400 or a Python ValueError. Programmer errors use
// LLMECON_ASSERT instead. The library never prints and never exits.
//
//   Result<int> parse_count(std::string_view s);
//   auto r = parse_count("x");
//   if (!r) std::string msg = r.error().message();   // "--batch: value: not a number ..."
#pragma once

#include <cassert>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace llmecon {

/// One bad-input error. `where` is a file path or a flag; `field` is the key inside it.
struct Error {
  std::string where;
  std::string field;
  std::string what;
  std::string hint;

  /// One line: "<where>: <field>: <what> (hint: <hint>)".
  [[nodiscard]] std::string message() const;
  /// The same error re-anchored to another file or flag, keeping the field path.
  [[nodiscard]] Error at(std::string new_where) const;
  /// The same error with `prefix.` prepended to the field path.
  [[nodiscard]] Error in_field(const std::string& prefix) const;
};

/// Either a value or an Error. A minimal std::expected for C++20.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }

  T& value() & {
    assert(ok() && "Result::value() on an error");
    return std::get<T>(v_);
  }
  const T& value() const& {
    assert(ok() && "Result::value() on an error");
    return std::get<T>(v_);
  }
  /// Moves the value out (by value, so `for (auto& x : f().value())` does not dangle).
  T value() && {
    assert(ok() && "Result::value() on an error");
    return std::get<T>(std::move(v_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  [[nodiscard]] const Error& error() const {
    assert(!ok() && "Result::error() on a value");
    return std::get<Error>(v_);
  }

 private:
  std::variant<T, Error> v_;
};

/// Success or an Error: what a function returns when it has nothing to give back.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  [[nodiscard]] const Error& error() const {
    assert(!ok_ && "Result::error() on success");
    return error_;
  }

 private:
  Error error_;
  bool ok_ = true;
};
using Status = Result<void>;

/// Up to three names from `known` nearest `name` by edit distance (a name containing it first),
/// comma-separated: the one place "did you mean" hints come from.
/// With `max_distance`, names farther than that are left out (and the result may be empty).
std::string closest_names(std::string_view name, const std::vector<std::string>& known,
                          std::size_t max_distance = static_cast<std::size_t>(-1));

/// The largest input file llmecon reads (configs, catalogs, measurement CSVs).
inline constexpr std::uintmax_t kMaxInputFileBytes = 64ull << 20;

/// The contents of a regular file of at most kMaxInputFileBytes, or an Error naming it ("cannot open file") with
/// `hint`.
Result<std::string> read_text_file(const std::string& path, const std::string& hint);

}  // namespace llmecon

/// Binds `var` to the value of `expr` (a Result), or returns its error from the enclosing function.
// NOLINTBEGIN(bugprone-macro-parentheses): `var` names the variable it declares.
#define TRY(var, expr)                  \
  auto var##_r = (expr);                \
  if (!var##_r) return var##_r.error(); \
  auto var = std::move(var##_r).value()
// NOLINTEND(bugprone-macro-parentheses)

/// Returns the error of `expr` (a Status or any Result) from the enclosing function, if any.
#define TRY_STATUS(expr)                                         \
  do {                                                           \
    if (auto status_ = (expr); !status_) return status_.error(); \
  } while (false)

/// Programmer-error check: active in debug and sanitizer builds, never triggered by user input.
#define LLMECON_ASSERT(cond, msg) assert((cond) && (msg))
