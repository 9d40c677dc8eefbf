// torch.result_type, as PyTorch computes it: operands fall in three priority classes —
// dimensioned tensors, 0-d tensors, wrapped numbers (C++/Python scalars). A lower class only
// matters when it belongs to a higher category (bool < integral < floating) than everything
// above it, and then it contributes its category's default (for wrapped floats: default_dtype()).
#include "ember/ops/pointwise.h"

namespace ember {

namespace {

enum Category { kBoolCat, kIntCat, kFloatCat, kComplexCat };

Category category(ScalarType t) {
  if (t == kBool) return kBoolCat;
  if (is_complex(t)) return kComplexCat;
  return is_floating(t) ? kFloatCat : kIntCat;
}

struct ResultTypeState {
  ScalarType dim_result = ScalarType::Undefined;
  ScalarType zero_result = ScalarType::Undefined;
  ScalarType wrapped_result = ScalarType::Undefined;

  void update(const Tensor& t) {
    ScalarType current = t.dtype();
    if (t.impl()->is_wrapped_number()) {
      if (is_floating(current)) current = default_dtype();
      else if (is_complex(current)) current = default_complex_dtype();
      wrapped_result = promote_types(wrapped_result, current);
    } else if (t.dim() == 0) {
      zero_result = promote_types(zero_result, current);
    } else {
      dim_result = promote_types(dim_result, current);
    }
  }
};

// The higher-priority result wins unless the lower one is of a higher category.
ScalarType combine_categories(ScalarType higher, ScalarType lower) {
  if (higher == ScalarType::Undefined) return lower;
  if (lower == ScalarType::Undefined) return higher;
  if (category(higher) >= category(lower)) return higher;
  // lower has the higher category: bool with int → the int; int/bool with float → the float.
  // A complex lower with a float higher keeps the float's width (float64 tensor * 1j is
  // complex128, a float32 tensor times a complex128 0-d tensor complex64), as PyTorch's
  // result_type (float16 gives complex64: ember has no complex32).
  if (category(lower) == kComplexCat && category(higher) == kFloatCat) return to_complex_type(higher);
  return lower;
}

ScalarType result(const ResultTypeState& s) {
  return combine_categories(s.dim_result, combine_categories(s.zero_result, s.wrapped_result));
}

}  // namespace

ScalarType result_type(ArrayRef<Tensor> operands) {
  ResultTypeState s;
  for (const auto& t : operands) s.update(t);
  return result(s);
}

ScalarType result_type(const Tensor& a, const Tensor& b) {
  ResultTypeState s;
  s.update(a);
  s.update(b);
  return result(s);
}

ScalarType result_type(const Tensor& a, const Scalar& b) {
  ResultTypeState s;
  s.update(a);
  ScalarType bt = b.dtype();  // int64, default float, or bool: the weak wrapped-number dtype
  s.wrapped_result = bt;
  return result(s);
}

bool can_cast(ScalarType from, ScalarType to) {
  if (is_complex(from) && !is_complex(to)) return false;
  if (is_floating(from) && is_integral(to, /*include_bool=*/false)) return false;
  if (from != kBool && to == kBool) return false;
  return true;
}

}  // namespace ember
