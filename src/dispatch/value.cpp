#include "ember/value.h"

#include <iterator>
#include <string_view>

namespace ember {

Value::Value(const Scalar& s) {
  switch (s.kind()) {
    case Scalar::Kind::Int: v_ = s.to_int(); break;
    case Scalar::Kind::Float: v_ = s.to_double(); break;
    case Scalar::Kind::Bool: v_ = s.to_bool(); break;
    case Scalar::Kind::Complex: v_ = s.to_complex(); break;
  }
}

const char* Value::type_name() const {
  static constexpr const char* kNames[] = {"None",  "Tensor",     "int",      "float",
                                           "bool",  "int[]",      "float[]",  "Tensor[]",
                                           "Tensor?[]", "ScalarType", "Device", "str",
                                           "Generator", "Object", "complex"};
  static_assert(std::size(kNames) == std::variant_size_v<Storage>, "a name per alternative");
  if (is_object()) return std::get<intrusive_ptr<CustomClassHolder>>(v_)->class_name();
  return kNames[v_.index()];
}

namespace {
template <class T>
const T& get_as(const Value::Storage& v, const Value& self, const char* expected) {
  const T* p = std::get_if<T>(&v);
  EMBER_CHECK_TYPE(p != nullptr, "expected a value of type ", expected, " but got ", self.type_name());
  return *p;
}
}  // namespace

const Tensor& Value::to_tensor() const { return get_as<Tensor>(v_, *this, "Tensor"); }
Tensor& Value::to_tensor() { return const_cast<Tensor&>(get_as<Tensor>(v_, *this, "Tensor")); }
int64_t Value::to_int() const {
  if (is_bool()) return std::get<bool>(v_);
  return get_as<int64_t>(v_, *this, "int");
}
double Value::to_double() const {
  if (is_int()) return static_cast<double>(std::get<int64_t>(v_));
  return get_as<double>(v_, *this, "float");
}
bool Value::to_bool() const { return get_as<bool>(v_, *this, "bool"); }
Scalar Value::to_scalar() const {
  if (is_int()) return Scalar(std::get<int64_t>(v_));
  if (is_double()) return Scalar(std::get<double>(v_));
  if (is_bool()) return Scalar(std::get<bool>(v_));
  if (is_complex()) return Scalar(std::get<std::complex<double>>(v_));
  if (is_tensor()) {
    const Tensor& t = std::get<Tensor>(v_);
    EMBER_CHECK_TYPE(t.defined(), "expected a Number but got an undefined Tensor");
    EMBER_CHECK_TYPE(t.numel() == 1, "expected a Number but got a Tensor with ", t.numel(),
                     " elements");
    return t.item();
  }
  EMBER_FAIL_KIND(ErrorKind::Type, "expected a Number but got ", type_name());
}
const std::vector<int64_t>& Value::to_int_list() const {
  return get_as<std::vector<int64_t>>(v_, *this, "int[]");
}
const std::vector<double>& Value::to_double_list() const {
  return get_as<std::vector<double>>(v_, *this, "float[]");
}
const std::vector<Tensor>& Value::to_tensor_list() const {
  return get_as<std::vector<Tensor>>(v_, *this, "Tensor[]");
}
const Value::OptionalTensorList& Value::to_optional_tensor_list() const {
  return get_as<OptionalTensorList>(v_, *this, "Tensor?[]");
}
ScalarType Value::to_dtype() const { return get_as<ScalarType>(v_, *this, "ScalarType"); }
Device Value::to_device() const {
  if (is_string()) return Device(std::get<std::string>(v_));
  return get_as<Device>(v_, *this, "Device");
}
const std::string& Value::to_string_value() const {
  return get_as<std::string>(v_, *this, "str");
}
Generator* Value::to_generator() const {
  return is_none() ? nullptr : get_as<Generator*>(v_, *this, "Generator");
}

const intrusive_ptr<CustomClassHolder>& Value::to_object() const {
  return get_as<intrusive_ptr<CustomClassHolder>>(v_, *this, "Object");
}
void Value::object_class_error(const char* held, const char* expected) {
  // PyTorch's IValue::toCustomClass text (its "compilation unit" part aside).
  // Two C++ classes share PyTorch's name Conv2dPackedParamsBase (direct and transposed 2-d
  // convolutions, which PyTorch keeps in one class): say which kind was given.
  EMBER_CHECK(std::string_view(held) != expected, "Tried to convert an IValue of type ", held,
              " to custom class type ", expected, ": these packed weights are of another kind of "
              "convolution (transposed or not) than this op takes");
  EMBER_FAIL("Tried to convert an IValue of type ", held,
                  " to custom class type ", expected);
}

}  // namespace ember
