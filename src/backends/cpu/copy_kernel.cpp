#include "copy_kernel.h"

#include <cstring>

#include "convert.h"
#include "copy_fast.h"
#include "loop.h"

namespace ember::cpu {

void copy_kernel(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  const bool dense = dst.is_contiguous() && src.is_contiguous() && dst.sizes().equals(src.sizes());
  if (dense && dst.dtype() == src.dtype()) {
    // Plain bytes: memcpy, or streaming stores for large copies (Note [Streaming copies]),
    // split across threads.
    auto* d = static_cast<char*>(dst.data_ptr());
    auto* s = static_cast<const char*>(src.data_ptr());
    const int64_t item = static_cast<int64_t>(dst.element_size());
    const bool stream = dst.nbytes() >= kStreamMinBytes;
    parallel_for(0, dst.numel(), 1 << 18, [&](int64_t b, int64_t e) {
      const auto n = static_cast<size_t>((e - b) * item);
      if (stream) {
        copy_bytes_streaming(d + b * item, s + b * item, n);
      } else {
        std::memcpy(d + b * item, s + b * item, n);
      }
    });
    return;
  }
  if (dense && dst.dtype() == kBFloat16 && src.dtype() == kFloat32) {
    // Module::bfloat16() / to(bfloat16): eight lanes at a time (copy_fast.h).
    auto* d = static_cast<uint16_t*>(dst.data_ptr());
    const auto* s = static_cast<const float*>(src.data_ptr());
    const bool stream = dst.nbytes() >= kStreamMinBytes;
    parallel_for(0, dst.numel(), 1 << 18, [&](int64_t b, int64_t e) {
      float_to_bfloat16(d + b, s + b, e - b, stream);
    });
    return;
  }
  ElementwiseLoop loop({dst, src});
  visit_dtype_and_complex(dst.dtype(), [&]<class D>() {
    visit_dtype_and_complex(src.dtype(), [&]<class S>() {
      loop.run<D, S>([](S v) { return convert<D>(v); });
    }, "copy_");
  }, "copy_");
}

void copy_kernel_ref(const Tensor& dst, const Tensor& src) {
  // Walk every index of dst with an explicit odometer; no coalescing, no threads.
  const int64_t nd = dst.dim(), off = nd - src.dim();
  std::vector<int64_t> idx(static_cast<size_t>(nd), 0);
  visit_dtype_and_complex(dst.dtype(), [&]<class D>() {
    visit_dtype_and_complex(src.dtype(), [&]<class S>() {
      for (int64_t n = 0; n < dst.numel(); ++n) {
        int64_t doff = 0, soff = 0;
        for (int64_t d = 0; d < nd; ++d) {
          doff += idx[d] * dst.stride(d);
          if (d >= off && src.size(d - off) != 1) soff += idx[d] * src.stride(d - off);
        }
        static_cast<D*>(dst.data_ptr())[doff] = convert<D>(static_cast<const S*>(src.data_ptr())[soff]);
        for (int64_t d = nd - 1; d >= 0; --d) {
          if (++idx[d] < dst.size(d)) break;
          idx[d] = 0;
        }
      }
    });
  });
}

void fill_kernel(const Tensor& dst, const Scalar& value) {
  ElementwiseLoop loop({dst});
  visit_dtype_and_complex(dst.dtype(), [&]<class D>() {
    const D v = value.is_complex()  ? convert<D>(value.to_complex())
                : value.is_floating() ? convert<D>(value.to_double())
                : value.is_bool()   ? convert<D>(value.to_bool())
                                    : convert<D>(value.to_int());
    loop.run<D>([v]() { return v; });
  }, "fill_");
}

}  // namespace ember::cpu
