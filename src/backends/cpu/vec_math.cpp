#include "vec_math.h"

#include "loop.h"

namespace ember::cpu {

namespace {

// Vectors as wide as the build's target allows: 8 lanes with AVX (ember's Release flags), 4
// with the SSE2 every x86-64 has. Kept inside this file, so no other translation unit (built
// with other flags) sees a different definition.
#ifdef __AVX__
constexpr int kBytes = 32;
#else
constexpr int kBytes = 16;
#endif
using FloatV = float __attribute__((vector_size(kBytes)));
using IntV = int32_t __attribute__((vector_size(kBytes)));
constexpr int64_t kLanes = kBytes / 4;

template <FloatV (*VecFn)(FloatV), float (*ScalarFn)(float)>
void apply(float* out, const float* in, int64_t n) {
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    FloatV v;
    std::memcpy(&v, in + i, sizeof v);
    const FloatV r = VecFn(v);
    std::memcpy(out + i, &r, sizeof r);
  }
  for (; i < n; ++i) out[i] = ScalarFn(in[i]);
}

}  // namespace

void exp_fast_array(float* out, const float* in, int64_t n) {
  apply<vec::exp_impl<FloatV, IntV>, exp_fast>(out, in, n);
}
void sigmoid_fast_array(float* out, const float* in, int64_t n) {
  apply<vec::sigmoid_impl<FloatV, IntV>, sigmoid_fast>(out, in, n);
}
void silu_fast_array(float* out, const float* in, int64_t n) {
  apply<vec::silu_impl<FloatV, IntV>, silu_fast>(out, in, n);
}

void gelu_fast_array(float* out, const float* in, int64_t n) {
  apply<vec::gelu_impl<FloatV, IntV>, gelu_fast>(out, in, n);
}
void gelu_backward_fast_array(float* out, const float* dy, const float* x, int64_t n) {
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    FloatV g, v;
    std::memcpy(&g, dy + i, sizeof g);
    std::memcpy(&v, x + i, sizeof v);
    const FloatV r = vec::gelu_backward_impl<FloatV, IntV>(g, v);
    std::memcpy(out + i, &r, sizeof r);
  }
  for (; i < n; ++i) out[i] = gelu_backward_fast(dy[i], x[i]);
}

namespace {
template <void (*ArrayFn)(float*, const float*, int64_t), float (*ScalarFn)(float)>
void run_fast(const Tensor& out, const Tensor& in) {
  ElementwiseLoop({out, in}).for_each_run([](char** ptrs, const int64_t* strides, int64_t n) {
    if (strides[0] == sizeof(float) && strides[1] == sizeof(float)) {
      ArrayFn(reinterpret_cast<float*>(ptrs[0]), reinterpret_cast<const float*>(ptrs[1]), n);
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      *reinterpret_cast<float*>(ptrs[0] + i * strides[0]) =
          ScalarFn(*reinterpret_cast<const float*>(ptrs[1] + i * strides[1]));
    }
  });
}
}  // namespace

void fast_float_kernel(FastFloatOp op, const Tensor& out, const Tensor& in) {
  EMBER_ASSERT(out.dtype() == kFloat32 && in.dtype() == kFloat32);
  switch (op) {
    case FastFloatOp::Exp: return run_fast<exp_fast_array, exp_fast>(out, in);
    case FastFloatOp::Sigmoid: return run_fast<sigmoid_fast_array, sigmoid_fast>(out, in);
    case FastFloatOp::Silu: return run_fast<silu_fast_array, silu_fast>(out, in);
    case FastFloatOp::Gelu: return run_fast<gelu_fast_array, gelu_fast>(out, in);
  }
}

void gelu_backward_fast_kernel(const Tensor& out, const Tensor& grad, const Tensor& self) {
  EMBER_ASSERT(out.dtype() == kFloat32 && grad.dtype() == kFloat32 && self.dtype() == kFloat32);
  ElementwiseLoop({out, grad, self}).for_each_run([](char** ptrs, const int64_t* strides, int64_t n) {
    if (strides[0] == sizeof(float) && strides[1] == sizeof(float) && strides[2] == sizeof(float)) {
      gelu_backward_fast_array(reinterpret_cast<float*>(ptrs[0]),
                               reinterpret_cast<const float*>(ptrs[1]),
                               reinterpret_cast<const float*>(ptrs[2]), n);
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      *reinterpret_cast<float*>(ptrs[0] + i * strides[0]) =
          gelu_backward_fast(*reinterpret_cast<const float*>(ptrs[1] + i * strides[1]),
                             *reinterpret_cast<const float*>(ptrs[2] + i * strides[2]));
    }
  });
}

}  // namespace ember::cpu
