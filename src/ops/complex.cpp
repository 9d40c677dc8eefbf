// Complex tensors taken apart and put together (docs/complex.md): view_as_real / view_as_complex
// (views that reinterpret the element type), real / imag (views through view_as_real), complex,
// polar, conj_physical and angle, with their backward rules.
//
// Note [Eager conj]
// PyTorch's conj() is lazy: it returns a view with a "conj bit" that every kernel must honour (or
// resolve first). ember conjugates eagerly: conj() of a complex tensor is conj_physical(), a new
// tensor, and is_conj() is always false. Values, dtypes and gradients are the same; what differs
// is that writing into z.conj() does not write into z (in PyTorch it does), and conj() costs a
// copy. The lazy bit would have to be threaded through every kernel and every view op, for a
// saving that matters mostly on GPUs; resolve_conj() is then the identity.
//
// Note [Complex autograd]
// Gradients of complex tensors follow PyTorch: the gradient handed backward is the conjugate
// Wirtinger derivative, so a holomorphic f gets grad_in = grad_out * conj(f'(z)), and a real
// loss L of a complex z gets dL/dRe + i dL/dIm. The rules write conj(...) around the derivative;
// conj is the identity on real tensors, so one formula serves both. A complex gradient flowing
// into a real input keeps its real part (the engine does that, autograd/engine.cpp).
#include "ember/ops/complex.h"

#include <cmath>

#include "ember/ops/math.h"
#include "ember/ops/pointwise.h"

#include "../autograd/record.h"
#include "../backends/cpu/complex_kernels.h"
#include "../dispatch/boxing.h"
#include "autograd_views.h"
#include "elementwise.h"
#include "pointwise_helpers.h"

