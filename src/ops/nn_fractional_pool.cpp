// fractional_max_pool2d / 3d and their backward (PyTorch 1.13's algorithm and texts): each
// plane's window starts come from its random samples (generate_intervals below) and the max of
// each window is taken (a NaN wins, the first maximum otherwise). The values are then gathered
// at those flat indices (the CPU kernel's values, returned as computed). The backward rows add the
// gradient at the recorded index, as PyTorch's fractional_max_pool backward does.
#include "ember/ops/fractional_pool.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "../backends/cpu/dtype_lists.h"
#include "ember/ops/factory.h"
#include "ember/ops/index_ops.h"

#include "../autograd/record.h"
#include "../dispatch/boxing.h"

namespace ember {

using dispatch::OpId;

namespace {

// The window starts along one dimension: alpha = (in - pool) / (out - 1) steps, floored at
// (i + u) * alpha and shifted so the first starts at 0; the last window ends at the input's end.
// Computed in the input's dtype, as PyTorch does.
template <class T>
std::vector<int64_t> generate_intervals(T sample, int64_t in, int64_t out, int64_t pool) {
  std::vector<int64_t> seq(static_cast<size_t>(out));
  if (out > 1) {
    const T alpha = static_cast<T>(in - pool) / static_cast<T>(out - 1);
    for (int64_t i = 0; i < out - 1; ++i) {
      seq[static_cast<size_t>(i)] =
          static_cast<int64_t>((static_cast<T>(i) + sample) * alpha) - static_cast<int64_t>(sample * alpha);
    }
  }
  if (out > 0) seq[static_cast<size_t>(out - 1)] = in - pool;
  return seq;
}

template <int D>
std::string api() {
  return "fractional_max_pool" + std::to_string(D) + "d";
}

// Checks and the batch-first view of the input ([N, C, spatial...]).
template <int D>
void check_args(const Tensor& self, IntArrayRef k, IntArrayRef out, const Tensor& samples) {
  const std::string name = api<D>();
  EMBER_CHECK(static_cast<int>(k.size()) == D, name, ": kernel_size must either be a single Int or tuple of ",
              D == 2 ? "Ints" : "three Ints");
  EMBER_CHECK(static_cast<int>(out.size()) == D, name, ": output_size must either be a single Int or tuple of ",
              D == 2 ? "Ints" : "three Ints");
  const int64_t nd = self.dim();
  EMBER_CHECK(nd == D + 1 || nd == D + 2, name, "(): Expected ", D + 1, "D or ", D + 2, "D tensor, but got: ",
              self.sizes());
  for (int64_t i = 1; i < nd; ++i) {
    EMBER_CHECK(self.size(i) > 0, name, "(): Expected input to have non-zero size for non-batch dimensions, ",
                "but got", self.sizes(), " with dimension ", i, " being empty.");
  }
  // PyTorch's texts and order: 2-d checks height then width (the window may end at the input's
  // end); 3-d (fractional_max_pool3d_out) checks time, width, height, and wants the window to end
  // strictly inside.
  static const char* dims[3] = {"time", "height", "width"};
  const int order2[2] = {0, 1}, order3[3] = {0, 2, 1};
  for (int j = 0; j < D; ++j) {
    const int i = D == 2 ? order2[j] : order3[j];
    const char* what = dims[3 - D + i];
    const int64_t in = self.size(nd - D + i);
    const int64_t end = out[static_cast<size_t>(i)] + k[static_cast<size_t>(i)] - 1;
    EMBER_CHECK(D == 2 ? end <= in : end < in, D == 2 ? name : name + "_out", "(): pool ", what, " ",
                k[static_cast<size_t>(i)], " too large relative to input ", what, " ", in);
  }
  const int64_t N = nd == D + 2 ? self.size(0) : 1, C = self.size(nd - D - 1);
  EMBER_CHECK(samples.dim() == 3 && samples.size(0) >= N && samples.size(1) == C && samples.size(2) == D, name,
              "(): expected random_samples of shape [", N, ", ", C, ", ", D, "], but got ", samples.sizes());
  EMBER_CHECK(samples.dtype() == self.dtype(), name, "(): expected random_samples to have the input's dtype ",
              scalar_type_name(self.dtype()), ", but got ", scalar_type_name(samples.dtype()));
}

template <int D>
DimVector output_shape(const Tensor& self, IntArrayRef out) {
  DimVector shape(self.sizes().begin(), self.sizes().end() - D);
  shape.insert(shape.end(), out.begin(), out.end());
  return shape;
}

// The forward over planes of size in[0] x ... (D dims), samples [planes, D] (order: T/H/W for 3-d,
// W then H for 2-d, as PyTorch draws them).
template <class T, int D>
void fractional_forward(const T* in, const T* samples, T* out, int64_t* idx, int64_t planes,
                        const int64_t* isz, const int64_t* osz, const int64_t* pool) {
  int64_t iplane = 1, oplane = 1;
  for (int d = 0; d < D; ++d) iplane *= isz[d], oplane *= osz[d];
  for (int64_t p = 0; p < planes; ++p) {
    const T* s = samples + p * D;
    std::vector<int64_t> seq[D];
    if constexpr (D == 2) {
      seq[1] = generate_intervals<T>(s[0], isz[1], osz[1], pool[1]);  // W
      seq[0] = generate_intervals<T>(s[1], isz[0], osz[0], pool[0]);  // H
    } else {
      for (int d = 0; d < D; ++d) seq[d] = generate_intervals<T>(s[d], isz[d], osz[d], pool[d]);
    }
    const T* src = in + p * iplane;
    int64_t o = p * oplane;
    int64_t pos[3] = {0, 0, 0};
    for (int64_t q = 0; q < oplane; ++q, ++o) {
      int64_t rem = q, start[3] = {0, 0, 0};
      for (int d = D - 1; d >= 0; --d) {
        pos[d] = rem % osz[d];
        rem /= osz[d];
        start[d] = seq[d][static_cast<size_t>(pos[d])];
      }
      int64_t best = 0;
      for (int d = 0; d < D; ++d) best = best * isz[d] + start[d];
      T best_val = -std::numeric_limits<T>::infinity();
      int64_t w[3] = {0, 0, 0};
      const int64_t total = D == 2 ? pool[0] * pool[1] : pool[0] * pool[1] * pool[2];
      for (int64_t t = 0; t < total; ++t) {
        int64_t r = t;
        for (int d = D - 1; d >= 0; --d) {
          w[d] = start[d] + r % pool[d];
          r /= pool[d];
        }
        int64_t flat = 0;
        for (int d = 0; d < D; ++d) flat = flat * isz[d] + w[d];
        const T v = src[flat];
        if (v > best_val || std::isnan(v)) {
          best_val = v;
          best = flat;
        }
      }
      out[o] = best_val;
      idx[o] = best;
    }
  }
}

template <int D>
std::tuple<Tensor, Tensor> fractional(const Tensor& self, IntArrayRef k, IntArrayRef out_size, const Tensor& samples) {
  check_args<D>(self, k, out_size, samples);
  const DimVector shape = output_shape<D>(self, out_size);
  Tensor idx = empty(shape, TensorOptions(kInt64).device(self.device()));
  if (idx.is_meta()) return {empty(shape, TensorOptions(self.dtype()).device(self.device())), idx};
  const Tensor in = self.contiguous().detach(), s = samples.contiguous();
  Tensor scratch = empty(shape, TensorOptions(self.dtype()));
  int64_t planes = 1;
  for (int64_t d = 0; d < self.dim() - D; ++d) planes *= self.size(d);
  int64_t isz[3], osz[3], pool[3];
  for (int d = 0; d < D; ++d) {
    isz[d] = self.size(self.dim() - D + d);
    osz[d] = out_size[static_cast<size_t>(d)];
    pool[d] = k[static_cast<size_t>(d)];
  }
  const std::string kernel = api<D>() + "_out_frame";
  cpu::dispatch_types(cpu::TypeList<float, double>{}, self.dtype(), kernel.c_str(), [&]<class T>() {
    fractional_forward<T, D>(in.data_ptr<T>(), s.data_ptr<T>(), scratch.data_ptr<T>(), idx.data_ptr<int64_t>(),
                             planes, isz, osz, pool);
  });
  return {scratch, idx};
}

template <int D>
Tensor fractional_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef out_size,
                           const Tensor& indices) {
  const DimVector shape = output_shape<D>(self, out_size);
  EMBER_CHECK(grad_output.sizes() == IntArrayRef(shape) && indices.sizes() == IntArrayRef(shape), api<D>(),
              "_backward(): expected grad_output and indices of shape ", IntArrayRef(shape));
  const int64_t nd = self.dim();
  return zeros(self.sizes(), TensorOptions(grad_output.dtype()).device(self.device()))
      .flatten(nd - D, nd - 1)
      .scatter_add(nd - D, indices.flatten(nd - D, nd - 1), grad_output.flatten(nd - D, nd - 1))
      .view(self.sizes());
}

std::tuple<Tensor, Tensor> fractional2d_impl(const Tensor& self, IntArrayRef kernel_size, IntArrayRef output_size,
                                             const Tensor& random_samples) {
  return fractional<2>(self, kernel_size, output_size, random_samples);
}
std::tuple<Tensor, Tensor> fractional3d_impl(const Tensor& self, IntArrayRef kernel_size, IntArrayRef output_size,
                                             const Tensor& random_samples) {
  return fractional<3>(self, kernel_size, output_size, random_samples);
}
Tensor fractional2d_backward_impl(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                  IntArrayRef output_size, const Tensor& indices) {
  (void)kernel_size;
  return fractional_backward<2>(grad_output, self, output_size, indices);
}
Tensor fractional3d_backward_impl(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                  IntArrayRef output_size, const Tensor& indices) {
  (void)kernel_size;
  return fractional_backward<3>(grad_output, self, output_size, indices);
}

}  // namespace

