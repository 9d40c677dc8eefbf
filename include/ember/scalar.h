// A number that is not a tensor: an int, a float or a bool, remembering which.
//
//   ember::Scalar s = 2.5;  s.is_floating();  // true
//   t.add(1);               // 1 is a "weak" int scalar: int tensors stay int, float stay float
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "ember/dtype.h"
#include "ember/error.h"

namespace ember {

class Scalar {
 public:
  enum class Kind : uint8_t { Int, Float, Bool };

  Scalar() : Scalar(int64_t{0}) {}
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : kind_(Kind::Int), i_(static_cast<int64_t>(v)) {}  // NOLINT
  template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T v) : kind_(Kind::Float), d_(static_cast<double>(v)) {}  // NOLINT
  Scalar(bool v) : kind_(Kind::Bool), i_(v) {}                     // NOLINT
  Scalar(Half v) : Scalar(static_cast<float>(v)) {}                // NOLINT
  Scalar(BFloat16 v) : Scalar(static_cast<float>(v)) {}            // NOLINT

  Kind kind() const { return kind_; }
  bool is_integral() const { return kind_ == Kind::Int; }
  bool is_floating() const { return kind_ == Kind::Float; }
  bool is_bool() const { return kind_ == Kind::Bool; }

  double to_double() const { return kind_ == Kind::Float ? d_ : static_cast<double>(i_); }
  int64_t to_int() const { return kind_ == Kind::Float ? static_cast<int64_t>(d_) : i_; }
  bool to_bool() const { return kind_ == Kind::Float ? d_ != 0.0 : i_ != 0; }
  template <class T>
  T to() const {
    if constexpr (std::is_same_v<T, bool>) return to_bool();
    else if constexpr (std::is_floating_point_v<T> || is_reduced_float_v<T>) return to_double_as<T>();
    else return kind_ == Kind::Float ? static_cast<T>(d_) : static_cast<T>(i_);
  }

  /// The dtype a 0-d tensor made from this scalar gets: int64, the default float dtype, or bool.
  ScalarType dtype() const {
    return kind_ == Kind::Float ? default_dtype() : kind_ == Kind::Int ? kInt64 : kBool;
  }
  Scalar operator-() const { return kind_ == Kind::Float ? Scalar(-d_) : Scalar(-i_); }
  std::string str() const;

 private:
  template <class T>
  T to_double_as() const {
    if constexpr (is_reduced_float_v<T>) return T(static_cast<float>(to_double()));
    else return static_cast<T>(to_double());
  }
  Kind kind_;
  union {
    int64_t i_;
    double d_;
  };
};

}  // namespace ember
