// Complex tensors (complex64 / complex128, docs/complex.md): building them, taking them apart,
// and the views between a complex tensor and its (..., 2) real twin.
//
//   auto z = ember::complex(re, im);           // re + i*im, complex64 from float32 parts
//   auto r = ember::view_as_real(z);           // shape (..., 2), shares z's memory
//   ember::real(z).fill_(0);                   // writes into z: real / imag are views
//   auto a = ember::abs(z);                    // float32 magnitudes; ember::angle(z) the phases
#pragma once

#include "ember/tensor.h"

namespace ember {

/// A complex tensor as a real one with a trailing dimension of size 2 (real, imag): a view.
Tensor view_as_real(const Tensor& self);
/// The inverse: a real tensor whose last dimension has size 2 and stride 1 seen as complex.
Tensor view_as_complex(const Tensor& self);
Tensor view_as_real_copy(const Tensor& self);
Tensor view_as_complex_copy(const Tensor& self);
/// The real / imaginary part of a complex tensor as a view (real() of a real tensor is itself).
Tensor real(const Tensor& self);
Tensor imag(const Tensor& self);
/// real + i*imag from two float tensors of the same dtype (broadcast).
Tensor complex(const Tensor& real, const Tensor& imag);
/// abs * (cos(angle) + i*sin(angle)).
Tensor polar(const Tensor& abs, const Tensor& angle);
/// The complex conjugate, always a new tensor (Note [Eager conj]); for real tensors a copy.
Tensor conj_physical(const Tensor& self);
Tensor& conj_physical_(Tensor& self);
Tensor _conj_copy(const Tensor& self);
/// conj(t) for complex t, t itself otherwise without a dispatch: the conjugate in backward rules
/// (Note [Complex autograd]), free on real tensors.
inline Tensor conj_if_complex(const Tensor& t) { return t.is_complex() ? conj_physical(t) : t; }
/// The argument of each element (atan2(imag, real)); for real input 0 or pi (nan stays nan).
Tensor angle(const Tensor& self);

}  // namespace ember
