#include "pointwise_helpers.h"

#include <cmath>
#include <limits>

#include "../dispatch/dispatcher.h"

namespace ember::ops {

namespace {

// The names PyTorch's Scalar accessors pass to checked_convert.
const char* scalar_accessor_name(ScalarType t) {
  switch (t) {
    case kUInt8: return "uint8_t";
    case kInt8: return "int8_t";
    case kInt16: return "int16_t";
    case kInt32: return "int";
    case kInt64: return "int64_t";
    case kFloat16: return "at::Half";
    case kBFloat16: return "at::BFloat16";
    case kFloat32: return "float";
    case kFloat64: return "double";
    case kBool: return "bool";
    case kComplexFloat: return "c10::complex<float>";
    case kComplexDouble: return "c10::complex<double>";
    default: return dtype_name(t);
  }
}

struct Limits {
  double lowest, max;
};

Limits limits_of(ScalarType t) {
  return visit_dtype(t, [&]<class T>() {
    return Limits{static_cast<double>(static_cast<opmath_t<T>>(std::numeric_limits<T>::lowest())),
                  static_cast<double>(static_cast<opmath_t<T>>(std::numeric_limits<T>::max()))};
  });
}

bool overflows(const Scalar& v, ScalarType t) {
  if (t == kBool || v.is_bool()) return false;
  if (is_complex(t)) return false;  // any number fits (inf and nan included)
  // A complex value into a real dtype: PyTorch's checked_convert refuses a non-zero imaginary part.
  if (v.is_complex() && v.to_complex().imag() != 0) return true;
  const Limits lim = limits_of(t);
  if (v.is_floating() || v.is_complex()) {
    double d = v.to_double();
    if (is_floating(t) && std::isinf(d)) return false;
    if (!is_floating(t) && std::isnan(d)) return true;
    return d < lim.lowest || d > lim.max;
  }
  int64_t i = v.to_int();
  if (t == kUInt8) {  // negative values wrap, down to -max
    return static_cast<double>(i) > lim.max ||
           (i < 0 && static_cast<double>(-static_cast<uint64_t>(i)) > lim.max);
  }
  if (t == kInt64) return false;
  return static_cast<double>(i) < lim.lowest || static_cast<double>(i) > lim.max;
}

bool dense(const Tensor& t) { return t.dim() == 0 || !dense_strides_or_empty(t).empty(); }

}  // namespace

void check_scalar_fits(const Scalar& value, ScalarType dtype) {
  EMBER_CHECK(!overflows(value, dtype), "value cannot be converted to type ",
              scalar_accessor_name(dtype), " without overflow");
}

const char* typemeta_name(ScalarType t) {
  switch (t) {
    case kUInt8: return "unsigned char";
    case kInt8: return "signed char";
    case kInt16: return "short int";
    case kInt32: return "int";
    case kInt64: return "long int";
    case kFloat16: return "c10::Half";
    case kBFloat16: return "c10::BFloat16";
    case kFloat32: return "float";
    case kFloat64: return "double";
    case kBool: return "bool";
    case kComplexFloat: return "c10::complex<float>";
    case kComplexDouble: return "c10::complex<double>";
    default: return dtype_name(t);
  }
}

Tensor inplace_input(const Tensor& self, const Tensor& input) {
  if (!may_overlap(self, input)) return input;
  const bool same_view = self.data_ptr() == input.data_ptr() &&
                         self.sizes().equals(input.sizes()) &&
                         self.strides().equals(input.strides());
  if (same_view) return input;
  EMBER_CHECK(!(dense(self) && dense(input)),
              "unsupported operation: some elements of the input tensor and the written-to "
              "tensor refer to a single memory location. Please clone() the tensor before "
              "performing the operation.");
  return clone(input);
}

Tensor original_self(const Tensor& self) {
  // PyTorch's copy is self.clone(), recorded as CloneBackward0. Until clone has a backward rule
  // here, an unrecorded clone would cut the copy from self's history and lose every second
  // derivative through it; self * 1 records MulBackward0 and changes no value (-0.0, NaN and
  // infinities included). Only tensors that require grad (floating) take that path.
  if (!self.requires_grad() || dispatch::autograd_slot(dispatch::OpId::clone).fn != nullptr) {
    return self.clone();
  }
  return self * 1;
}

}  // namespace ember::ops
