// Layout helpers of the normalisation and pooling kernels (internal). Kernels read and write
// [N, C, *] tensors through their strides, so NCHW, channels_last and other strided inputs take
// the same code; outputs are allocated in the input's layout (as PyTorch's suggest_memory_format).
#pragma once

#include <optional>
#include <vector>

#include "ember/ops/factory.h"
#include "ember/tensor.h"

namespace ember::cpu {

/// Whether a 4-d tensor is strided as channels_last (C fastest, then W, H, N) and not plain
/// contiguous (a tensor that is both, e.g. C == 1, counts as contiguous as in PyTorch).
inline bool is_channels_last_4d(const Tensor& t) {
  if (t.dim() != 4 || t.is_contiguous()) return false;
  const auto sz = t.sizes();
  const auto st = t.strides();
  int64_t expect = 1;
  for (int d : {1, 3, 2, 0}) {
    if (sz[d] != 1 && st[d] != expect) return false;
    expect *= sz[d];
  }
  return true;
}

/// Contiguous strides of `sizes`, or channels_last strides when `channels_last` (4-d only).
inline std::vector<int64_t> layout_strides(IntArrayRef sizes, bool channels_last) {
  std::vector<int64_t> st(sizes.size());
  int64_t s = 1;
  if (channels_last && sizes.size() == 4) {
    for (int d : {1, 3, 2, 0}) {
      st[d] = s;
      s *= std::max<int64_t>(sizes[d], 1);
    }
    return st;
  }
  for (size_t d = sizes.size(); d-- > 0;) {
    st[d] = s;
    s *= std::max<int64_t>(sizes[d], 1);
  }
  return st;
}

/// A new tensor of `sizes` and `dtype` on like's device, in like's layout.
inline Tensor empty_like_layout(IntArrayRef sizes, const Tensor& like, ScalarType dtype) {
  return empty_strided(sizes, layout_strides(sizes, is_channels_last_4d(like)),
                       TensorOptions(dtype).device(like.device()));
}

/// [N, C, S] view of a [N, C, *] tensor: sizes and element strides. S collapses the trailing dims.
struct NCS {
  int64_t n, c, s;
  int64_t sn, sc, ss;
};

/// The NCS view of t (dim >= 2), or nullopt when its trailing dims do not collapse into one
/// stride (then the caller makes it contiguous).
inline std::optional<NCS> ncs_view(const Tensor& t) {
  const auto sz = t.sizes();
  const auto st = t.strides();
  NCS v{sz[0], sz[1], 1, st[0], st[1], 1};
  // Walk the trailing dims from the innermost, skipping size-1 dims.
  bool first = true;
  int64_t next_stride = 0;
  for (int64_t d = t.dim() - 1; d >= 2; --d) {
    if (sz[d] == 1) continue;
    if (first) {
      v.ss = st[d];
      next_stride = st[d] * sz[d];
      first = false;
    } else {
      if (st[d] != next_stride) return std::nullopt;
      next_stride = st[d] * sz[d];
    }
    v.s *= sz[d];
  }
  return v;
}

/// The dtype switch of these kernels: floating types only (the ops validate before).
template <class F>
void visit_floating(ScalarType t, F&& f, const char* op) {
  switch (t) {
    case kFloat32: return f.template operator()<float>();
    case kFloat64: return f.template operator()<double>();
    case kFloat16: return f.template operator()<Half>();
    case kBFloat16: return f.template operator()<BFloat16>();
    default: break;
  }
  EMBER_FAIL("\"", op, "\" not implemented for '", scalar_type_name(t), "'");
}

}  // namespace ember::cpu
