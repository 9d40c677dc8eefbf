// Value: one boxed argument or result, as the override layers, Python and fallbacks see ops.
//
//   ember::Stack args{ember::Value(t), ember::Value(2.0)};
//   if (args[0].is_tensor()) { const ember::Tensor& x = args[0].to_tensor(); }
//
// Scalars box as Int / Double / Bool; `None` stands for an absent optional. A Generator is boxed
// as a pointer that does not own it: the caller keeps it alive for the call, as for the
// unboxed `Generator*` parameters. Objects of C++ classes (packed weights, CustomClassHolder) box
// as Object, by reference: the Value shares the object.
#pragma once

#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "ember/custom_class.h"
#include "ember/device.h"
#include "ember/dtype.h"
#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember {

class Value {
 public:
  using OptionalTensorList = std::vector<std::optional<Tensor>>;
  using Storage = std::variant<std::monostate, Tensor, int64_t, double, bool,
                               std::vector<int64_t>, std::vector<double>, std::vector<Tensor>,
                               OptionalTensorList, ScalarType, Device, std::string, Generator*,
                               intrusive_ptr<CustomClassHolder>, std::complex<double>>;

  Value() = default;  // None
  Value(std::nullopt_t) {}  // NOLINT
  Value(Tensor t) : v_(std::move(t)) {}  // NOLINT
  Value(int64_t i) : v_(i) {}  // NOLINT
  Value(int i) : v_(int64_t{i}) {}  // NOLINT
  Value(double d) : v_(d) {}  // NOLINT
  Value(std::complex<double> c) : v_(c) {}  // NOLINT
  Value(bool b) : v_(b) {}  // NOLINT
  Value(const Scalar& s);  // NOLINT: Int, Double or Bool by the scalar's kind
  Value(std::vector<int64_t> l) : v_(std::move(l)) {}  // NOLINT
  Value(IntArrayRef l) : v_(l.vec()) {}  // NOLINT
  Value(std::vector<double> l) : v_(std::move(l)) {}  // NOLINT
  Value(std::vector<Tensor> l) : v_(std::move(l)) {}  // NOLINT
  Value(OptionalTensorList l) : v_(std::move(l)) {}  // NOLINT
  Value(ScalarType t) : v_(t) {}  // NOLINT
  Value(Device d) : v_(d) {}  // NOLINT
  Value(std::string s) : v_(std::move(s)) {}  // NOLINT
  Value(const char* s) : v_(std::string(s)) {}  // NOLINT
  Value(Generator* g) {  // NOLINT: nullptr is None, the default generator
    if (g) v_ = g;
  }
  template <class T, class = std::enable_if_t<std::is_base_of_v<CustomClassHolder, T>>>
  Value(intrusive_ptr<T> obj) {  // NOLINT: a null object is None
    if (obj) v_ = intrusive_ptr<CustomClassHolder>(std::move(obj));
  }
  template <class T>
  Value(const std::optional<T>& o) {  // NOLINT
    if (o) *this = Value(*o);
  }

  bool is_none() const { return std::holds_alternative<std::monostate>(v_); }
  bool is_tensor() const { return std::holds_alternative<Tensor>(v_); }
  bool is_int() const { return std::holds_alternative<int64_t>(v_); }
  bool is_double() const { return std::holds_alternative<double>(v_); }
  bool is_bool() const { return std::holds_alternative<bool>(v_); }
  bool is_complex() const { return std::holds_alternative<std::complex<double>>(v_); }
  bool is_scalar() const { return is_int() || is_double() || is_bool() || is_complex(); }
  bool is_int_list() const { return std::holds_alternative<std::vector<int64_t>>(v_); }
  bool is_double_list() const { return std::holds_alternative<std::vector<double>>(v_); }
  bool is_tensor_list() const { return std::holds_alternative<std::vector<Tensor>>(v_); }
  bool is_optional_tensor_list() const { return std::holds_alternative<OptionalTensorList>(v_); }
  bool is_dtype() const { return std::holds_alternative<ScalarType>(v_); }
  bool is_device() const { return std::holds_alternative<Device>(v_); }
  bool is_string() const { return std::holds_alternative<std::string>(v_); }
  bool is_generator() const { return std::holds_alternative<Generator*>(v_); }
  bool is_object() const { return std::holds_alternative<intrusive_ptr<CustomClassHolder>>(v_); }

  // Accessors throw ember::Error (TypeError) naming what was expected and what is held.
  const Tensor& to_tensor() const;
  Tensor& to_tensor();
  int64_t to_int() const;
  double to_double() const;  // accepts Int too
  bool to_bool() const;
  Scalar to_scalar() const;
  const std::vector<int64_t>& to_int_list() const;
  const std::vector<double>& to_double_list() const;
  const std::vector<Tensor>& to_tensor_list() const;
  const OptionalTensorList& to_optional_tensor_list() const;
  ScalarType to_dtype() const;
  Device to_device() const;
  const std::string& to_string_value() const;
  Generator* to_generator() const;  // None gives nullptr (the default generator)
  const intrusive_ptr<CustomClassHolder>& to_object() const;
  /// The object as class T (which names itself in T::kClassName); RuntimeError with PyTorch's text
  /// when it is of another class.
  template <class T>
  intrusive_ptr<T> to_object() const {
    const auto& o = to_object();
    T* p = dynamic_cast<T*>(o.get());
    if (!p) object_class_error(o->class_name(), T::kClassName);
    return intrusive_ptr<T>(p);
  }

  /// "Tensor", "int", "float", "bool", "int[]", "Tensor[]", "ScalarType", "None", ..., and an
  /// object's class name.
  const char* type_name() const;
  const Storage& storage() const { return v_; }

 private:
  [[noreturn]] static void object_class_error(const char* held, const char* expected);
  Storage v_;
};

using Stack = std::vector<Value>;

}  // namespace ember
