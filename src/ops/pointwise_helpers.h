// Steps shared by the elementwise op families of binary.cpp, unary.cpp, compare.cpp,
// activation.cpp and pointwise.cpp, beside the general ones of elementwise.h: PyTorch's checked
// Scalar conversion, its partial-overlap rule for in-place ops, and the in-place write.
#pragma once

#include "../backends/cpu/copy_kernel.h"
#include "elementwise.h"

namespace ember::ops {

/// Refuses a Scalar that `dtype` cannot hold, as PyTorch's Scalar::to<T>() does when a kernel
/// reads a Scalar argument (clamp limits, masked_fill values, alpha, integer exponents):
/// "value cannot be converted to type int8_t without overflow". As there, bool takes anything,
/// infinities fit floating types, NaN fits no integer type, and unsigned types accept negative
/// integers down to -max (they wrap, two's complement).
void check_scalar_fits(const Scalar& value, ScalarType dtype);

/// The C++ type name PyTorch prints for a dtype in a few messages ("long int", "signed char"),
/// where it streams a caffe2::TypeMeta rather than a ScalarType.
const char* typemeta_name(ScalarType t);

/// `input` as an in-place op may read it while writing `self`. Inputs that share part of
/// self's memory are refused as PyTorch refuses them ("unsupported operation: some elements of
/// the input tensor and the written-to tensor refer to a single memory location...") when both
/// are dense; other overlapping layouts (PyTorch's "too hard to tell") are copied first, so the
/// result never depends on the order elements are written. Identical views pass unchanged.
Tensor inplace_input(const Tensor& self, const Tensor& input);

/// The checks every in-place elementwise op makes before writing: self holds the broadcast
/// shape, accepts the compute dtype, and has no element aliasing another.
inline void check_inplace_elementwise(const char* op, const Tensor& self, IntArrayRef shape,
                                      ScalarType compute_dtype) {
  check_inplace(op, self, shape, compute_dtype);
  check_no_internal_overlap(op, self);
}

/// Runs an in-place op's kernel: `compute(out)` writes the result in `compute_dtype`, into self
/// when that is self's dtype, else into a temporary narrowed into self afterwards (so self is
/// untouched if compute throws). Meta tensors have nothing to write.
template <class F>
void write_inplace(const Tensor& self, ScalarType compute_dtype, F&& compute) {
  if (self.is_meta()) return;
  if (self.dtype() == compute_dtype) {
    compute(self);
    return;
  }
  Tensor tmp = empty(self.sizes(), TensorOptions(compute_dtype).device(self.device()));
  compute(tmp);
  cpu::copy_kernel(self, tmp);
}

/// out = clamp(in, min, max) for `in` already of out's dtype (clamp, clamp_, hardtanh): a NaN
/// limit (both given) fills NaN, as PyTorch does; the limits must fit the dtype
/// (check_scalar_fits). Defined in pointwise.cpp.
void clamp_into(const Tensor& out, const Tensor& in, const std::optional<Scalar>& min,
                const std::optional<Scalar>& max);

// Note [Saved self of in-place rules]
// An in-place op's rule that reads self needs self's value from before the write: the autograd
// kernel saves a copy first (original_self, PyTorch's original self.clone()), and only when a
// gradient that reads it is wanted. A rule reading the result saves self after the write, as an
// output. Every saved tensor is unpacked when the node runs, as PyTorch's generated nodes do, so
// the "modified by an inplace operation" error fires for any of them.

/// For the backward rule of an in-place op that reads self's old value: a copy of self taken
/// before the write, carrying self's history (Note [Saved self of in-place rules]). Defined in
/// pointwise_helpers.cpp.
Tensor original_self(const Tensor& self);

/// A new output of `shape` and `dtype` on `device`.
inline Tensor new_output(IntArrayRef shape, ScalarType dtype, Device device) {
  return empty(shape, TensorOptions(dtype).device(device));
}
/// The same, laid out as PyTorch lays out an elementwise result of `inputs` (channels_last in,
/// channels_last out: Note [Elementwise output layout]).
inline Tensor new_output(IntArrayRef shape, ScalarType dtype, Device device,
                         ArrayRef<Tensor> inputs) {
  const DimVector strides = elementwise_output_strides(shape, inputs);
  if (strides.empty()) return new_output(shape, dtype, device);
  return empty_strided(shape, strides, TensorOptions(dtype).device(device));
}

}  // namespace ember::ops