std::tuple<Tensor, Tensor> fractional_max_pool2d(const Tensor& self, IntArrayRef kernel_size,
                                                 IntArrayRef output_size, const Tensor& random_samples) {
  return dispatch::call<fractional2d_impl>(OpId::fractional_max_pool2d, self, kernel_size, output_size,
                                           random_samples);
}
std::tuple<Tensor, Tensor> fractional_max_pool3d(const Tensor& self, IntArrayRef kernel_size,
                                                 IntArrayRef output_size, const Tensor& random_samples) {
  return dispatch::call<fractional3d_impl>(OpId::fractional_max_pool3d, self, kernel_size, output_size,
                                           random_samples);
}
Tensor fractional_max_pool2d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                      IntArrayRef output_size, const Tensor& indices) {
  return dispatch::call<fractional2d_backward_impl>(OpId::fractional_max_pool2d_backward, grad_output, self,
                                                    kernel_size, output_size, indices);
}
Tensor fractional_max_pool3d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                      IntArrayRef output_size, const Tensor& indices) {
  return dispatch::call<fractional3d_backward_impl>(OpId::fractional_max_pool3d_backward, grad_output, self,
                                                    kernel_size, output_size, indices);
}

// PyTorch's structured kernels name their out= overload when a quantized input finds no kernel.
[[maybe_unused]] static const bool quantized_error_names = [] {
  dispatch::set_quantized_error_name(OpId::fractional_max_pool2d, "aten::fractional_max_pool2d.output");
  dispatch::set_quantized_error_name(OpId::fractional_max_pool3d, "aten::fractional_max_pool3d.output");
  return true;
}();

