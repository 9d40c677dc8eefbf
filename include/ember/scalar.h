// A number that is not a tensor: an int, a float, a complex or a bool, remembering which.
//
//   ember::Scalar s = 2.5;  s.is_floating();  // true
//   t.add(1);               // 1 is a "weak" int scalar: int tensors stay int, float stay float
#pragma once

#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>

#include "ember/dtype.h"
#include "ember/error.h"

namespace ember {

class Scalar {
 public:
  enum class Kind : uint8_t { Int, Float, Bool, Complex };

  Scalar() : Scalar(int64_t{0}) {}
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : kind_(Kind::Int), i_(static_cast<int64_t>(v)) {}  // NOLINT
  template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T v) : kind_(Kind::Float), d_(static_cast<double>(v)) {}  // NOLINT
  Scalar(bool v) : kind_(Kind::Bool), i_(v) {}                     // NOLINT
  Scalar(Half v) : Scalar(static_cast<float>(v)) {}                // NOLINT
  Scalar(BFloat16 v) : Scalar(static_cast<float>(v)) {}            // NOLINT
  template <class T>
  Scalar(std::complex<T> v) : kind_(Kind::Complex), d_(static_cast<double>(v.real())), im_(static_cast<double>(v.imag())) {}  // NOLINT

  Kind kind() const { return kind_; }
  bool is_integral() const { return kind_ == Kind::Int; }
  bool is_floating() const { return kind_ == Kind::Float; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_complex() const { return kind_ == Kind::Complex; }

  /// A complex scalar converts to real types through its real part, as a cast does.
  double to_double() const { return has_double() ? d_ : static_cast<double>(i_); }
  int64_t to_int() const { return has_double() ? static_cast<int64_t>(d_) : i_; }
  bool to_bool() const {
    return kind_ == Kind::Complex ? (d_ != 0.0 || im_ != 0.0) : kind_ == Kind::Float ? d_ != 0.0 : i_ != 0;
  }
  std::complex<double> to_complex() const {
    return kind_ == Kind::Complex ? std::complex<double>(d_, im_) : std::complex<double>(to_double(), 0.0);
  }
  template <class T>
  T to() const {
    if constexpr (std::is_same_v<T, bool>) return to_bool();
    else if constexpr (is_complex_v<T>) return T(to_complex());
    else if constexpr (std::is_floating_point_v<T> || is_reduced_float_v<T>) return to_double_as<T>();
    else return kind_ == Kind::Float ? static_cast<T>(d_) : static_cast<T>(i_);
  }

  /// The dtype a 0-d tensor made from this scalar gets: int64, the default float dtype, its
  /// complex twin, or bool.
  ScalarType dtype() const {
    return kind_ == Kind::Complex ? default_complex_dtype()
           : kind_ == Kind::Float ? default_dtype()
           : kind_ == Kind::Int   ? kInt64
                                  : kBool;
  }
  Scalar operator-() const {
    return kind_ == Kind::Complex ? Scalar(-to_complex()) : kind_ == Kind::Float ? Scalar(-d_) : Scalar(-i_);
  }
  std::string str() const;

 private:
  template <class T>
  T to_double_as() const {
    if constexpr (is_reduced_float_v<T>) return T(static_cast<float>(to_double()));
    else return static_cast<T>(to_double());
  }
  bool has_double() const { return kind_ == Kind::Float || kind_ == Kind::Complex; }
  Kind kind_;
  union {
    int64_t i_;
    double d_;
  };
  double im_ = 0.0;  // the imaginary part of a Complex scalar
};

}  // namespace ember
