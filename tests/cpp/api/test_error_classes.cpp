// One exception class per error kind (issue 17): each EMBER_CHECK_* macro throws its kind's
// class, every class is an ember::Error (so one catch still takes them all), and kind() — what
// the Python front end maps to an exception type — agrees with the class.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <typeinfo>

#include "ember/ember.h"

namespace {

using ember::ErrorKind;

// Calls fn, which must throw exactly an E (its dynamic type, caught as ember::Error), whose
// kind() is `kind`; returns its message.
template <class E, class F>
std::string expect_throws(F&& fn, ErrorKind kind) {
  try {
    fn();
  } catch (const ember::Error& e) {
    EXPECT_EQ(typeid(e), typeid(E)) << "threw a " << typeid(e).name() << ": " << e.what();
    EXPECT_NE(dynamic_cast<const E*>(&e), nullptr);
    EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(kind)) << e.what();
    EXPECT_EQ(std::string(e.what()), e.message());
    return e.what();
  }
  ADD_FAILURE() << "nothing was thrown";
  return {};
}

static_assert(std::is_base_of_v<ember::Error, ember::IndexError>);
static_assert(std::is_base_of_v<ember::Error, ember::TypeError>);
static_assert(std::is_base_of_v<ember::Error, ember::ValueError>);
static_assert(std::is_base_of_v<ember::Error, ember::KeyError>);
static_assert(std::is_base_of_v<ember::Error, ember::NotImplementedError>);
static_assert(std::is_base_of_v<ember::Error, ember::AttributeError>);
static_assert(std::is_base_of_v<ember::Error, ember::AssertionError>);
static_assert(std::is_base_of_v<ember::Error, ember::LinAlgError>);
static_assert(std::is_base_of_v<ember::Error, ember::OutOfMemoryError>);
static_assert(std::is_base_of_v<std::exception, ember::Error>);
// The kind is the class's: a bare Error(msg, kind) cannot be made from outside.
static_assert(!std::is_constructible_v<ember::Error, std::string, ErrorKind>);

TEST(ErrorClasses, EachMacroThrowsItsClass) {
  int n = 3;
  EXPECT_EQ(expect_throws<ember::Error>([&] { EMBER_CHECK(n < 0, "runtime ", n); }, ErrorKind::Runtime),
            "runtime 3");
  EXPECT_EQ(expect_throws<ember::IndexError>([&] { EMBER_CHECK_INDEX(n < 0, "index ", n); },
                                             ErrorKind::Index),
            "index 3");
  EXPECT_EQ(expect_throws<ember::TypeError>([&] { EMBER_CHECK_TYPE(n < 0, "type"); }, ErrorKind::Type),
            "type");
  EXPECT_EQ(expect_throws<ember::ValueError>([&] { EMBER_CHECK_VALUE(n < 0, "value"); },
                                             ErrorKind::Value),
            "value");
  EXPECT_EQ(expect_throws<ember::KeyError>([&] { EMBER_CHECK_KEY(n < 0, "key"); }, ErrorKind::Key),
            "key");
  EXPECT_EQ(expect_throws<ember::NotImplementedError>(
                [&] { EMBER_CHECK_NOT_IMPLEMENTED(n < 0, "not implemented"); },
                ErrorKind::NotImplemented),
            "not implemented");
  EXPECT_EQ(expect_throws<ember::AttributeError>([&] { EMBER_CHECK_ATTRIBUTE(n < 0, "attr"); },
                                                 ErrorKind::Attribute),
            "attr");
  EXPECT_EQ(expect_throws<ember::AssertionError>([&] { EMBER_CHECK_ASSERTION(n < 0, "assert"); },
                                                 ErrorKind::Assertion),
            "assert");
  EXPECT_EQ(expect_throws<ember::LinAlgError>([&] { EMBER_CHECK_LINALG(n < 0, "linalg"); },
                                              ErrorKind::LinAlg),
            "linalg");
  EXPECT_EQ(expect_throws<ember::ValueError>(
                [&] { EMBER_FAIL_KIND(ErrorKind::Value, "fail ", 1, " ", 2.5); }, ErrorKind::Value),
            "fail 1 2.5");
  EXPECT_EQ(expect_throws<ember::Error>([&] { EMBER_FAIL("plain"); }, ErrorKind::Runtime), "plain");
}

TEST(ErrorClasses, NoCheckNoThrow) {
  EXPECT_NO_THROW(EMBER_CHECK_INDEX(true, "never"));
  EXPECT_NO_THROW(EMBER_CHECK_VALUE(1 + 1 == 2, "never"));
}

TEST(ErrorClasses, CatchAllByBase) {
  int caught = 0;
  auto kinds = {ErrorKind::Index, ErrorKind::Type, ErrorKind::Value, ErrorKind::Key,
                ErrorKind::NotImplemented, ErrorKind::Attribute, ErrorKind::Assertion,
                ErrorKind::LinAlg};
  for (ErrorKind k : kinds) {
    try {
      switch (k) {
        case ErrorKind::Index: throw ember::IndexError("i");
        case ErrorKind::Type: throw ember::TypeError("t");
        case ErrorKind::Value: throw ember::ValueError("v");
        case ErrorKind::Key: throw ember::KeyError("k");
        case ErrorKind::NotImplemented: throw ember::NotImplementedError("n");
        case ErrorKind::Attribute: throw ember::AttributeError("a");
        case ErrorKind::Assertion: throw ember::AssertionError("s");
        default: throw ember::LinAlgError("l");
      }
    } catch (const ember::Error& e) {
      EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(k));
      ++caught;
    }
  }
  EXPECT_EQ(caught, 8);
  // std::exception catches them too, with the message as what().
  try {
    throw ember::ValueError("as std::exception");
  } catch (const std::exception& e) {
    EXPECT_STREQ(e.what(), "as std::exception");
  }
}

// Real ops throw the class of their Python exception.
TEST(ErrorClasses, OpsThrowTheirKindsClass) {
  ember::Tensor t = ember::zeros({3});
  std::string msg = expect_throws<ember::IndexError>([&] { t.select(0, 5); }, ErrorKind::Index);
  EXPECT_EQ(msg, "select(): index 5 out of range for tensor of size [3] at dimension 0");
  expect_throws<ember::IndexError>([&] { t.index({5}); }, ErrorKind::Index);
  msg = expect_throws<ember::ValueError>([] { ember::nn::Dropout(1.5); }, ErrorKind::Value);
  EXPECT_EQ(msg, "dropout probability has to be between 0 and 1, but got 1.5");
  msg = expect_throws<ember::LinAlgError>(
      [] { ember::linalg::cholesky(-ember::eye(2, ember::kFloat64)); }, ErrorKind::LinAlg);
  EXPECT_NE(msg.find("not positive-definite"), std::string::npos) << msg;
  // Runtime errors stay plain ember::Error.
  msg = expect_throws<ember::Error>([] { ember::ones({2, 3}).mm(ember::ones({2, 3})); },
                                    ErrorKind::Runtime);
  EXPECT_NE(msg.find("cannot be multiplied"), std::string::npos) << msg;
}

TEST(ErrorClasses, AllocatorRefusalIsOutOfMemoryError) {
  // 2^50 floats: more than any machine's memory, so malloc refuses.
  std::string msg = expect_throws<ember::OutOfMemoryError>(
      [] { ember::empty({int64_t{1} << 50}, ember::kFloat32); }, ErrorKind::Runtime);
  EXPECT_EQ(msg.rfind("DefaultCPUAllocator: not enough memory: you tried to allocate ", 0), 0u) << msg;
}

}  // namespace