EMBER_REGISTER_OP(fractional_max_pool2d, &fractional_max_pool2d);
EMBER_REGISTER_OP(fractional_max_pool3d, &fractional_max_pool3d);
EMBER_REGISTER_OP(fractional_max_pool2d_backward, &fractional_max_pool2d_backward);
EMBER_REGISTER_OP(fractional_max_pool3d_backward, &fractional_max_pool3d_backward);

// ---- autograd ----

namespace {

// d self = the output's gradient added at the recorded indices (the backward op).
template <int D>
std::tuple<Tensor, Tensor> fractional_autograd(const Tensor& self, const IntArrayRef& kernel_size,
                                               const IntArrayRef& output_size, const Tensor& random_samples) {
  constexpr auto impl = D == 2 ? &fractional2d_impl : &fractional3d_impl;
  constexpr OpId id = D == 2 ? OpId::fractional_max_pool2d : OpId::fractional_max_pool3d;
  autograd::Recorder r(D == 2 ? "FractionalMaxPool2DBackward0" : "FractionalMaxPool3DBackward0", self);
  auto outs = r.forward([&] { return dispatch::call<impl>(id, self, kernel_size, output_size, random_samples); });
  if (!r) return outs;
  const size_t self_ = r.save(self, "self");
  const size_t indices_ = self_ + 1;  // saved after finish
  const std::vector<int64_t> k(kernel_size.begin(), kernel_size.end()), o(output_size.begin(), output_size.end());
  r.values("kernel_size", k, "output_size", o);
  r.finish(outs, [=](autograd::OpNode& n, const autograd::tensor_list& g) {
    if (!g[0].defined()) return autograd::tensor_list{Tensor()};
    return autograd::tensor_list{D == 2 ? fractional_max_pool2d_backward(g[0], n.saved(self_), k, o, n.saved(indices_))
                                        : fractional_max_pool3d_backward(g[0], n.saved(self_), k, o, n.saved(indices_))};
  });
  r.save_output(std::get<1>(outs), "result1");
  return outs;
}

// PyTorch's derivatives: grad_output gets the gradient gathered at the indices
// (max_pool_double_backward), self none (zeros).
template <int D>
Tensor fractional_backward_autograd(const Tensor& grad_output, const Tensor& self, const IntArrayRef& kernel_size,
                                    const IntArrayRef& output_size, const Tensor& indices) {
  constexpr auto impl = D == 2 ? &fractional2d_backward_impl : &fractional3d_backward_impl;
  constexpr OpId id = D == 2 ? OpId::fractional_max_pool2d_backward : OpId::fractional_max_pool3d_backward;
  autograd::Recorder r(D == 2 ? "FractionalMaxPool2DBackwardBackward0" : "FractionalMaxPool3DBackwardBackward0",
                       grad_output, self);
  Tensor out = r.forward([&] { return dispatch::call<impl>(id, grad_output, self, kernel_size, output_size, indices); });
  if (!r) return out;
  const size_t indices_ = r.save(indices);
  const DimVector self_sizes(self.sizes().begin(), self.sizes().end());
  const ScalarType self_dtype = self.dtype();
  const Device self_device = self.device();
  return r.finish(out, [=](autograd::OpNode& n, const autograd::tensor_list& g) {
    const Tensor idx = n.saved(indices_);
    const int64_t nd = g[0].dim();
    Tensor gg;
    if (n.needs(0)) {
      gg = g[0].flatten(nd - D, nd - 1).gather(nd - D, idx.flatten(idx.dim() - D, idx.dim() - 1)).view(idx.sizes());
    }
    Tensor gs;
    if (n.needs(1)) gs = zeros(self_sizes, TensorOptions(self_dtype).device(self_device));
    return autograd::tensor_list{gg, gs};
  });
}

}  // namespace

EMBER_REGISTER_AUTOGRAD(fractional_max_pool2d, &fractional_autograd<2>);
EMBER_REGISTER_AUTOGRAD(fractional_max_pool3d, &fractional_autograd<3>);
EMBER_REGISTER_AUTOGRAD(fractional_max_pool2d_backward, &fractional_backward_autograd<2>);
EMBER_REGISTER_AUTOGRAD(fractional_max_pool3d_backward, &fractional_backward_autograd<3>);

}  // namespace ember
