// User errors and internal invariants.
//
//   EMBER_CHECK(a.dim() == 2, "mm: expected a 2-D tensor, got ", a.dim(), "-D");   // ember::Error
//   EMBER_CHECK_INDEX(i < n, "index ", i, " is out of bounds");                   // kind IndexError
//   EMBER_ASSERT(impl != nullptr);   // invariant: never fires on user input
//
// Each Error carries the Python exception kind it becomes in the front end, so the message and
// the type a user sees match PyTorch's.
#pragma once

#include <exception>
#include <sstream>
#include <string>
#include <utility>

namespace ember {

/// Assertion: a check PyTorch writes as a Python `assert` (the quantization workflow's), raised
/// in Python as AssertionError with the same text.
// LinAlg: a failed factorization (singular, not positive-definite), PyTorch's
// torch.linalg.LinAlgError (a RuntimeError subclass).
enum class ErrorKind { Runtime, Type, Value, Index, Key, NotImplemented, Attribute, Assertion, LinAlg };

class Error : public std::exception {
 public:
  explicit Error(std::string msg, ErrorKind kind = ErrorKind::Runtime)
      : msg_(std::move(msg)), kind_(kind) {}
  const char* what() const noexcept override { return msg_.c_str(); }
  const std::string& message() const { return msg_; }
  ErrorKind kind() const { return kind_; }

 private:
  std::string msg_;
  ErrorKind kind_;
};

namespace detail {
template <class... Args>
std::string str_cat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
inline std::string str_cat() { return {}; }
[[noreturn]] void assert_fail(const char* cond, const char* file, int line, const std::string& msg);
}  // namespace detail

}  // namespace ember

#define EMBER_FAIL_KIND(kind, ...) throw ::ember::Error(::ember::detail::str_cat(__VA_ARGS__), kind)
#define EMBER_FAIL(...) EMBER_FAIL_KIND(::ember::ErrorKind::Runtime, __VA_ARGS__)

#define EMBER_CHECK_KIND(kind, cond, ...)          \
  do {                                             \
    if (__builtin_expect(!(cond), 0)) {            \
      EMBER_FAIL_KIND(kind, __VA_ARGS__);          \
    }                                              \
  } while (0)
#define EMBER_CHECK(cond, ...) EMBER_CHECK_KIND(::ember::ErrorKind::Runtime, cond, __VA_ARGS__)
#define EMBER_CHECK_TYPE(cond, ...) EMBER_CHECK_KIND(::ember::ErrorKind::Type, cond, __VA_ARGS__)
#define EMBER_CHECK_VALUE(cond, ...) EMBER_CHECK_KIND(::ember::ErrorKind::Value, cond, __VA_ARGS__)
#define EMBER_CHECK_ASSERTION(cond, ...) \
  EMBER_CHECK_KIND(::ember::ErrorKind::Assertion, cond, __VA_ARGS__)
#define EMBER_CHECK_INDEX(cond, ...) EMBER_CHECK_KIND(::ember::ErrorKind::Index, cond, __VA_ARGS__)
#define EMBER_CHECK_NOT_IMPLEMENTED(cond, ...) \
  EMBER_CHECK_KIND(::ember::ErrorKind::NotImplemented, cond, __VA_ARGS__)

#define EMBER_ASSERT(cond, ...)                                                       \
  do {                                                                                \
    if (__builtin_expect(!(cond), 0)) {                                               \
      ::ember::detail::assert_fail(#cond, __FILE__, __LINE__,                         \
                                   ::ember::detail::str_cat(__VA_ARGS__));            \
    }                                                                                 \
  } while (0)
