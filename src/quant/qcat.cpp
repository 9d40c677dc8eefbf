// quantized::cat / cat_relu and the QuantizedCPU kernel of aten::cat (PyTorch 1.13's qconcat):
// channels_last 4-d inputs joined along dim 1 take the NHWC kernel (each input requantized to the
// output qparams, or copied when they match); anything else dequantizes, joins in float and
// quantizes (spec § 7.4).
#include "../dispatch/boxing.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/view.h"
#include "ember/quantized/elementwise.h"
#include "qop_utils.h"

namespace ember {

using dispatch::OpId;
namespace qk = cpu::quantized;
using quant_ops::codes;
using quant_ops::compute_codes_for;
using quant_ops::empty_q;
using quant_ops::mutable_codes;
using quant_ops::qparams_of;
using quant_ops::visit_codes;

namespace {

bool per_tensor(const Tensor& t) {
  const QScheme s = qscheme(t);
  return s == QScheme::PerTensorAffine || s == QScheme::PerTensorSymmetric;
}

bool nhwc_fast_path(ArrayRef<Tensor> qxs, int64_t dim) {
  bool fast = dim == 1;
  for (const auto& t : qxs)
    fast = fast && t.dim() == 4 && t.is_contiguous(MemoryFormat::ChannelsLast);
  return fast;
}

Tensor cat_nhwc(ArrayRef<Tensor> qxs, double scale, int64_t zero_point, bool relu) {
  const Tensor& x0 = qxs[0];
  int64_t c_out = 0;
  for (const auto& t : qxs) {
    EMBER_CHECK(t.dim() == x0.dim(), "Tensors must have the same number of dimensions: got ",
                t.dim(), " and ", x0.dim());
    for (int64_t d : {0, 2, 3}) {
      EMBER_CHECK(t.size(d) == x0.size(d), "Sizes of tensors must match expect in dimension 1. Got",
                  t.size(d), " and ", x0.size(d));
    }
    EMBER_CHECK(t.dtype() == x0.dtype(), "Expected object of scalar type ",
                scalar_type_name(x0.dtype()), " but got scalar type ", scalar_type_name(t.dtype()));
    c_out += t.size(1);
  }
  Tensor out = empty_q(x0, {x0.size(0), c_out, x0.size(2), x0.size(3)}, x0.dtype(),
                       {scale, zero_point}, MemoryFormat::ChannelsLast);
  const int64_t pixels = x0.size(0) * x0.size(2) * x0.size(3);
  compute_codes_for(out, x0.dtype(), [&]<class T>() {
    int64_t c0 = 0;
    for (const auto& t : qxs) {
      const int64_t c = t.size(1);
      const auto p = qparams_of(t);
      T* y = mutable_codes<T>(out) + c0;
      if (p.scale == scale && p.zero_point == zero_point && !relu) {
        for (int64_t i = 0; i < pixels; ++i) std::copy_n(codes<T>(t) + i * c, c, y + i * c_out);
      } else {
        const qk::QUnarySpec spec{
            relu ? qk::QUnaryFn::RequantRelu : qk::QUnaryFn::Requant, p, {scale, zero_point}};
        qk::qunary_rows<T>(codes<T>(t), y, pixels, c, c_out, 8, spec);
      }
      c0 += c;
    }
  });
  return out;
}

Tensor cat_impl(ArrayRef<Tensor> qxs, int64_t dim, double scale, int64_t zero_point, bool relu) {
  if (nhwc_fast_path(qxs, dim)) return cat_nhwc(qxs, scale, zero_point, relu);
  const ScalarType dtype = qxs[0].dtype();
  const QScheme scheme = qscheme(qxs[0]);
  std::vector<Tensor> xs;
  for (const auto& t : qxs) {
    EMBER_CHECK(t.dtype() == dtype, "All dtypes must be the same.");
    EMBER_CHECK(qscheme(t) == scheme, "Quantization schemes must be the same.");
    xs.push_back(dequantize(t));
  }
  Tensor qy = quantize_per_tensor(ember::cat(xs, dim), scale, zero_point, dtype);
  // PyTorch's cat keeps the inputs' layout when they all suggest the same one.
  const MemoryFormat fmt = qxs[0].suggest_memory_format();
  bool same = true;
  for (const auto& t : qxs) same = same && t.suggest_memory_format() == fmt;
  if (same) qy = quant_ops::dense(qy, fmt);
  if (relu) {
    compute_codes_for(qy, dtype, [&]<class T>() {
      Tensor y = quant_ops::dense(qy, qy.suggest_memory_format());
      qk::qclamp_codes<T>(codes<T>(y), mutable_codes<T>(y), y.numel(), zero_point,
                          qk::qmax_of<T>());
      qy = y;
    });
  }
  return qy;
}

Tensor qcat_any(const std::vector<Tensor>& qxs, int64_t dim, const std::optional<double>& scale,
                const std::optional<int64_t>& zero_point, bool relu) {
  EMBER_CHECK(!qxs.empty(), "quantized::cat: expected a non-empty list of Tensors");
  EMBER_CHECK(per_tensor(qxs[0]), "Only per-tensor quantization is supported in 'cat'!");
  return cat_impl(qxs, dim, scale ? *scale : q_scale(qxs[0]),
                  zero_point ? *zero_point : q_zero_point(qxs[0]), relu);
}

Tensor qcat_q(const std::vector<Tensor>& qxs, const int64_t& dim, const std::optional<double>& s,
              const std::optional<int64_t>& z) {
  return qcat_any(qxs, dim, s, z, false);
}
Tensor qcat_relu_q(const std::vector<Tensor>& qxs, const int64_t& dim,
                   const std::optional<double>& s, const std::optional<int64_t>& z) {
  return qcat_any(qxs, dim, s, z, true);
}

// aten::cat on quantized tensors: the first input's qparams.
Tensor aten_cat_q(const ArrayRef<Tensor>& qxs, const int64_t& dim) {
  EMBER_CHECK(!qxs.empty(), "ember.cat(): expected a non-empty list of Tensors");
  EMBER_CHECK(per_tensor(qxs[0]), "Only per-tensor quantization is supported in 'cat'!");
  for (size_t i = 0; i < qxs.size(); ++i) {
    EMBER_CHECK(qxs[i].dim() > 0, "zero-dimensional tensor (at position ", i,
                ") cannot be concatenated");
  }
  return cat_impl(qxs, wrap_dim(dim, qxs[0].dim()), q_scale(qxs[0]), q_zero_point(qxs[0]), false);
}

Tensor qcat_cpu(const std::vector<Tensor>&, int64_t, std::optional<double>,
                std::optional<int64_t>) {
  dispatch::no_kernel_error(OpId::quantized_cat, "CPU");
}
Tensor qcat_relu_cpu(const std::vector<Tensor>&, int64_t, std::optional<double>,
                     std::optional<int64_t>) {
  dispatch::no_kernel_error(OpId::quantized_cat_relu, "CPU");
}

}  // namespace

EMBER_REGISTER_QUANTIZED(quantized_cat, &qcat_q);
EMBER_REGISTER_QUANTIZED(quantized_cat_relu, &qcat_relu_q);
EMBER_REGISTER_QUANTIZED(cat, &aten_cat_q);

namespace quantized {
Tensor cat(const std::vector<Tensor>& qx, int64_t dim, std::optional<double> scale,
           std::optional<int64_t> zero_point) {
  return dispatch::call<qcat_cpu>(OpId::quantized_cat, qx, dim, scale, zero_point);
}
Tensor cat_relu(const std::vector<Tensor>& qx, int64_t dim, std::optional<double> scale,
                std::optional<int64_t> zero_point) {
  return dispatch::call<qcat_relu_cpu>(OpId::quantized_cat_relu, qx, dim, scale, zero_point);
}
}  // namespace quantized

EMBER_REGISTER_OP(quantized_cat, &quantized::cat);
EMBER_REGISTER_OP(quantized_cat_relu, &quantized::cat_relu);

}  // namespace ember
