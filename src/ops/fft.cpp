// ember::fft (torch.fft): the three primitives of PyTorch's Core ATen opset, _fft_c2c, _fft_r2c
// and _fft_c2r, with their backward rules, and the public functions, which are composites written
// as PyTorch's aten/src/ATen/native/SpectralOps.cpp writes them (argument checks and texts,
// dtype promotion, padding / trimming to n or s, the normalization modes). The transforms run in
// src/backends/cpu/fft_kernels.cpp (Note [FFT library]).
#include "ember/ops/fft.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "ember/ops/complex.h"
#include "ember/ops/factory.h"
#include "ember/ops/math.h"
#include "ember/ops/pooling.h"
#include "ember/ops/shape.h"
#include "ember/ops/view.h"

#include "../autograd/record.h"
#include "../backends/cpu/fft_kernels.h"
#include "../dispatch/boxing.h"
#include "elementwise.h"

namespace ember {

using dispatch::OpId;

namespace {

// PyTorch's fft_norm_mode.
enum NormMode : int64_t { kNone = 0, kByRootN = 1, kByN = 2 };

NormMode norm_from_string(const std::optional<std::string>& norm, bool forward) {
  if (!norm || *norm == "backward") return forward ? kNone : kByN;
  if (*norm == "forward") return forward ? kByN : kNone;
  if (*norm == "ortho") return kByRootN;
  EMBER_FAIL("Invalid normalization mode: \"", *norm, "\"");
}

// The factor a normalization mode multiplies by, n the product of the signal sizes.
double norm_scale(int64_t normalization, IntArrayRef sizes, IntArrayRef dims) {
  if (normalization == kNone) return 1.0;
  double n = 1;
  for (int64_t d : dims) n *= static_cast<double>(sizes[static_cast<size_t>(d)]);
  EMBER_CHECK(normalization == kByRootN || normalization == kByN, "Unsupported normalization type: ", normalization);
  return normalization == kByN ? 1.0 / n : 1.0 / std::sqrt(n);
}

std::vector<int64_t> wrapped_dims(IntArrayRef dims, int64_t ndim) {
  std::vector<int64_t> out;
  for (int64_t d : dims) out.push_back(wrap_dim(d, ndim));
  return out;
}

// A contiguous complex copy of `self` (real input: imaginary parts 0).
Tensor complex_copy(const Tensor& self, ScalarType complex_type) {
  Tensor out = empty(self.sizes(), TensorOptions(complex_type).device(self.device()));
  if (!out.is_meta()) out.copy_(self);
  return out;
}

// `x` trimmed or zero-padded to `size` along `dim`.
Tensor resize_half_spectrum(const Tensor& x, int64_t dim, int64_t size) {
  const int64_t have = x.size(dim);
  if (have == size) return x;
  if (have > size) return x.narrow(dim, 0, size);
  DimVector sizes = x.sizes().vec();
  sizes[static_cast<size_t>(dim)] = size;
  Tensor out = zeros(sizes, TensorOptions(x.dtype()).device(x.device()));
  out.narrow(dim, 0, have).copy_(x);
  return out;
}

// ---- the primitives ----

Tensor fft_c2c_impl(const Tensor& self, IntArrayRef dim, int64_t normalization, bool forward) {
  EMBER_CHECK(self.is_complex(), "_fft_c2c expects a complex input tensor, but got ", scalar_type_name(self.dtype()));
  const std::vector<int64_t> dims = wrapped_dims(dim, self.dim());
  Tensor out = complex_copy(self, self.dtype());
  if (out.is_meta() || out.numel() == 0) return out;
  cpu::fft_c2c_kernel(out, dims, forward, norm_scale(normalization, self.sizes(), dims));
  return out;
}

Tensor fft_r2c_impl(const Tensor& self, IntArrayRef dim, int64_t normalization, bool onesided) {
  EMBER_CHECK(self.dtype() == kFloat32 || self.dtype() == kFloat64,
              "_fft_r2c expects a float or double input tensor, but got ", scalar_type_name(self.dtype()));
  EMBER_CHECK(!dim.empty(), "_fft_r2c must transform at least one axis");
  const std::vector<int64_t> dims = wrapped_dims(dim, self.dim());
  const int64_t last = dims.back();
  const int64_t n = self.size(last);
  const double scale = norm_scale(normalization, self.sizes(), dims);
  if (!onesided) {
    // The full spectrum (fft of a real input): a complex transform of the promoted input.
    Tensor full = complex_copy(self, to_complex_type(self.dtype()));
    if (!full.is_meta() && full.numel() > 0) cpu::fft_c2c_kernel(full, dims, /*forward=*/true, scale);
    return full;
  }
  // The real transform of the lines along the last dim (half a complex one for even n), then the
  // other dims on the half spectrum, in place.
  DimVector sizes = self.sizes().vec();
  sizes[static_cast<size_t>(last)] = n / 2 + 1;
  Tensor out = empty(sizes, TensorOptions(to_complex_type(self.dtype())).device(self.device()));
  if (out.is_meta() || out.numel() == 0) return out;
  cpu::fft_r2c_kernel(out, self.contiguous(), last, scale);
  const std::vector<int64_t> others(dims.begin(), dims.end() - 1);
  if (!others.empty()) cpu::fft_c2c_kernel(out, others, /*forward=*/true, 1.0);
  return out;
}

Tensor fft_c2r_impl(const Tensor& self, IntArrayRef dim, int64_t normalization, int64_t last_dim_size) {
  EMBER_CHECK(self.is_complex(), "_fft_c2r expects a complex input tensor, but got ", scalar_type_name(self.dtype()));
  EMBER_CHECK(!dim.empty(), "_fft_c2r must transform at least one axis");
  EMBER_CHECK(last_dim_size >= 1, "Invalid number of data points (", last_dim_size, ") specified");
  const std::vector<int64_t> dims = wrapped_dims(dim, self.dim());
  const int64_t last = dims.back();
  DimVector out_sizes = self.sizes().vec();
  out_sizes[static_cast<size_t>(last)] = last_dim_size;
  const ScalarType real_t = to_real_value_type(self.dtype());
  Tensor out = empty(out_sizes, TensorOptions(real_t).device(self.device()));
  if (out.is_meta() || out.numel() == 0) return out;
  // The other dims first, on the half spectrum (a copy, trimmed or zero-padded to n/2+1 along
  // the last dim): each line along the last dim is then the half of a Hermitian spectrum.
  Tensor half = complex_copy(resize_half_spectrum(self, last, last_dim_size / 2 + 1), self.dtype());
  const std::vector<int64_t> others(dims.begin(), dims.end() - 1);
  if (!others.empty()) cpu::fft_c2c_kernel(half, others, /*forward=*/false, 1.0);
  cpu::fft_c2r_kernel(out, half, last, norm_scale(normalization, out_sizes, dims));
  return out;
}

// ---- autograd (PyTorch's derivatives.yaml: fft_r2c_backward, fft_c2r_backward) ----
using autograd::OpNode;
using autograd::tensor_list;

Tensor fft_c2c_autograd(const Tensor& self, const IntArrayRef& dim, const int64_t& normalization, const bool& forward) {
  autograd::Recorder r("FftC2CBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<fft_c2c_impl>(OpId::_fft_c2c, self, dim, normalization, forward); });
  if (!r) return out;
  r.values("dim", dim, "forward", forward, "normalization", normalization);
  return r.finish(out, [dims = dim.vec(), normalization, forward](OpNode&, const tensor_list& g) {
    return tensor_list{_fft_c2c(g[0], dims, normalization, !forward)};
  });
}

// The onesided gradient padded with zeros to the full length, then the inverse c2c's real part.
Tensor fft_r2c_autograd(const Tensor& self, const IntArrayRef& dim, const int64_t& normalization, const bool& onesided) {
  autograd::Recorder r("FftR2CBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<fft_r2c_impl>(OpId::_fft_r2c, self, dim, normalization, onesided); });
  if (!r) return out;
  const int64_t last = wrap_dim(dim.back(), self.dim());
  r.save(self, "self");  // as PyTorch (the rule reads only its length along the last dim)
  r.values("dim", dim, "normalization", normalization, "onesided", onesided);
  return r.finish(out, [dims = dim.vec(), normalization, onesided, last, n = self.size(last)](OpNode&, const tensor_list& g) {
    Tensor full = g[0];
    if (onesided && n > g[0].size(last)) {
      DimVector sizes = g[0].sizes().vec();
      sizes[static_cast<size_t>(last)] = n;
      full = zeros(sizes, TensorOptions(g[0].dtype()).device(g[0].device()));
      full.narrow(last, 0, g[0].size(last)).copy_(g[0]);
    }
    return tensor_list{real(_fft_c2c(full, dims, normalization, /*forward=*/false))};
  });
}

// rfft of the gradient, with the frequencies whose mirror image fell outside the onesided range
// counted twice.
Tensor fft_c2r_autograd(const Tensor& self, const IntArrayRef& dim, const int64_t& normalization, const int64_t& last_dim_size) {
  autograd::Recorder r("FftC2RBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<fft_c2r_impl>(OpId::_fft_c2r, self, dim, normalization, last_dim_size); });
  if (!r) return out;
  const int64_t last = wrap_dim(dim.back(), self.dim());
  r.values("dim", dim, "normalization", normalization);
  return r.finish(out, [dims = dim.vec(), normalization, last](OpNode&, const tensor_list& g) {
    Tensor gi = _fft_r2c(g[0], dims, normalization, /*onesided=*/true);
    const int64_t double_length = g[0].size(last) - gi.size(last);
    if (double_length > 0) gi.narrow(last, 1, double_length).mul_(2);
    return tensor_list{gi};
  });
}

EMBER_REGISTER_AUTOGRAD(_fft_c2c, &fft_c2c_autograd);
EMBER_REGISTER_AUTOGRAD(_fft_r2c, &fft_r2c_autograd);
EMBER_REGISTER_AUTOGRAD(_fft_c2r, &fft_c2r_autograd);

// ---- the public functions (composites) ----

// PyTorch's promote_type_fft: integers and bool to the default dtype; float and double only.
Tensor promote_fft(const Tensor& t, bool require_complex) {
  ScalarType type = t.dtype();
  if (is_complex(type)) return t;
  if (!is_floating(type)) type = default_dtype();
  EMBER_CHECK(type == kFloat32 || type == kFloat64, "Unsupported dtype ", scalar_type_name(type));
  if (require_complex) type = to_complex_type(type);
  return t.dtype() == type ? t : t.to(type);
}

// Zero-pads or trims `x` to `sizes` along `dims` (-1: leave that dim).
Tensor resize_fft_input(Tensor x, IntArrayRef dims, IntArrayRef sizes) {
  bool must_pad = false;
  std::vector<int64_t> pad(static_cast<size_t>(x.dim()) * 2, 0);
  for (size_t i = 0; i < dims.size(); ++i) {
    if (sizes[i] == -1) continue;
    const int64_t have = x.size(dims[i]);
    if (have < sizes[i]) {
      must_pad = true;
      pad[pad.size() - 2 * static_cast<size_t>(dims[i]) - 1] = sizes[i] - have;
    }
    if (have > sizes[i]) x = x.slice(dims[i], 0, sizes[i]);
  }
  return must_pad ? constant_pad_nd(x, pad) : x;
}

int64_t fft_dim(const Tensor& input, int64_t dim, std::optional<int64_t> n) {
  EMBER_CHECK(input.dim() > 0 || n, "Invalid number of data points (0) specified");
  return wrap_dim(dim, std::max<int64_t>(input.dim(), 1));
}

Tensor fft_c2c_1d(const char* name, Tensor input, std::optional<int64_t> n_opt, int64_t unwrapped_dim,
                  const std::optional<std::string>& norm_str, bool forward) {
  EMBER_CHECK(input.is_complex(), name, " expects a complex input tensor, but got ", scalar_type_name(input.dtype()));
  const int64_t dim = fft_dim(input, unwrapped_dim, n_opt);
  const int64_t n = n_opt.value_or(input.size(dim));
  EMBER_CHECK(n >= 1, "Invalid number of data points (", n, ") specified");
  if (n_opt) input = resize_fft_input(input, {dim}, {n});
  return _fft_c2c(input, {dim}, norm_from_string(norm_str, forward), forward);
}

Tensor fft_r2c_1d(const char* name, Tensor input, std::optional<int64_t> n_opt, int64_t unwrapped_dim,
                  const std::optional<std::string>& norm_str, bool forward, bool onesided) {
  EMBER_CHECK(!input.is_complex(), name, " expects a real input tensor, but got ", scalar_type_name(input.dtype()));
  input = promote_fft(input, false);
  const int64_t dim = fft_dim(input, unwrapped_dim, n_opt);
  const int64_t n = n_opt.value_or(input.size(dim));
  EMBER_CHECK(n >= 1, "Invalid number of data points (", n, ") specified");
  if (n_opt) input = resize_fft_input(input, {dim}, {n});
  Tensor ret = _fft_r2c(input, {dim}, norm_from_string(norm_str, forward), onesided);
  return forward ? ret : conj(ret);
}

Tensor fft_c2r_1d(Tensor input, std::optional<int64_t> n_opt, int64_t unwrapped_dim,
                  const std::optional<std::string>& norm_str, bool forward) {
  input = promote_fft(input, true);
  const int64_t dim = fft_dim(input, unwrapped_dim, n_opt);
  const int64_t n = n_opt.value_or(2 * (input.size(dim) - 1));
  EMBER_CHECK(n >= 1, "Invalid number of data points (", n, ") specified");
  if (n_opt) input = resize_fft_input(input, {dim}, {n / 2 + 1});
  if (forward) input = conj(input);
  return _fft_c2r(input, {dim}, norm_from_string(norm_str, forward), n);
}

struct ShapeAndDims {
  std::vector<int64_t> shape, dim;
};

// PyTorch's canonicalize_fft_shape_and_dim_args.
ShapeAndDims canonicalize(const Tensor& input, const fft::OptInts& shape, const fft::OptInts& dim) {
  const int64_t input_dim = input.dim();
  ShapeAndDims ret;
  if (dim) {
    for (int64_t d : *dim) ret.dim.push_back(wrap_dim(d, input_dim));
    std::vector<int64_t> sorted = ret.dim;
    std::sort(sorted.begin(), sorted.end());
    EMBER_CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(), "FFT dims must be unique");
  }
  if (shape) {
    EMBER_CHECK(!dim || dim->size() == shape->size(), "When given, dim and shape arguments must have the same length");
    const auto transform_ndim = static_cast<int64_t>(shape->size());
    EMBER_CHECK(transform_ndim <= input_dim, "Got shape with ", transform_ndim, " values but input tensor only has ",
                input_dim, " dimensions.");
    if (!dim) {
      ret.dim.resize(static_cast<size_t>(transform_ndim));
      std::iota(ret.dim.begin(), ret.dim.end(), input_dim - transform_ndim);
    }
    for (size_t i = 0; i < shape->size(); ++i) {
      ret.shape.push_back((*shape)[i] == -1 ? input.size(ret.dim[i]) : (*shape)[i]);
    }
  } else if (!dim) {
    ret.dim.resize(static_cast<size_t>(input_dim));
    std::iota(ret.dim.begin(), ret.dim.end(), int64_t{0});
    ret.shape = input.sizes().vec();
  } else {
    for (int64_t d : ret.dim) ret.shape.push_back(input.size(d));
  }
  for (int64_t s : ret.shape) EMBER_CHECK(s > 0, "Invalid number of data points (", s, ") specified");
  return ret;
}

Tensor fftn_c2c(const Tensor& self, const fft::OptInts& s, const fft::OptInts& dim,
                const std::optional<std::string>& norm, bool forward) {
  const ShapeAndDims desc = canonicalize(self, s, dim);
  const Tensor input = promote_fft(self, true);
  const Tensor x = resize_fft_input(input, desc.dim, desc.shape);
  return _fft_c2c(x, desc.dim, norm_from_string(norm, forward), forward);
}

Tensor rfftn_impl(const char* name, const Tensor& self, const fft::OptInts& s, const fft::OptInts& dim,
                  const std::optional<std::string>& norm) {
  EMBER_CHECK(!self.is_complex(), name, " expects a real-valued input tensor, but got ", scalar_type_name(self.dtype()));
  const ShapeAndDims desc = canonicalize(self, s, dim);
  EMBER_CHECK(!desc.shape.empty(), name, " must transform at least one axis");
  const Tensor x = resize_fft_input(promote_fft(self, false), desc.dim, desc.shape);
  return _fft_r2c(x, desc.dim, norm_from_string(norm, true), /*onesided=*/true);
}

// irfftn's and hfftn's shape: the last dim's default length is 2*(m-1) from the m given.
ShapeAndDims c2r_shape(const char* name, const Tensor& self, const fft::OptInts& s, const fft::OptInts& dim,
                       int64_t& last_dim_size) {
  ShapeAndDims desc = canonicalize(self, s, dim);
  EMBER_CHECK(!desc.shape.empty(), name, " must transform at least one axis");
  if (!s || s->back() == -1) last_dim_size = 2 * (self.size(desc.dim.back()) - 1);
  else last_dim_size = desc.shape.back();
  EMBER_CHECK(last_dim_size >= 1, "Invalid number of data points (", last_dim_size, ") specified");
  desc.shape.back() = last_dim_size / 2 + 1;
  return desc;
}

Tensor irfftn_impl(const Tensor& self, const fft::OptInts& s, const fft::OptInts& dim, const std::optional<std::string>& norm) {
  int64_t last_dim_size = 0;
  const ShapeAndDims desc = c2r_shape("irfftn", self, s, dim, last_dim_size);
  const Tensor x = resize_fft_input(promote_fft(self, true), desc.dim, desc.shape);
  return _fft_c2r(x, desc.dim, norm_from_string(norm, false), last_dim_size);
}

Tensor hfftn_impl(const Tensor& self, const fft::OptInts& s, const fft::OptInts& dim, const std::optional<std::string>& norm) {
  int64_t last_dim_size = 0;
  const ShapeAndDims desc = c2r_shape("hfftn", self, s, dim, last_dim_size);
  const Tensor x = resize_fft_input(promote_fft(self, true), desc.dim, desc.shape);
  const int64_t mode = norm_from_string(norm, true);
  Tensor tmp = x;
  if (desc.dim.size() > 1) tmp = _fft_c2c(x, IntArrayRef(desc.dim).slice(0, desc.dim.size() - 1), mode, true);
  return _fft_c2r(conj(tmp), {desc.dim.back()}, mode, last_dim_size);
}

Tensor ihfftn_impl(const Tensor& self, const fft::OptInts& s, const fft::OptInts& dim, const std::optional<std::string>& norm) {
  EMBER_CHECK(!self.is_complex(), "ihfftn expects a real-valued input tensor, but got ", scalar_type_name(self.dtype()));
  const ShapeAndDims desc = canonicalize(self, s, dim);
  EMBER_CHECK(!desc.shape.empty(), "ihfftn must transform at least one axis");
  const Tensor x = resize_fft_input(promote_fft(self, false), desc.dim, desc.shape);
  const int64_t mode = norm_from_string(norm, false);
  Tensor tmp = _fft_r2c(x, {desc.dim.back()}, mode, /*onesided=*/true);
  if (desc.dim.size() == 1) return conj(tmp);
  return _fft_c2c(conj_physical(tmp), IntArrayRef(desc.dim).slice(0, desc.dim.size() - 1), mode, false);
}

// ---- the composites' bodies (schema-shaped) ----
using OptStr = std::optional<std::string>;
using OptInt = std::optional<int64_t>;
using OptInts = fft::OptInts;

Tensor fft_impl(const Tensor& t, OptInt n, int64_t d, OptStr nm) {
  return t.is_complex() ? fft_c2c_1d("fft", t, n, d, nm, true) : fft_r2c_1d("fft", t, n, d, nm, true, false);
}
Tensor ifft_impl(const Tensor& t, OptInt n, int64_t d, OptStr nm) {
  return t.is_complex() ? fft_c2c_1d("ifft", t, n, d, nm, false) : fft_r2c_1d("ifft", t, n, d, nm, false, false);
}
Tensor rfft_impl(const Tensor& t, OptInt n, int64_t d, OptStr nm) { return fft_r2c_1d("rfft", t, n, d, nm, true, true); }
Tensor irfft_impl(const Tensor& t, OptInt n, int64_t d, OptStr nm) { return fft_c2r_1d(t, n, d, nm, false); }
Tensor hfft_impl(const Tensor& t, OptInt n, int64_t d, OptStr nm) { return fft_c2r_1d(t, n, d, nm, true); }
Tensor ihfft_impl(const Tensor& t, OptInt n, int64_t d, OptStr nm) { return fft_r2c_1d("ihfft", t, n, d, nm, false, true); }

Tensor fftn_impl(const Tensor& t, OptInts s, OptInts d, OptStr nm) { return fftn_c2c(t, s, d, nm, true); }
Tensor ifftn_impl(const Tensor& t, OptInts s, OptInts d, OptStr nm) { return fftn_c2c(t, s, d, nm, false); }
Tensor rfftn_op_impl(const Tensor& t, OptInts s, OptInts d, OptStr nm) { return rfftn_impl("rfftn", t, s, d, nm); }
Tensor irfftn_op_impl(const Tensor& t, OptInts s, OptInts d, OptStr nm) { return irfftn_impl(t, s, d, nm); }
Tensor hfftn_op_impl(const Tensor& t, OptInts s, OptInts d, OptStr nm) { return hfftn_impl(t, s, d, nm); }
Tensor ihfftn_op_impl(const Tensor& t, OptInts s, OptInts d, OptStr nm) { return ihfftn_impl(t, s, d, nm); }

// The 2-d forms: the n-d ones over `dim` (default the last two), with their own names in texts.
Tensor fft2_impl(const Tensor& t, OptInts s, IntArrayRef d, OptStr nm) { return fftn_c2c(t, s, d.vec(), nm, true); }
Tensor ifft2_impl(const Tensor& t, OptInts s, IntArrayRef d, OptStr nm) { return fftn_c2c(t, s, d.vec(), nm, false); }
Tensor rfft2_impl(const Tensor& t, OptInts s, IntArrayRef d, OptStr nm) { return rfftn_impl("rfftn", t, s, d.vec(), nm); }
Tensor irfft2_impl(const Tensor& t, OptInts s, IntArrayRef d, OptStr nm) { return irfftn_impl(t, s, d.vec(), nm); }
Tensor hfft2_impl(const Tensor& t, OptInts s, IntArrayRef d, OptStr nm) { return hfftn_impl(t, s, d.vec(), nm); }
Tensor ihfft2_impl(const Tensor& t, OptInts s, IntArrayRef d, OptStr nm) { return ihfftn_impl(t, s, d.vec(), nm); }

// [0, 1, ..., (n-1)/2, -(n/2), ..., -1] / (d*n), as PyTorch computes it (arange, then scale).
Tensor fftfreq_impl(int64_t n, double d, std::optional<ScalarType> dtype, std::optional<int64_t> /*layout*/,
                    std::optional<Device> device, std::optional<bool> /*pin_memory*/) {
  TensorOptions o = TensorOptions(dtype.value_or(default_dtype()));
  if (device) o = o.device(*device);
  Tensor result = arange(n, o);
  if (result.is_meta()) return result;
  result.slice(0, (n + 1) / 2).copy_(arange(-(n / 2), 0, 1, o));
  return result.mul_(1.0 / (static_cast<double>(n) * d));
}
Tensor rfftfreq_impl(int64_t n, double d, std::optional<ScalarType> dtype, std::optional<int64_t> /*layout*/,
                     std::optional<Device> device, std::optional<bool> /*pin_memory*/) {
  TensorOptions o = TensorOptions(dtype.value_or(default_dtype()));
  if (device) o = o.device(*device);
  Tensor result = arange(n / 2 + 1, o);
  if (result.is_meta()) return result;
  return result.mul_(1.0 / (static_cast<double>(n) * d));
}

// roll by size/2 ((size+1)/2 for the inverse) along dims (all by default).
Tensor shift_impl(const Tensor& t, const OptInts& dim, bool inverse) {
  std::vector<int64_t> dims;
  if (dim) {
    for (int64_t d : *dim) dims.push_back(wrap_dim(d, t.dim()));
  } else {
    dims.resize(static_cast<size_t>(t.dim()));
    std::iota(dims.begin(), dims.end(), int64_t{0});
  }
  std::vector<int64_t> shifts;
  for (int64_t d : dims) shifts.push_back(inverse ? (t.size(d) + 1) / 2 : t.size(d) / 2);
  return roll(t, shifts, dims);
}
Tensor fftshift_impl(const Tensor& t, OptInts dim) { return shift_impl(t, dim, false); }
Tensor ifftshift_impl(const Tensor& t, OptInts dim) { return shift_impl(t, dim, true); }

}  // namespace

// ---- public C++ API ----

Tensor _fft_c2c(const Tensor& self, IntArrayRef dim, int64_t normalization, bool forward) {
  return dispatch::call<fft_c2c_impl>(OpId::_fft_c2c, self, dim, normalization, forward);
}
Tensor _fft_r2c(const Tensor& self, IntArrayRef dim, int64_t normalization, bool onesided) {
  return dispatch::call<fft_r2c_impl>(OpId::_fft_r2c, self, dim, normalization, onesided);
}
Tensor _fft_c2r(const Tensor& self, IntArrayRef dim, int64_t normalization, int64_t last_dim_size) {
  return dispatch::call<fft_c2r_impl>(OpId::_fft_c2r, self, dim, normalization, last_dim_size);
}

namespace fft {

#define EMBER_FFT_1D(name)                                                   \
  Tensor name(const Tensor& self, OptInt n, int64_t dim, OptStr norm) {      \
    return dispatch::call<name##_impl>(OpId::fft_##name, self, n, dim, norm); \
  }
EMBER_FFT_1D(fft)
EMBER_FFT_1D(ifft)
EMBER_FFT_1D(rfft)
EMBER_FFT_1D(irfft)
EMBER_FFT_1D(hfft)
EMBER_FFT_1D(ihfft)
#undef EMBER_FFT_1D

#define EMBER_FFT_2D(name)                                                                          \
  Tensor name(const Tensor& self, OptInts s, std::vector<int64_t> dim, OptStr norm) {               \
    return dispatch::call<name##_impl>(OpId::fft_##name, self, s, IntArrayRef(dim), norm);          \
  }
EMBER_FFT_2D(fft2)
EMBER_FFT_2D(ifft2)
EMBER_FFT_2D(rfft2)
EMBER_FFT_2D(irfft2)
EMBER_FFT_2D(hfft2)
EMBER_FFT_2D(ihfft2)
#undef EMBER_FFT_2D

Tensor fftn(const Tensor& self, OptInts s, OptInts dim, OptStr norm) {
  return dispatch::call<fftn_impl>(OpId::fft_fftn, self, s, dim, norm);
}
Tensor ifftn(const Tensor& self, OptInts s, OptInts dim, OptStr norm) {
  return dispatch::call<ifftn_impl>(OpId::fft_ifftn, self, s, dim, norm);
}
Tensor rfftn(const Tensor& self, OptInts s, OptInts dim, OptStr norm) {
  return dispatch::call<rfftn_op_impl>(OpId::fft_rfftn, self, s, dim, norm);
}
Tensor irfftn(const Tensor& self, OptInts s, OptInts dim, OptStr norm) {
  return dispatch::call<irfftn_op_impl>(OpId::fft_irfftn, self, s, dim, norm);
}
Tensor hfftn(const Tensor& self, OptInts s, OptInts dim, OptStr norm) {
  return dispatch::call<hfftn_op_impl>(OpId::fft_hfftn, self, s, dim, norm);
}
Tensor ihfftn(const Tensor& self, OptInts s, OptInts dim, OptStr norm) {
  return dispatch::call<ihfftn_op_impl>(OpId::fft_ihfftn, self, s, dim, norm);
}

Tensor fftfreq(int64_t n, double d, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return dispatch::call<fftfreq_impl>(OpId::fft_fftfreq, n, d, dtype, std::optional<int64_t>(), device,
                                      std::optional<bool>());
}
Tensor rfftfreq(int64_t n, double d, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return dispatch::call<rfftfreq_impl>(OpId::fft_rfftfreq, n, d, dtype, std::optional<int64_t>(), device,
                                       std::optional<bool>());
}
Tensor fftshift(const Tensor& self, OptInts dim) { return dispatch::call<fftshift_impl>(OpId::fft_fftshift, self, dim); }
Tensor ifftshift(const Tensor& self, OptInts dim) { return dispatch::call<ifftshift_impl>(OpId::fft_ifftshift, self, dim); }

}  // namespace fft

namespace {
// The boxed entries: the schema's arguments in order (fftfreq's layout and pin_memory too).
Tensor fftfreq_op(int64_t n, double d, std::optional<ScalarType> dtype, std::optional<int64_t> layout,
                  std::optional<Device> device, std::optional<bool> pin_memory) {
  return dispatch::call<fftfreq_impl>(OpId::fft_fftfreq, n, d, dtype, layout, device, pin_memory);
}
Tensor rfftfreq_op(int64_t n, double d, std::optional<ScalarType> dtype, std::optional<int64_t> layout,
                   std::optional<Device> device, std::optional<bool> pin_memory) {
  return dispatch::call<rfftfreq_impl>(OpId::fft_rfftfreq, n, d, dtype, layout, device, pin_memory);
}
Tensor fft2_op(const Tensor& self, fft::OptInts s, IntArrayRef dim, fft::OptStr norm) {
  return dispatch::call<fft2_impl>(OpId::fft_fft2, self, s, dim, norm);
}
Tensor ifft2_op(const Tensor& self, fft::OptInts s, IntArrayRef dim, fft::OptStr norm) {
  return dispatch::call<ifft2_impl>(OpId::fft_ifft2, self, s, dim, norm);
}
Tensor rfft2_op(const Tensor& self, fft::OptInts s, IntArrayRef dim, fft::OptStr norm) {
  return dispatch::call<rfft2_impl>(OpId::fft_rfft2, self, s, dim, norm);
}
Tensor irfft2_op(const Tensor& self, fft::OptInts s, IntArrayRef dim, fft::OptStr norm) {
  return dispatch::call<irfft2_impl>(OpId::fft_irfft2, self, s, dim, norm);
}
Tensor hfft2_op(const Tensor& self, fft::OptInts s, IntArrayRef dim, fft::OptStr norm) {
  return dispatch::call<hfft2_impl>(OpId::fft_hfft2, self, s, dim, norm);
}
Tensor ihfft2_op(const Tensor& self, fft::OptInts s, IntArrayRef dim, fft::OptStr norm) {
  return dispatch::call<ihfft2_impl>(OpId::fft_ihfft2, self, s, dim, norm);
}
}  // namespace

EMBER_REGISTER_OP(_fft_c2c, &_fft_c2c);
EMBER_REGISTER_OP(_fft_r2c, &_fft_r2c);
EMBER_REGISTER_OP(_fft_c2r, &_fft_c2r);
EMBER_REGISTER_OP(fft_fft, &fft::fft);
EMBER_REGISTER_OP(fft_ifft, &fft::ifft);
EMBER_REGISTER_OP(fft_rfft, &fft::rfft);
EMBER_REGISTER_OP(fft_irfft, &fft::irfft);
EMBER_REGISTER_OP(fft_hfft, &fft::hfft);
EMBER_REGISTER_OP(fft_ihfft, &fft::ihfft);
EMBER_REGISTER_OP(fft_fft2, &fft2_op);
EMBER_REGISTER_OP(fft_ifft2, &ifft2_op);
EMBER_REGISTER_OP(fft_rfft2, &rfft2_op);
EMBER_REGISTER_OP(fft_irfft2, &irfft2_op);
EMBER_REGISTER_OP(fft_hfft2, &hfft2_op);
EMBER_REGISTER_OP(fft_ihfft2, &ihfft2_op);
EMBER_REGISTER_OP(fft_fftn, &fft::fftn);
EMBER_REGISTER_OP(fft_ifftn, &fft::ifftn);
EMBER_REGISTER_OP(fft_rfftn, &fft::rfftn);
EMBER_REGISTER_OP(fft_irfftn, &fft::irfftn);
EMBER_REGISTER_OP(fft_hfftn, &fft::hfftn);
EMBER_REGISTER_OP(fft_ihfftn, &fft::ihfftn);
EMBER_REGISTER_OP(fft_fftfreq, &fftfreq_op);
EMBER_REGISTER_OP(fft_rfftfreq, &rfftfreq_op);
EMBER_REGISTER_OP(fft_fftshift, &fft::fftshift);
EMBER_REGISTER_OP(fft_ifftshift, &fft::ifftshift);

}  // namespace ember
