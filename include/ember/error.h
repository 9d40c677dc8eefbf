// User errors and internal invariants.
//
//   EMBER_CHECK(a.dim() == 2, "mm: expected a 2-D tensor, got ", a.dim(), "-D");   // ember::Error
//   EMBER_CHECK_INDEX(i < n, "index ", i, " is out of bounds");                 // ember::IndexError
//   EMBER_ASSERT(impl != nullptr);   // invariant: never fires on user input
//
//   try { t.index({5}); }
//   catch (const ember::IndexError& e) { ... }   // the kind's own class
//   catch (const ember::Error& e) { ... }        // every ember error
//
// One class per kind, each an ember::Error, as c10's hierarchy (c10::Error, c10::IndexError,
// c10::ValueError, c10::TypeError, c10::NotImplementedError, c10::LinAlgError,
// c10::OutOfMemoryError) plus the kinds PyTorch raises from Python code (KeyError,
// AttributeError, AssertionError). Each class carries the Python exception its kind becomes in
// the front end (`kind()`), so the message and the type a user sees match PyTorch's.
#pragma once

#include <exception>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace ember {

/// The Python exception an Error becomes. Runtime is RuntimeError; LinAlg is
/// ember.linalg.LinAlgError (a RuntimeError, as torch.linalg.LinAlgError); Assertion is a check
/// PyTorch writes as a Python `assert` (the quantization workflow's).
enum class ErrorKind { Runtime, Type, Value, Index, Key, NotImplemented, Attribute, Assertion, LinAlg };

/// Every ember error (c10::Error; Python's RuntimeError unless a subclass says otherwise).
class Error : public std::exception {
 public:
  explicit Error(std::string msg) : Error(std::move(msg), ErrorKind::Runtime) {}
  const char* what() const noexcept override { return msg_.c_str(); }
  const std::string& message() const { return msg_; }
  /// The Python exception this error becomes (the subclass's kind).
  ErrorKind kind() const { return kind_; }

 protected:
  // Only the subclasses choose a kind, so that the class and the kind always agree.
  Error(std::string msg, ErrorKind kind);

 private:
  std::string msg_;
  ErrorKind kind_;
};

#define EMBER_DEFINE_ERROR_CLASS(Name, Kind)                                     \
  class Name : public Error {                                                    \
   public:                                                                       \
    explicit Name(std::string msg) : Error(std::move(msg), ErrorKind::Kind) {}   \
  };
/// IndexError (c10::IndexError): an index out of range.
EMBER_DEFINE_ERROR_CLASS(IndexError, Index)
/// TypeError (c10::TypeError): an argument of the wrong type or dtype.
EMBER_DEFINE_ERROR_CLASS(TypeError, Type)
/// ValueError (c10::ValueError): an argument of the right type but a bad value.
EMBER_DEFINE_ERROR_CLASS(ValueError, Value)
/// KeyError: a missing key (a state dict's, a param group's).
EMBER_DEFINE_ERROR_CLASS(KeyError, Key)
/// NotImplementedError (c10::NotImplementedError): a valid request ember does not support.
EMBER_DEFINE_ERROR_CLASS(NotImplementedError, NotImplemented)
/// AttributeError: a missing attribute (a module's submodule, parameter or buffer by name).
EMBER_DEFINE_ERROR_CLASS(AttributeError, Attribute)
/// AssertionError: a check PyTorch writes as a Python `assert`.
EMBER_DEFINE_ERROR_CLASS(AssertionError, Assertion)
/// ember.linalg.LinAlgError (c10::LinAlgError): a failed factorization (singular, not
/// positive-definite).
EMBER_DEFINE_ERROR_CLASS(LinAlgError, LinAlg)
/// c10::OutOfMemoryError: an allocation the system refused. A RuntimeError in Python, as torch
/// 1.13's CPU allocator raises.
EMBER_DEFINE_ERROR_CLASS(OutOfMemoryError, Runtime)
#undef EMBER_DEFINE_ERROR_CLASS

namespace detail {
template <class... Args>
std::string str_cat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
inline std::string str_cat() { return {}; }
[[noreturn]] void assert_fail(const char* cond, const char* file, int line, const std::string& msg);

/// The class of each kind, for the EMBER_CHECK_* macros.
template <ErrorKind K> struct ErrorClass;
template <> struct ErrorClass<ErrorKind::Runtime> { using type = Error; };
template <> struct ErrorClass<ErrorKind::Type> { using type = TypeError; };
template <> struct ErrorClass<ErrorKind::Value> { using type = ValueError; };
template <> struct ErrorClass<ErrorKind::Index> { using type = IndexError; };
template <> struct ErrorClass<ErrorKind::Key> { using type = KeyError; };
template <> struct ErrorClass<ErrorKind::NotImplemented> { using type = NotImplementedError; };
template <> struct ErrorClass<ErrorKind::Attribute> { using type = AttributeError; };
template <> struct ErrorClass<ErrorKind::Assertion> { using type = AssertionError; };
template <> struct ErrorClass<ErrorKind::LinAlg> { using type = LinAlgError; };

// Note [Recording error texts]
// Tests check that no text ember produces names `torch.` where PyTorch's would (the C++
// suite's tests/cpp/api/test_error_texts.cpp and the Python suite's conftest). Every Error's
// constructor hands its message to record_error_text when recording is on: set
// EMBER_RECORD_ERRORS=1 in the environment before the first error, or call
// set_error_recording(true). Off, the cost is one relaxed atomic load per error constructed.
void set_error_recording(bool on);
/// The texts recorded since the last call (and forgets them).
std::vector<std::string> take_recorded_errors();
}  // namespace detail

}  // namespace ember

#define EMBER_FAIL_KIND(kind, ...) \
  throw typename ::ember::detail::ErrorClass<kind>::type(::ember::detail::str_cat(__VA_ARGS__))
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
#define EMBER_CHECK_KEY(cond, ...) EMBER_CHECK_KIND(::ember::ErrorKind::Key, cond, __VA_ARGS__)
#define EMBER_CHECK_NOT_IMPLEMENTED(cond, ...) \
  EMBER_CHECK_KIND(::ember::ErrorKind::NotImplemented, cond, __VA_ARGS__)
#define EMBER_CHECK_ATTRIBUTE(cond, ...) \
  EMBER_CHECK_KIND(::ember::ErrorKind::Attribute, cond, __VA_ARGS__)
#define EMBER_CHECK_LINALG(cond, ...) EMBER_CHECK_KIND(::ember::ErrorKind::LinAlg, cond, __VA_ARGS__)

#define EMBER_ASSERT(cond, ...)                                                       \
  do {                                                                                \
    if (__builtin_expect(!(cond), 0)) {                                               \
      ::ember::detail::assert_fail(#cond, __FILE__, __LINE__,                         \
                                   ::ember::detail::str_cat(__VA_ARGS__));            \
    }                                                                                 \
  } while (0)
