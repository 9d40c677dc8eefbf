// segment_reduce and its backward (PyTorch 1.13's CPU algorithm, checks and texts). Data is seen
// as [outer, size(axis), inner] with axis the last dimension of lengths / offsets; each outer row
// has its own segments. A segment is a start and a length: lengths start where the previous
// segment ended (from 0), offsets give starts and ends directly (offsets[i], offsets[i + 1]).
// The reduction runs in the data's dtype, step by step, as PyTorch's kernel does (so a float16
// sum rounds after each addition); an empty segment gives `initial`, or the reduction's identity
// (mean: NaN).
#include "ember/ops/segment_reduce.h"

#include <cmath>
#include <limits>
#include <vector>

#include "ember/ops/factory.h"
#include "ember/ops/view.h"

#include "../autograd/record.h"
#include "../backends/cpu/dtype_lists.h"
#include "../dispatch/boxing.h"

namespace ember {

using dispatch::OpId;

namespace {

enum class Reduction { Max, Mean, Min, Sum, Prod };

Reduction reduction_of(const std::string& reduce) {
  if (reduce == "max") return Reduction::Max;
  if (reduce == "mean") return Reduction::Mean;
  if (reduce == "min") return Reduction::Min;
  if (reduce == "sum") return Reduction::Sum;
  if (reduce == "prod") return Reduction::Prod;
  EMBER_FAIL("unsupported reduction given! ", reduce);
}

template <class T>
bool is_nan(T v) {
  return std::isnan(static_cast<opmath_t<T>>(v));
}

// Each outer row's segments: starts and lengths, [outer * segments].
struct Segments {
  int64_t count = 0;
  std::vector<int64_t> start, length;
};

// From lengths ([..., segments]) or offsets ([..., segments + 1]) of an index dtype; `outer` rows.
Segments segments_of(const Tensor& lengths_or_offsets, bool is_offsets, int64_t outer, int64_t axis_size) {
  const Tensor t = lengths_or_offsets.contiguous();
  Segments s;
  const int64_t last = t.size(t.dim() - 1);
  s.count = is_offsets ? last - 1 : last;
  EMBER_CHECK(s.count >= 0 && t.numel() == outer * last, "segment_reduce(): expected ",
              is_offsets ? "offsets" : "lengths", " of shape data.shape[:axis] + [segments", is_offsets ? " + 1" : "",
              "], but got ", t.sizes());
  const char* kernel =
      is_offsets ? "_segment_reduce_offsets_cpu_kernel1" : "_segment_reduce_lengths_cpu_kernel1";
  cpu::dispatch_types(cpu::TypeList<int32_t, int64_t>{}, t.dtype(), kernel, [&]<class I>() {
    const I* p = t.data_ptr<I>();
    for (int64_t o = 0; o < outer; ++o) {
      int64_t cum = 0;
      for (int64_t i = 0; i < s.count; ++i) {
        int64_t st = 0, len = 0;
        if (is_offsets) {
          st = static_cast<int64_t>(p[o * last + i]);
          len = static_cast<int64_t>(p[o * last + i + 1]) - st;
        } else {
          st = cum;
          len = static_cast<int64_t>(p[o * last + i]);
          cum += len;
        }
        EMBER_CHECK(len >= 0, "Expected segment_length >= 0 to be true, but got false.  (Could this error message ",
                    "be improved?  If so, please report an enhancement request to PyTorch.)");
        s.start.push_back(st);
        s.length.push_back(len);
      }
    }
  });
  // PyTorch reads past the data when segments overrun it (unsafe lengths, offsets); ember refuses.
  for (size_t k = 0; k < s.start.size(); ++k) {
    const int64_t st = s.start[k], en = s.start[k] + s.length[k];
    EMBER_CHECK(st >= 0 && en <= axis_size, "segment_reduce(): segment ", static_cast<int64_t>(k) % std::max<int64_t>(s.count, 1),
                " [", st, ", ", en, ") is out of bounds for data of size ", axis_size, " along axis");
  }
  return s;
}

struct Layout {
  int64_t axis = 0, outer = 1, inner = 1, size = 0;
};

Layout layout_of(const Tensor& data, int64_t axis) {
  Layout l;
  l.axis = axis;
  l.size = data.size(axis);
  for (int64_t d = 0; d < axis; ++d) l.outer *= data.size(d);
  for (int64_t d = axis + 1; d < data.dim(); ++d) l.inner *= data.size(d);
  return l;
}

template <class T>
T initial_value(Reduction r, const std::optional<Scalar>& initial) {
  if (initial) return initial->to<T>();
  switch (r) {
    case Reduction::Max: return static_cast<T>(-std::numeric_limits<float>::infinity());
    case Reduction::Min: return static_cast<T>(std::numeric_limits<float>::infinity());
    case Reduction::Prod: return static_cast<T>(1);
    default: return static_cast<T>(0);
  }
}

template <class T>
void segment_reduce_kernel(Reduction r, const T* in, T* out, const Layout& l, const Segments& s,
                           const std::optional<Scalar>& initial) {
  using M = opmath_t<T>;
  for (int64_t o = 0; o < l.outer; ++o) {
    for (int64_t i = 0; i < s.count; ++i) {
      const size_t k = static_cast<size_t>(o * s.count + i);
      const int64_t start = s.start[k], len = s.length[k];
      for (int64_t q = 0; q < l.inner; ++q) {
        T acc = initial_value<T>(r, initial);
        for (int64_t j = 0; j < len; ++j) {
          const T v = in[(o * l.size + start + j) * l.inner + q];
          switch (r) {
            case Reduction::Max: acc = is_nan(v) ? v : (static_cast<M>(acc) < static_cast<M>(v) ? v : acc); break;
            case Reduction::Min: acc = is_nan(v) ? v : (static_cast<M>(v) < static_cast<M>(acc) ? v : acc); break;
            case Reduction::Prod: acc = static_cast<T>(static_cast<M>(acc) * static_cast<M>(v)); break;
            default: acc = static_cast<T>(static_cast<M>(acc) + static_cast<M>(v)); break;
          }
        }
        if (r == Reduction::Mean) {
          if (len == 0 && !initial) {
            acc = static_cast<T>(std::numeric_limits<float>::quiet_NaN());
          } else if (len > 0 && !is_nan(acc)) {
            acc = static_cast<T>(static_cast<M>(acc) / static_cast<M>(len));
          }
        }
        out[(o * s.count + i) * l.inner + q] = acc;
      }
    }
  }
}

template <class T>
void segment_reduce_backward_kernel(Reduction r, const T* grad, const T* out, const T* in, T* gin, const Layout& l,
                                    const Segments& s, const std::optional<Scalar>& initial) {
  using M = opmath_t<T>;
  const T initial_prod = initial ? initial->to<T>() : static_cast<T>(1);
  for (int64_t o = 0; o < l.outer; ++o) {
    for (int64_t i = 0; i < s.count; ++i) {
      const size_t k = static_cast<size_t>(o * s.count + i);
      const int64_t start = s.start[k], len = s.length[k];
      if (len == 0) continue;
      for (int64_t q = 0; q < l.inner; ++q) {
        const int64_t oi = (o * s.count + i) * l.inner + q;
        auto at = [&](int64_t j) { return (o * l.size + start + j) * l.inner + q; };
        const M g = static_cast<M>(grad[oi]);
        if (r == Reduction::Max || r == Reduction::Min) {
          int64_t counter = 0;
          for (int64_t j = 0; j < len; ++j) {
            if (is_nan(in[at(j)]) || static_cast<M>(in[at(j)]) == static_cast<M>(out[oi])) {
              gin[at(j)] = grad[oi];
              ++counter;
            }
          }
          // PyTorch shares the gradient among tied extrema, dividing only the positive ones.
          if (counter < 2) continue;
          for (int64_t j = 0; j < len; ++j) {
            if (static_cast<M>(gin[at(j)]) > 0) {
              gin[at(j)] = static_cast<T>(static_cast<M>(gin[at(j)]) / static_cast<M>(counter));
            }
          }
        } else if (r == Reduction::Mean) {
          const T v = static_cast<T>(g / static_cast<M>(len));
          for (int64_t j = 0; j < len; ++j) gin[at(j)] = v;
        } else if (r == Reduction::Sum) {
          for (int64_t j = 0; j < len; ++j) gin[at(j)] = grad[oi];
        } else {
          const T gv = static_cast<T>(g * static_cast<M>(out[oi]));
          for (int64_t j = 0; j < len; ++j) {
            const T x = in[at(j)];
            if (is_nan(x) || static_cast<M>(x) == 0) {
              // a zero (or NaN) factor: the product of the others, computed again
              T excl = initial_prod;
              for (int64_t m = 0; m < len; ++m) {
                if (m != j) excl = static_cast<T>(static_cast<M>(excl) * static_cast<M>(in[at(m)]));
              }
              gin[at(j)] = static_cast<T>(g * static_cast<M>(excl));
            } else {
              gin[at(j)] = static_cast<T>(static_cast<M>(gv) / static_cast<M>(x));
            }
          }
        }
      }
    }
  }
}

// The checks of PyTorch's segment_reduce_kernel, in its order; returns the wrapped axis.
int64_t check_forward(const Tensor& data, const std::string& reduce, const std::optional<Tensor>& lengths,
                      const std::optional<Tensor>& indices, const std::optional<Tensor>& offsets, int64_t axis,
                      bool unsafe) {
  axis = wrap_dim(axis, data.dim());
  EMBER_CHECK(data.numel() > 0, "Expected data.numel() > 0 to be true, but got false.  (Could this error message ",
              "be improved?  If so, please report an enhancement request to PyTorch.)");
  EMBER_CHECK(!indices, "segment_reduce(): indices based reduction is not supported yet.");
  EMBER_CHECK(lengths || offsets, "segment_reduce(): Either lengths or offsets must be defined.");
  reduction_of(reduce);
  const Tensor& seg = offsets ? *offsets : *lengths;
  const char* what = offsets ? "offsets" : "lengths";
  // (PyTorch compares get_device(): -1 for both CPU and meta, ember's only devices)
  EMBER_CHECK(data.dim() >= seg.dim(), "segment_reduce(): expected ", what, " to have at most data's ",
              data.dim(), " dimensions, but got ", seg.dim());
  EMBER_CHECK(axis == seg.dim() - 1, "segment_reduce(): Expected axis to be the last dimension of ", what,
              " but got ", axis, ".");
  if (!offsets && !unsafe && !seg.is_meta()) {
    const Tensor l = seg.to(kInt64).contiguous();
    const int64_t* p = l.data_ptr<int64_t>();
    const int64_t n = l.numel(), last = l.size(l.dim() - 1);
    int64_t mn = std::numeric_limits<int64_t>::max();
    for (int64_t i = 0; i < n; ++i) mn = std::min(mn, p[i]);
    EMBER_CHECK(mn >= 0, "lengths contains negative value!");
    for (int64_t r = 0; last > 0 && r < n / last; ++r) {
      int64_t sum = 0;
      for (int64_t i = 0; i < last; ++i) sum += p[r * last + i];
      EMBER_CHECK(sum == data.size(axis), "segment_reduce(): Expected all rows of lengths along axis ",
                  "to sum to data.size(lengths.dim()-1) when !unsafe.");
    }
  }
  return axis;
}

Tensor segment_reduce_impl(const Tensor& data, const std::string& reduce, const std::optional<Tensor>& lengths,
                           const std::optional<Tensor>& indices, const std::optional<Tensor>& offsets, int64_t axis,
                           bool unsafe, const std::optional<Scalar>& initial) {
  axis = check_forward(data, reduce, lengths, indices, offsets, axis, unsafe);
  const Reduction r = reduction_of(reduce);
  const Tensor& seg = offsets ? *offsets : *lengths;
  DimVector shape(data.sizes().begin(), data.sizes().end());
  shape[static_cast<size_t>(axis)] = seg.size(seg.dim() - 1) - (offsets ? 1 : 0);
  Tensor out = empty(shape, TensorOptions(data.dtype()).device(data.device()));
  if (out.is_meta()) return out;
  const Layout l = layout_of(data, axis);
  const Tensor in = data.contiguous();
  cpu::dispatch_types(cpu::kFloatTypes, data.dtype(), "_segment_reduce_cpu", [&]<class T>() {
    const Segments s = segments_of(seg, offsets.has_value(), l.outer, l.size);
    segment_reduce_kernel<T>(r, in.data_ptr<T>(), out.data_ptr<T>(), l, s, initial);
  });
  return out;
}

Tensor segment_reduce_backward_impl(const Tensor& grad, const Tensor& output, const Tensor& data,
                                    const std::string& reduce, const std::optional<Tensor>& lengths,
                                    const std::optional<Tensor>& offsets, int64_t axis,
                                    const std::optional<Scalar>& initial) {
  axis = wrap_dim(axis, data.dim());
  EMBER_CHECK(lengths || offsets, "segment_reduce(): Either lengths or offsets must be defined.");
  const Reduction r = reduction_of(reduce);
  const Tensor& seg = offsets ? *offsets : *lengths;
  EMBER_CHECK(axis == seg.dim() - 1, "segment_reduce(): Expected axis to be the last dimension of ",
              offsets ? "offsets" : "lengths", " but got ", axis, ".");
  EMBER_CHECK(grad.sizes() == output.sizes(), "_segment_reduce_backward(): expected grad of the output's shape ",
              output.sizes(), ", but got ", grad.sizes());
  Tensor gin = zeros(data.sizes(), TensorOptions(grad.dtype()).device(grad.device()));
  if (gin.is_meta()) return gin;
  EMBER_CHECK(grad.dtype() == data.dtype() && output.dtype() == data.dtype(),
              "_segment_reduce_backward(): expected grad, output and data of one dtype, but got ",
              scalar_type_name(grad.dtype()), ", ", scalar_type_name(output.dtype()), " and ",
              scalar_type_name(data.dtype()));
  const Layout l = layout_of(data, axis);
  const Tensor g = grad.contiguous(), o = output.contiguous(), in = data.contiguous();
  cpu::dispatch_types(cpu::kFloatTypes, data.dtype(), "_segment_reduce_cpu", [&]<class T>() {
    const Segments s = segments_of(seg, offsets.has_value(), l.outer, l.size);
    EMBER_CHECK(o.size(axis) == s.count, "_segment_reduce_backward(): expected output with ", s.count,
                " segments along axis, but got ", o.size(axis));
    segment_reduce_backward_kernel<T>(r, g.data_ptr<T>(), o.data_ptr<T>(), in.data_ptr<T>(), gin.data_ptr<T>(), l,
                                      s, initial);
  });
  return gin;
}

}  // namespace

Tensor segment_reduce(const Tensor& data, const std::string& reduce, const std::optional<Tensor>& lengths,
                      const std::optional<Tensor>& indices, const std::optional<Tensor>& offsets, int64_t axis,
                      bool unsafe, const std::optional<Scalar>& initial) {
  return dispatch::call<segment_reduce_impl>(OpId::segment_reduce, data, reduce, lengths, indices, offsets, axis,
                                             unsafe, initial);
}

Tensor _segment_reduce_backward(const Tensor& grad, const Tensor& output, const Tensor& data,
                                const std::string& reduce, const std::optional<Tensor>& lengths,
                                const std::optional<Tensor>& offsets, int64_t axis,
                                const std::optional<Scalar>& initial) {
  return dispatch::call<segment_reduce_backward_impl>(OpId::_segment_reduce_backward, grad, output, data, reduce,
                                                      lengths, offsets, axis, initial);
}

EMBER_REGISTER_OP(segment_reduce, &segment_reduce);
EMBER_REGISTER_OP(_segment_reduce_backward, &_segment_reduce_backward);

// ---- autograd ----

namespace {

// d data = _segment_reduce_backward(grad, result, data, ...); lengths / offsets are integers.
Tensor segment_reduce_autograd(const Tensor& data, const std::string& reduce, const std::optional<Tensor>& lengths,
                               const std::optional<Tensor>& indices, const std::optional<Tensor>& offsets,
                               const int64_t& axis, const bool& unsafe, const std::optional<Scalar>& initial) {
  autograd::Recorder r("SegmentReduceBackward0", data);
  Tensor out = r.forward([&] {
    return dispatch::call<segment_reduce_impl>(OpId::segment_reduce, data, reduce, lengths, indices, offsets, axis,
                                               unsafe, initial);
  });
  if (!r) return out;
  const size_t data_ = r.save(data, "data");
  const size_t lengths_ = r.save_if(true, lengths, "lengths"), offsets_ = r.save_if(true, offsets, "offsets");
  r.values("axis", axis, "initial", initial, "reduce", reduce);
  const size_t result_ = offsets_ + 1;  // saved after finish
  const bool has_lengths = lengths.has_value(), has_offsets = offsets.has_value();
  r.finish(out, [=](autograd::OpNode& n, const autograd::tensor_list& g) {
    const std::optional<Tensor> l = has_lengths ? std::optional<Tensor>(n.saved(lengths_)) : std::nullopt;
    const std::optional<Tensor> o = has_offsets ? std::optional<Tensor>(n.saved(offsets_)) : std::nullopt;
    return autograd::tensor_list{
        _segment_reduce_backward(g[0], n.saved(result_), n.saved(data_), reduce, l, o, axis, initial)};
  });
  r.save_output(out, "result");
  return out;
}

// PyTorch defines no derivative for the backward: a node that fails when reached (its
// NotImplemented node).
Tensor segment_reduce_backward_autograd(const Tensor& grad, const Tensor& output, const Tensor& data,
                                        const std::string& reduce, const std::optional<Tensor>& lengths,
                                        const std::optional<Tensor>& offsets, const int64_t& axis,
                                        const std::optional<Scalar>& initial) {
  autograd::Recorder r("NotImplemented", grad, output, data);
  Tensor out = r.forward([&] {
    return dispatch::call<segment_reduce_backward_impl>(OpId::_segment_reduce_backward, grad, output, data, reduce,
                                                        lengths, offsets, axis, initial);
  });
  if (!r) return out;
  return r.finish(out, [](autograd::OpNode&, const autograd::tensor_list&) -> autograd::tensor_list {
    EMBER_FAIL("derivative for aten::_segment_reduce_backward is not implemented");
  });
}

}  // namespace

EMBER_REGISTER_AUTOGRAD(segment_reduce, &segment_reduce_autograd);
EMBER_REGISTER_AUTOGRAD(_segment_reduce_backward, &segment_reduce_backward_autograd);

}  // namespace ember
