// What the observer and fake-quantize sources share: float32 views of tensors, torch's NaN-
// propagating min/max, its `check_min_max_valid`, and Python's str() of a float (observers'
// reprs format 0-dim buffers through Tensor.__format__, i.e. as Python floats).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ember/nn/state_dict.h"
#include "ember/quantization/observer.h"
#include "ember/tensor.h"

namespace ember::quantization::detail {

/// The values of `t` (any real dtype) as float32, in row-major order.
std::vector<float> floats(const Tensor& t);
/// A 0-dim float32 tensor.
Tensor scalar_f32(float v);
/// (min, max) of non-empty `v`; NaN if any element is NaN (torch.aminmax).
std::pair<float, float> aminmax(const std::vector<float>& v);
/// torch.minimum / torch.maximum of two floats: NaN if either is NaN.
float fmin_nan(float a, float b);
float fmax_nan(float a, float b);
/// torch's `t.resize_(shape)`: in place, silently (the tensor object kept; contents undefined
/// when the size changes).
void resize_(const Tensor& t, IntArrayRef shape);
/// torch's `buffer.resize_(v.shape); buffer.copy_(v)`: in place (the buffer object kept) when
/// the dtype allows, else a fresh buffer.
void store(Tensor& buffer, const Tensor& value);
/// Python's floor division of integers.
inline int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
/// torch's `check_min_max_valid`: false (with its warning) for empty or uncalibrated 0-dim
/// statistics; AssertionError "min ... should be less than max ..." when min > max (or NaN).
bool check_min_max_valid(const Tensor& min_val, const Tensor& max_val);
/// (tensor([1.0]), tensor([0])): what an uncalibrated observer returns.
std::pair<Tensor, Tensor> default_qparams();
/// `local_metadata.get("version")`, 0 when absent.
int64_t metadata_version(const nn::LocalMetadata& md);
/// `"{}".format(t)`: a 0-dim tensor as Python's str of its float value, others as repr.
std::string format_tensor(const Tensor& t);
/// `o`, after torch's "<type_name>'s qscheme only support ..." NotImplementedError check.
const ObserverOptions& per_tensor_only(const ObserverOptions& o, const std::string& type_name);
/// Python's repr of a float ("1.0", "0.1", "1e-05", "inf", "nan").
std::string python_float(double v);

}  // namespace ember::quantization::detail
