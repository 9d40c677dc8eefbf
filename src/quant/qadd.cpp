// quantized::add / add_relu / mul / mul_relu / add_scalar(_relu) / mul_scalar(_relu): checks,
// output qparams and layout as PyTorch 1.13, numerics by the engine active at the call (spec
// §§ 5, 7.2, 7.4). Kernels: src/backends/cpu/quantized/qbinary_kernels.cpp.
#include <cmath>

#include "../dispatch/boxing.h"
#include "../ops/elementwise.h"
#include "ember/quantized/elementwise.h"
#include "qop_utils.h"

namespace ember {

using dispatch::OpId;
namespace qk = cpu::quantized;
using quant_ops::codes;
using quant_ops::compute_codes_for;
using quant_ops::dense;
using quant_ops::empty_q;
using quant_ops::mutable_codes;
using quant_ops::qparams_of;
using quant_ops::visit_codes;

namespace {

enum class BinOp { Add, Mul };

void check_binary_inputs(BinOp op, const Tensor& qa, const Tensor& qb) {
  const char* name = op == BinOp::Add ? "Add" : "Mul";
  EMBER_CHECK(qscheme(qa) == QScheme::PerTensorAffine,
              "Only per tensor quantization is supported in ", name, ".");
  if (op == BinOp::Add) {
    EMBER_CHECK(qscheme(qa) == qscheme(qb),
                "Both inputs to Add must have the same quantization scheme.");
    EMBER_CHECK(qa.dtype() == qb.dtype(), "Add operands should have same data type.");
  } else {
    EMBER_CHECK(qa.dtype() == qb.dtype(), "Mul operands should have same data type.");
    EMBER_CHECK(qscheme(qa) == qscheme(qb),
                "Both inputs to Mul must have the same quantization scheme.");
  }
}

// Dims from innermost to outermost in memory order of a dense tensor in `fmt`.
std::vector<int64_t> inner_first_dims(int64_t nd, MemoryFormat fmt) {
  if (fmt == MemoryFormat::ChannelsLast && nd == 4) return {1, 3, 2, 0};
  std::vector<int64_t> d;
  for (int64_t i = nd - 1; i >= 0; --i) d.push_back(i);
  return d;
}

// Element strides of t broadcast to `sizes` (0 along broadcast dims).
std::vector<int64_t> broadcast_strides(const Tensor& t, IntArrayRef sizes) {
  const int64_t nd = static_cast<int64_t>(sizes.size()), off = nd - t.dim();
  std::vector<int64_t> st(static_cast<size_t>(nd), 0);
  for (int64_t d = off; d < nd; ++d) {
    st[d] = (t.size(d - off) == 1 && sizes[d] != 1) ? 0 : t.stride(d - off);
  }
  return st;
}

// Note [Rows of PyTorch's element-wise loops]: PyTorch's TensorIterator walks the output in
// memory order after merging dims that every operand strides through contiguously; each inner
// row of `row` elements is one call of its loop, whose vectorised part is the row's first
// vec_part(row) elements (Note [PyTorch's two formulas]). A row whose input strides are neither
// dense nor 0 runs the scalar loop only (returned as row = 1).
int64_t pytorch_inner_row(IntArrayRef sizes, MemoryFormat fmt, const Tensor& out,
                          const std::vector<std::vector<int64_t>>& in_strides) {
  const int64_t nd = static_cast<int64_t>(sizes.size());
  if (nd == 0) return 1;
  std::vector<std::vector<int64_t>> st = in_strides;
  st.push_back(out.strides().vec());
  const auto order = inner_first_dims(nd, fmt);
  int64_t shape0 = sizes[order[0]];
  std::vector<int64_t> s0;
  for (auto& s : st) s0.push_back(s[order[0]]);
  for (size_t k = 1; k < order.size(); ++k) {
    const int64_t d = order[k];
    bool ok = shape0 == 1 || sizes[d] == 1;
    if (!ok) {
      ok = true;
      for (size_t i = 0; i < st.size(); ++i) ok = ok && shape0 * s0[i] == st[i][d];
    }
    if (!ok) break;
    if (shape0 == 1) {
      for (size_t i = 0; i < st.size(); ++i) s0[i] = st[i][d];
    }
    shape0 *= sizes[d];
  }
  bool vectorised = s0.back() == 1 || shape0 == 1;
  int zero_inputs = 0;
  for (size_t i = 0; i + 1 < st.size(); ++i) {
    vectorised = vectorised && (s0[i] == 0 || s0[i] == 1 || shape0 == 1);
    zero_inputs += s0[i] == 0;
  }
  if (zero_inputs > 1) vectorised = false;
  return vectorised ? std::max<int64_t>(shape0, 1) : 1;
}

// The generic (float) add / mul of § 7.4, with broadcasting.
Tensor generic_binary(BinOp op, const Tensor& qa, const Tensor& qb, double scale,
                      int64_t zero_point, bool relu) {
  const auto shape = ops::broadcast_all({qa, qb});
  const IntArrayRef sizes(shape.data(), shape.size());
  // PyTorch allocates the output in qa's layout with qa's sizes, and resizes it (to a
  // contiguous tensor) when broadcasting makes it bigger.
  const MemoryFormat fmt =
      qa.sizes() == sizes ? qa.suggest_memory_format() : MemoryFormat::Contiguous;
  Tensor out = empty_q(qa, sizes, qa.dtype(), {scale, zero_point}, fmt);
  const int64_t n = out.numel();
  if (n == 0 || out.is_meta()) return out;
  const bool same = qa.sizes() == sizes && qb.sizes() == sizes;
  Tensor a, b;
  int64_t row;
  if (same && qa.is_contiguous(fmt) && qb.is_contiguous(fmt)) {
    a = qa, b = qb, row = n;
  } else {
    row = pytorch_inner_row(sizes, fmt, out,
                            {broadcast_strides(qa, sizes), broadcast_strides(qb, sizes)});
    // Broadcast operands materialised as plain code tensors in the output's layout.
    a = int_repr(qa).expand(sizes).contiguous(fmt);
    b = int_repr(qb).expand(sizes).contiguous(fmt);
  }
  const auto pa = qparams_of(qa), pb = qparams_of(qb);
  const qk::QParams py{scale, zero_point};
  compute_codes_for(out, qa.dtype(), [&]<class T>() {
    if (op == BinOp::Add) {
      qk::qadd_generic<T>(codes<T>(a), codes<T>(b), mutable_codes<T>(out), n, row, pa, pb, py,
                          relu);
    } else {
      qk::qmul<T>(codes<T>(a), codes<T>(b), mutable_codes<T>(out), n, pa, pb, py, relu);
    }
  });
  return out;
}

// QNNPACK's add (§ 7.2): both quint8, same sizes, inputs in qa's layout.
Tensor qnnpack_add(const Tensor& qa, const Tensor& qb, double scale, int64_t zero_point,
                   bool relu) {
  EMBER_CHECK(qa.dim() > 0, "qnnpack_add(): Got empty input tensor.");
  const MemoryFormat fmt = qa.suggest_memory_format();
  const Tensor a = dense(qa, fmt), b = dense(qb, fmt);
  Tensor out = empty_q(qa, qa.sizes(), kQUInt8, {scale, zero_point}, fmt);
  if (a.size(0) == 0 || out.is_meta()) return out;
  const auto p =
      qk::QnnpackAddParams::make(qparams_of(a), qparams_of(b), {scale, zero_point}, relu);
  qk::qadd_qnnpack(codes<uint8_t>(a), codes<uint8_t>(b), mutable_codes<uint8_t>(out), out.numel(),
                   p);
  return out;
}

Tensor add_any(const Tensor& qa, const Tensor& qb, double scale, int64_t zero_point, bool relu) {
  check_binary_inputs(BinOp::Add, qa, qb);
  if (quantized_engine() == QEngine::QNNPACK && qa.sizes() == qb.sizes() && qa.dtype() == kQUInt8) {
    return qnnpack_add(qa, qb, scale, zero_point, relu);
  }
  return generic_binary(BinOp::Add, qa, qb, scale, zero_point, relu);
}

Tensor mul_any(const Tensor& qa, const Tensor& qb, double scale, int64_t zero_point, bool relu) {
  check_binary_inputs(BinOp::Mul, qa, qb);
  return generic_binary(BinOp::Mul, qa, qb, scale, zero_point, relu);
}

// ---- scalar forms (§ 5) ----
Tensor add_scalar_any(const Tensor& qa, const Scalar& other, bool relu) {
  EMBER_CHECK(qscheme(qa) == QScheme::PerTensorAffine,
              "Only per tensor affine is supported for now!!");
  const MemoryFormat fmt = qa.suggest_memory_format();
  const Tensor a = dense(qa, fmt);
  return visit_codes(qa.dtype(), [&]<class T>() {
    const double s = q_scale(qa);
    const int64_t z = q_zero_point(qa);
    const double c = other.to_double();
    const int64_t qmin = qk::qmin_of<T>(), qmax = qk::qmax_of<T>();
    const int64_t c_q = static_cast<int64_t>(std::nearbyint(c / s));
    const int64_t t = z - c_q;
    if (qmin <= t && t <= qmax) {
      // Codes unchanged, zero point moved (relu then clamps at the new zero point).
      Tensor out = empty_q(qa, qa.sizes(), qa.dtype(), {s, t}, fmt);
      if (out.is_meta() || out.numel() == 0) return out;
      const int64_t n = out.numel();
      if (relu) {
        qk::qclamp_codes<T>(codes<T>(a), mutable_codes<T>(out), n, t, qmax);
      } else {
        std::copy(codes<T>(a), codes<T>(a) + n, mutable_codes<T>(out));
      }
      return out;
    }
    const double s2 = t < qmin ? (static_cast<double>(qmax) - static_cast<double>(t)) /
                                     (static_cast<double>(qmax) - static_cast<double>(qmin)) * s
                               : (static_cast<double>(t) - static_cast<double>(qmin)) /
                                     (static_cast<double>(qmax) - static_cast<double>(qmin)) * s;
    const int64_t z2 = t < qmin ? qmin : qmax;
    Tensor out = empty_q(qa, qa.sizes(), qa.dtype(), {s2, z2}, fmt);
    if (out.is_meta() || out.numel() == 0) return out;
    const int64_t n = out.numel();
    qk::QUnarySpec spec{qk::QUnaryFn::AddScalar, {s, z}, {s2, z2}, c_q};
    qk::qunary<T>(codes<T>(a), mutable_codes<T>(out), n, std::max<int64_t>(n, 1), spec);
    if (relu) qk::qclamp_codes<T>(codes<T>(out), mutable_codes<T>(out), n, z2, qmax);
    return out;
  });
}

Tensor mul_scalar_any(const Tensor& qa, const Scalar& other, bool relu) {
  EMBER_CHECK(qscheme(qa) == QScheme::PerTensorAffine || qscheme(qa) == QScheme::PerTensorSymmetric,
              "Only per tensor quantization is supported in Mul.");
  const MemoryFormat fmt = qa.suggest_memory_format();
  const Tensor a = dense(qa, fmt);
  return visit_codes(qa.dtype(), [&]<class T>() {
    const double s = q_scale(qa);
    const int64_t z = q_zero_point(qa);
    const double c = other.to_double();
    const int64_t qmin = qk::qmin_of<T>(), qmax = qk::qmax_of<T>();
    const int64_t n = qa.numel();
    if (c > 0.0) {
      Tensor out = empty_q(qa, qa.sizes(), qa.dtype(), {c * s, z}, fmt);
      if (out.is_meta() || out.numel() == 0) return out;
      qk::qclamp_codes<T>(codes<T>(a), mutable_codes<T>(out), n, relu ? z : qmin, qmax);
      return out;
    }
    if (c == 0.0) {
      Tensor out = empty_q(qa, qa.sizes(), qa.dtype(), {1.0, 0}, fmt);
      if (out.is_meta() || out.numel() == 0) return out;
      std::fill(mutable_codes<T>(out), mutable_codes<T>(out) + n, T(0));
      return out;
    }
    const int64_t z2 = qmax - (z - qmin);
    Tensor out = empty_q(qa, qa.sizes(), qa.dtype(), {std::abs(c) * s, z2}, fmt);
    if (out.is_meta() || out.numel() == 0) return out;
    qk::qflip_codes<T>(codes<T>(a), mutable_codes<T>(out), n, relu, z2);
    return out;
  });
}

// Backend bodies: a quantized:: op has no CPU kernel (PyTorch's text for a float input).
Tensor add_cpu(const Tensor&, const Tensor&, double, int64_t) {
  dispatch::no_kernel_error(OpId::quantized_add, "CPU");
}
Tensor add_relu_cpu(const Tensor&, const Tensor&, double, int64_t) {
  dispatch::no_kernel_error(OpId::quantized_add_relu, "CPU");
}
Tensor mul_cpu(const Tensor&, const Tensor&, double, int64_t) {
  dispatch::no_kernel_error(OpId::quantized_mul, "CPU");
}
Tensor mul_relu_cpu(const Tensor&, const Tensor&, double, int64_t) {
  dispatch::no_kernel_error(OpId::quantized_mul_relu, "CPU");
}
Tensor add_scalar_cpu(const Tensor&, const Scalar&) {
  dispatch::no_kernel_error(OpId::quantized_add_scalar, "CPU");
}
Tensor add_scalar_relu_cpu(const Tensor&, const Scalar&) {
  dispatch::no_kernel_error(OpId::quantized_add_scalar_relu, "CPU");
}
Tensor mul_scalar_cpu(const Tensor&, const Scalar&) {
  dispatch::no_kernel_error(OpId::quantized_mul_scalar, "CPU");
}
Tensor mul_scalar_relu_cpu(const Tensor&, const Scalar&) {
  dispatch::no_kernel_error(OpId::quantized_mul_scalar_relu, "CPU");
}

// QuantizedCPU kernels.
Tensor add_q(const Tensor& a, const Tensor& b, const double& s, const int64_t& z) {
  return add_any(a, b, s, z, false);
}
Tensor add_relu_q(const Tensor& a, const Tensor& b, const double& s, const int64_t& z) {
  return add_any(a, b, s, z, true);
}
Tensor mul_q(const Tensor& a, const Tensor& b, const double& s, const int64_t& z) {
  return mul_any(a, b, s, z, false);
}
Tensor mul_relu_q(const Tensor& a, const Tensor& b, const double& s, const int64_t& z) {
  return mul_any(a, b, s, z, true);
}
Tensor add_scalar_q(const Tensor& a, const Scalar& c) { return add_scalar_any(a, c, false); }
Tensor add_scalar_relu_q(const Tensor& a, const Scalar& c) { return add_scalar_any(a, c, true); }
Tensor mul_scalar_q(const Tensor& a, const Scalar& c) { return mul_scalar_any(a, c, false); }
Tensor mul_scalar_relu_q(const Tensor& a, const Scalar& c) { return mul_scalar_any(a, c, true); }

}  // namespace

EMBER_REGISTER_QUANTIZED(quantized_add, &add_q);
EMBER_REGISTER_QUANTIZED(quantized_add_relu, &add_relu_q);
EMBER_REGISTER_QUANTIZED(quantized_mul, &mul_q);
EMBER_REGISTER_QUANTIZED(quantized_mul_relu, &mul_relu_q);
EMBER_REGISTER_QUANTIZED(quantized_add_scalar, &add_scalar_q);
EMBER_REGISTER_QUANTIZED(quantized_add_scalar_relu, &add_scalar_relu_q);
EMBER_REGISTER_QUANTIZED(quantized_mul_scalar, &mul_scalar_q);
EMBER_REGISTER_QUANTIZED(quantized_mul_scalar_relu, &mul_scalar_relu_q);

namespace quantized {
Tensor add(const Tensor& qa, const Tensor& qb, double scale, int64_t zero_point) {
  return dispatch::call<add_cpu>(OpId::quantized_add, qa, qb, scale, zero_point);
}
Tensor add_relu(const Tensor& qa, const Tensor& qb, double scale, int64_t zero_point) {
  return dispatch::call<add_relu_cpu>(OpId::quantized_add_relu, qa, qb, scale, zero_point);
}
Tensor mul(const Tensor& qa, const Tensor& qb, double scale, int64_t zero_point) {
  return dispatch::call<mul_cpu>(OpId::quantized_mul, qa, qb, scale, zero_point);
}
Tensor mul_relu(const Tensor& qa, const Tensor& qb, double scale, int64_t zero_point) {
  return dispatch::call<mul_relu_cpu>(OpId::quantized_mul_relu, qa, qb, scale, zero_point);
}
Tensor add_scalar(const Tensor& qa, const Scalar& b) {
  return dispatch::call<add_scalar_cpu>(OpId::quantized_add_scalar, qa, b);
}
Tensor add_scalar_relu(const Tensor& qa, const Scalar& b) {
  return dispatch::call<add_scalar_relu_cpu>(OpId::quantized_add_scalar_relu, qa, b);
}
Tensor mul_scalar(const Tensor& qa, const Scalar& b) {
  return dispatch::call<mul_scalar_cpu>(OpId::quantized_mul_scalar, qa, b);
}
Tensor mul_scalar_relu(const Tensor& qa, const Scalar& b) {
  return dispatch::call<mul_scalar_relu_cpu>(OpId::quantized_mul_scalar_relu, qa, b);
}
}  // namespace quantized

EMBER_REGISTER_OP(quantized_add, &quantized::add);
EMBER_REGISTER_OP(quantized_add_relu, &quantized::add_relu);
EMBER_REGISTER_OP(quantized_mul, &quantized::mul);
EMBER_REGISTER_OP(quantized_mul_relu, &quantized::mul_relu);
EMBER_REGISTER_OP(quantized_add_scalar, &quantized::add_scalar);
EMBER_REGISTER_OP(quantized_add_scalar_relu, &quantized::add_scalar_relu);
EMBER_REGISTER_OP(quantized_mul_scalar, &quantized::mul_scalar);
EMBER_REGISTER_OP(quantized_mul_scalar_relu, &quantized::mul_scalar_relu);

}  // namespace ember