namespace ember {

using dispatch::OpId;

namespace {

// A view of self's storage as another element type; sizes, strides and offset in elements of
// `dtype` (Note [View tracking] as ops::make_view).
Tensor reinterpret_view(const Tensor& self, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides,
                        int64_t offset) {
  auto impl = make_intrusive<TensorImpl>(self.impl()->storage(), dtype, sizes, strides, offset);
  impl->set_version_counter(self.impl()->version_counter());
  impl->set_view_of(*self.impl(), GradMode::is_enabled());
  return Tensor(std::move(impl));
}

Tensor view_as_real_impl(const Tensor& self) {
  EMBER_CHECK(self.is_complex(), "view_as_real is only supported for complex tensors");
  DimVector sizes = self.sizes().vec(), strides;
  for (int64_t s : self.strides()) strides.push_back(s * 2);
  sizes.push_back(2);
  strides.push_back(1);
  return reinterpret_view(self, to_real_value_type(self.dtype()), sizes, strides, self.storage_offset() * 2);
}

Tensor view_as_complex_impl(const Tensor& self) {
  const ScalarType t = self.dtype();
  EMBER_CHECK(t == kFloat32 || t == kFloat64,
              "view_as_complex is only supported for float and double tensors (ember has no "
              "complex32), but got a tensor of scalar type: ", scalar_type_name(t));
  EMBER_CHECK(self.dim() != 0, "Input tensor must have one or more dimensions");
  EMBER_CHECK(self.size(-1) == 2, "Tensor must have a last dimension of size 2");
  EMBER_CHECK(self.stride(-1) == 1, "Tensor must have a last dimension with stride 1");
  DimVector sizes, strides;
  for (int64_t d = 0; d + 1 < self.dim(); ++d) {
    EMBER_CHECK(self.stride(d) % 2 == 0, "Tensor must have a stride divisible by 2 for all but last dimension");
    sizes.push_back(self.size(d));
    strides.push_back(self.stride(d) / 2);
  }
  EMBER_CHECK(self.storage_offset() % 2 == 0, "Tensor must have a storage_offset divisible by 2");
  return reinterpret_view(self, to_complex_type(t), sizes, strides, self.storage_offset() / 2);
}

Tensor view_as_real_copy_impl(const Tensor& self) { return view_as_real(self).clone(); }
Tensor view_as_complex_copy_impl(const Tensor& self) { return view_as_complex(self).clone(); }

// PyTorch's real / imag: views through view_as_real (SelectBackward0 records the gradient).
Tensor real_impl(const Tensor& self) { return self.is_complex() ? view_as_real(self).select(-1, 0) : self; }
Tensor imag_impl(const Tensor& self) {
  EMBER_CHECK(self.is_complex(), "imag is not implemented for tensors with non-complex dtypes.");
  return view_as_real(self).select(-1, 1);
}

Tensor complex_impl(const Tensor& real, const Tensor& imag) {
  const ScalarType rt = real.dtype(), it = imag.dtype();
  const bool floating = [](ScalarType t) { return t == kFloat32 || t == kFloat64 || t == kFloat16; }(rt) &&
                        (it == kFloat32 || it == kFloat64 || it == kFloat16);
  EMBER_CHECK(floating, "Expected both inputs to be Half, Float or Double tensors but got ",
              scalar_type_name(rt), " and ", scalar_type_name(it));
  EMBER_CHECK(rt == it, "Expected object of scalar type ", scalar_type_name(rt),
              " but got scalar type ", scalar_type_name(it), " for second argument");
  EMBER_CHECK(rt != kFloat16, "complex: ember has no complex32, so Half parts are not supported");
  const Device device = ops::common_device("complex", {real, imag});
  const DimVector shape = broadcast_shapes(real.sizes(), imag.sizes());
  Tensor out = ops::new_output(shape, to_complex_type(rt), device);
  if (!out.is_meta()) cpu::make_complex_kernel(out, real, imag);
  return out;
}

Tensor polar_impl(const Tensor& abs, const Tensor& angle) {
  // complex() checks the dtypes (PyTorch's polar accepts the same pairs).
  EMBER_CHECK(abs.dtype() == angle.dtype() && is_floating(abs.dtype()),
              "Expected both inputs to be Half, Float or Double tensors but got ",
              scalar_type_name(abs.dtype()), " and ", scalar_type_name(angle.dtype()));
  return complex(abs * cos(angle), abs * sin(angle));
}

Tensor conj_physical_impl(const Tensor& self) {
  if (!self.is_complex()) return self.clone();  // as PyTorch: a copy for real tensors too
  Tensor out = ops::new_output(self.sizes(), self.dtype(), self.device(), {self});
  if (!out.is_meta()) cpu::conj_kernel(out, self);
  return out;
}
Tensor conj_physical__impl(const Tensor& self) {
  if (!self.is_complex()) return self;
  Tensor s = self;
  return s.copy_(conj_physical(self));
}
// The copy variant of PyTorch's lazy _conj, which is defined on complex tensors only (torch
// 1.13 fails an internal assert on real ones; ember says so).
Tensor conj_copy_impl(const Tensor& self) {
  EMBER_CHECK(self.is_complex(), "_conj_copy expects a complex tensor, but got ", scalar_type_name(self.dtype()));
  return conj_physical(self);
}

Tensor angle_impl(const Tensor& self) {
  ops::check_not_quantized("angle", {self});
  const ScalarType t = self.dtype();
  // Integers and bool compute in the default floating dtype, as PyTorch's angle.
  const ScalarType out_t = is_complex(t) ? to_real_value_type(t) : is_floating(t) ? t : default_dtype();
  Tensor out = ops::new_output(self.sizes(), out_t, self.device(), {self});
  if (!out.is_meta()) cpu::angle_kernel(out, is_complex(t) ? self : ops::cast(self, out_t));
  return out;
}

// ---- autograd ----
using autograd::OpNode;
using autograd::tensor_list;

Tensor finish_view(autograd::Recorder& r, const Tensor& self, const Tensor& out, OpNode::Formula f) {
  ops::propagate_view_creation(self, out, r.node().name());
  return r.finish(out, std::move(f));
}

// d view_as_real(z) = view_as_complex(grad): the (re, im) pair's gradient is the complex one.
Tensor view_as_real_autograd(const Tensor& self) {
  autograd::Recorder r("ViewAsRealBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<view_as_real_impl>(OpId::view_as_real, self); });
  if (!r) return out;
  return finish_view(r, self, out, [](OpNode&, const tensor_list& g) {
    return tensor_list{view_as_complex(g[0].contiguous())};
  });
}

Tensor view_as_complex_autograd(const Tensor& self) {
  autograd::Recorder r("ViewAsComplexBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<view_as_complex_impl>(OpId::view_as_complex, self); });
  if (!r) return out;
  return finish_view(r, self, out, [](OpNode&, const tensor_list& g) {
    return tensor_list{view_as_real(g[0].contiguous())};
  });
}

// d complex(re, im) = (real(grad), imag(grad)).
Tensor complex_autograd(const Tensor& re, const Tensor& im) {
  autograd::Recorder r("ComplexBackward0", re, im);
  Tensor out = r.forward([&] { return dispatch::call<complex_impl>(OpId::complex, re, im); });
  if (!r) return out;
  // As PyTorch (its node keeps each operand that requires grad; this rule reads neither).
  r.save_if(r.needs(0), re, "real");
  r.save_if(r.needs(1), im, "imag");
  return r.finish(out, [](OpNode& n, const tensor_list& g) {
    return tensor_list{n.needs(0) ? real(g[0]) : Tensor(), n.needs(1) ? imag(g[0]) : Tensor()};
  });
}

Tensor conj_physical_autograd(const Tensor& self) {
  autograd::Recorder r("ConjPhysicalBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<conj_physical_impl>(OpId::conj_physical, self); });
  if (!r) return out;
  return r.finish(out, [](OpNode&, const tensor_list& g) { return tensor_list{conj_physical(g[0])}; });
}

// PyTorch's angle_backward: for complex z, grad * z / |z|^2 * i (0 at z = 0); real inputs get 0.
Tensor angle_autograd(const Tensor& self) {
  autograd::Recorder r("AngleBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<angle_impl>(OpId::angle, self); });
  if (!r) return out;
  r.save(self, "self");
  return r.finish(out, [](OpNode& n, const tensor_list& g) {
    const Tensor z = n.saved(0);
    if (!z.is_complex()) return tensor_list{zeros_like(z)};
    const Tensor v = g[0] * z / z.abs().pow(2) * Scalar(std::complex<double>(0.0, 1.0));
    return tensor_list{where(eq(z, Scalar(0.0)), zeros({}, TensorOptions(z.dtype())), v)};
  });
}

EMBER_REGISTER_AUTOGRAD(view_as_real, &view_as_real_autograd);
EMBER_REGISTER_AUTOGRAD(view_as_complex, &view_as_complex_autograd);
EMBER_REGISTER_AUTOGRAD(complex, &complex_autograd);
EMBER_REGISTER_AUTOGRAD(conj_physical, &conj_physical_autograd);
EMBER_REGISTER_AUTOGRAD(angle, &angle_autograd);

}  // namespace

Tensor view_as_real(const Tensor& self) { return dispatch::call<view_as_real_impl>(OpId::view_as_real, self); }
Tensor view_as_complex(const Tensor& self) {
  return dispatch::call<view_as_complex_impl>(OpId::view_as_complex, self);
}
Tensor view_as_real_copy(const Tensor& self) {
  return dispatch::call<view_as_real_copy_impl>(OpId::view_as_real_copy, self);
}
Tensor view_as_complex_copy(const Tensor& self) {
  return dispatch::call<view_as_complex_copy_impl>(OpId::view_as_complex_copy, self);
}
Tensor real(const Tensor& self) { return dispatch::call<real_impl>(OpId::real, self); }
Tensor imag(const Tensor& self) { return dispatch::call<imag_impl>(OpId::imag, self); }
Tensor complex(const Tensor& real, const Tensor& imag) {
  return dispatch::call<complex_impl>(OpId::complex, real, imag);
}
Tensor polar(const Tensor& abs, const Tensor& angle) { return dispatch::call<polar_impl>(OpId::polar, abs, angle); }
Tensor conj_physical(const Tensor& self) {
  return dispatch::call<conj_physical_impl>(OpId::conj_physical, self);
}
Tensor& conj_physical_(Tensor& self) {
  dispatch::call<conj_physical__impl>(OpId::conj_physical_, self);
  return self;
}
Tensor _conj_copy(const Tensor& self) { return dispatch::call<conj_copy_impl>(OpId::_conj_copy, self); }
Tensor angle(const Tensor& self) { return dispatch::call<angle_impl>(OpId::angle, self); }

EMBER_REGISTER_OP(view_as_real, &view_as_real);
EMBER_REGISTER_OP(view_as_complex, &view_as_complex);
EMBER_REGISTER_OP(view_as_real_copy, &view_as_real_copy);
EMBER_REGISTER_OP(view_as_complex_copy, &view_as_complex_copy);
EMBER_REGISTER_OP(real, &real);
EMBER_REGISTER_OP(imag, &imag);
EMBER_REGISTER_OP(complex, &complex);
EMBER_REGISTER_OP(polar, &polar);
EMBER_REGISTER_OP(conj_physical, &conj_physical);
EMBER_REGISTER_OP(conj_physical_, &conj_physical_);
EMBER_REGISTER_OP(_conj_copy, &_conj_copy);
EMBER_REGISTER_OP(angle, &angle);

}  // namespace ember
