// Complex scans (complex2_kernels.h).
#include "complex2_kernels.h"

#include <complex>

#include <numbers>

#include "dtype_lists.h"
#include "ember/parallel.h"
#include "loop.h"
#include "math_kernels.h"

namespace ember::cpu {

namespace {

template <bool Product>
void complex_scan(const Tensor& out, const Tensor& in_, int64_t dim, const char* name) {
  EMBER_ASSERT(out.is_contiguous() && out.dtype() == in_.dtype() && out.numel() == in_.numel());
  if (in_.numel() == 0) return;
  const Tensor in = in_.contiguous();
  int64_t len = 1, inner = 1;
  if (in.dim() > 0) {
    len = in.size(dim);
    for (int64_t d = dim + 1; d < in.dim(); ++d) inner *= in.size(d);
  }
  const int64_t lines = in.numel() / len;
  dispatch_types(kComplexTypes, in.dtype(), name, [&]<class C>() {
    using Acc = std::complex<double>;
    const C* src = static_cast<const C*>(in.data_ptr());
    C* dst = static_cast<C*>(out.data_ptr());
    parallel_for(0, lines, std::max<int64_t>(1, 32768 / len), [&](int64_t b, int64_t e) {
      for (int64_t l = b; l < e; ++l) {
        const int64_t base = (l / inner) * len * inner + l % inner;
        Acc acc = Product ? Acc(1) : Acc(0);
        for (int64_t k = 0; k < len; ++k) {
          const Acc x(src[base + k * inner]);
          if constexpr (Product) acc *= x;
          else acc += x;
          dst[base + k * inner] = C(acc);
        }
      }
    });
  });
}

}  // namespace

void cumsum_complex_kernel(const Tensor& out, const Tensor& in, int64_t dim) {
  complex_scan<false>(out, in, dim, "cumsum_out_cpu");
}

void cumprod_complex_kernel(const Tensor& out, const Tensor& in, int64_t dim) {
  complex_scan<true>(out, in, dim, "cumprod_out_cpu");
}

bool math_unary_has_complex(int op) {
  switch (static_cast<MathUnaryOp>(op)) {
    case MathUnaryOp::Acos: case MathUnaryOp::Asin: case MathUnaryOp::Atan: case MathUnaryOp::Acosh:
    case MathUnaryOp::Asinh: case MathUnaryOp::Atanh: case MathUnaryOp::Cosh: case MathUnaryOp::Sinh:
    case MathUnaryOp::Tan: case MathUnaryOp::Log10: case MathUnaryOp::Log2: case MathUnaryOp::Sinc:
      return true;
    default:
      return false;
  }
}

void math_unary_complex_kernel(int op_, const Tensor& out, const Tensor& in) {
  const auto op = static_cast<MathUnaryOp>(op_);
  EMBER_ASSERT(math_unary_has_complex(op_));
  dispatch_types(kComplexTypes, out.dtype(), math_unary_kernel_name(op), [&]<class C>() {
    using R = typename C::value_type;
    ElementwiseLoop({out, in}).run<C, C>([op](C z) -> C {
      switch (op) {
        case MathUnaryOp::Acos: return std::acos(z);
        case MathUnaryOp::Asin: return std::asin(z);
        case MathUnaryOp::Atan: return std::atan(z);
        case MathUnaryOp::Acosh: return std::acosh(z);
        case MathUnaryOp::Asinh: return std::asinh(z);
        case MathUnaryOp::Atanh: return std::atanh(z);
        case MathUnaryOp::Cosh: return std::cosh(z);
        case MathUnaryOp::Sinh: return std::sinh(z);
        case MathUnaryOp::Tan: return std::tan(z);
        case MathUnaryOp::Log10: return std::log10(z);
        case MathUnaryOp::Log2: return std::log(z) / std::log(R(2));
        case MathUnaryOp::Sinc: {
          if (z == C(0)) return C(1);
          const C product = std::numbers::pi_v<R> * z;
          return std::sin(product) / product;
        }
        default: return z;
      }
    });
  });
}

}  // namespace ember::cpu
