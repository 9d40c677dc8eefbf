// Complex scans (complex2_kernels.h).
#include "complex2_kernels.h"

#include <complex>

#include "dtype_lists.h"
#include "ember/parallel.h"

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

}  // namespace ember::cpu
