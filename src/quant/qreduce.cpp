// aten::mean / mean.dim on quantized tensors (PyTorch 1.13's mean_quantized_cpu): on the qnnpack
// engine, a 4-d quint8 mean over dims [2, 3] is QNNPACK's global average pooling; a contiguous
// mean over the innermost dims averages the codes; anything else dequantizes, takes the float
// mean and quantizes with the input's qparams. Output qparams are the input's.
#include <algorithm>

#include "ember/ops/reduce.h"
#include "ember/ops/view.h"
#include "ember/quantized/elementwise.h"
#include "qop_utils.h"

namespace ember {

namespace qk = cpu::quantized;
using quant_ops::codes;
using quant_ops::compute_codes_for;
using quant_ops::dense;
using quant_ops::empty_q;
using quant_ops::mutable_codes;
using quant_ops::qparams_of;
using quant_ops::visit_codes;

namespace {

bool innermost(std::vector<int64_t> dims, int64_t ndim) {
  for (auto& d : dims) d = wrap_dim(d, ndim);
  std::sort(dims.begin(), dims.end(), std::greater<int64_t>());
  bool inner = dims.empty() || dims[0] == ndim - 1;
  for (size_t i = 1; i < dims.size(); ++i) inner = inner && dims[i] == dims[i - 1] - 1;
  return inner;
}

Tensor qmean(const Tensor& qx, const std::vector<int64_t>& dims, bool keepdim,
             std::optional<ScalarType> dtype) {
  const auto p = qparams_of(qx);
  if (quantized_engine() == QEngine::QNNPACK && qx.dtype() == kQUInt8 && qx.dim() == 4 &&
      dims.size() == 2 && dims[0] == 2 && dims[1] == 3) {
    const Tensor x = dense(qx, MemoryFormat::ChannelsLast);
    qk::QPool2d g{qx.size(0), qx.size(1), qx.size(2), qx.size(3), 1, 1,
                  qx.size(2), qx.size(3), 1,          1,          0, 0};
    // An [N, C, 1, 1] NHWC output has the memory order of a contiguous [N, C].
    std::vector<int64_t> sizes{qx.size(0), qx.size(1)};
    if (keepdim) sizes.insert(sizes.end(), {1, 1});
    Tensor out = empty_q(qx, sizes, kQUInt8, p, MemoryFormat::Contiguous);
    if (out.numel() > 0 && !out.is_meta()) {
      qk::qavg_pool2d<uint8_t>(codes<uint8_t>(x), mutable_codes<uint8_t>(out), g, true, true, 0, p,
                               p, qk::QAvgFormula::Qnnpack);
    }
    return out;
  }
  if (qx.is_contiguous() && innermost(dims, qx.dim()) && (!dtype || *dtype == qx.dtype())) {
    const size_t nred = dims.empty() ? static_cast<size_t>(qx.dim()) : dims.size();
    auto out_dims = qx.sizes().vec();
    int64_t n = 1;
    for (size_t i = 0; i < nred; ++i) {
      n *= out_dims[out_dims.size() - 1 - i];
      out_dims[out_dims.size() - 1 - i] = 1;
    }
    if (!keepdim) out_dims.resize(out_dims.size() - nred);
    Tensor out = empty_q(qx, out_dims, qx.dtype(), p, MemoryFormat::Contiguous);
    const int64_t m = out.numel();
    if (m > 0 && n > 0) {
      compute_codes_for(out, qx.dtype(), [&]<class T>() {
        qk::qmean_inner<T>(codes<T>(qx), mutable_codes<T>(out), m, n);
      });
    }
    return out;
  }
  const Tensor f = ember::mean(dequantize(qx), dims.empty() ? std::nullopt : std::optional(dims),
                               keepdim, dtype);
  return quantize_per_tensor(f, p.scale, p.zero_point, dtype.value_or(qx.dtype()));
}

Tensor mean_q(const Tensor& qx, const std::optional<ScalarType>& dtype) {
  return qmean(qx, {}, false, dtype);
}
Tensor mean_dim_q(const Tensor& qx, const std::optional<std::vector<int64_t>>& dims,
                  const bool& keepdim, const std::optional<ScalarType>& dtype) {
  return qmean(qx, dims.value_or(std::vector<int64_t>{}), keepdim, dtype);
}

}  // namespace

EMBER_REGISTER_QUANTIZED(mean, &mean_q);
EMBER_REGISTER_QUANTIZED(mean_dim, &mean_dim_q);

}  // namespace ember
