// CPU kernels of src/ops/special_functions.cpp: ember.special's Bessel functions, Airy Ai, the
// orthogonal polynomials and igamma / igammac, over the scalar functions of special_functions.h.
// Operands arrive broadcast and converted to the output's dtype.
#pragma once

#include "ember/tensor.h"

namespace ember::cpu {

enum class SpecialUnaryOp {
  AiryAi, BesselJ0, BesselJ1, BesselY0, BesselY1, ModifiedI0, ModifiedI1, ModifiedK0, ModifiedK1,
  ScaledK0, ScaledK1, SphericalJ0,
};
enum class SpecialBinaryOp {
  ChebyshevT, ChebyshevU, ChebyshevV, ChebyshevW, ShiftedT, ShiftedU, ShiftedV, ShiftedW,
  HermiteH, HermiteHe, LaguerreL, LegendreP,
};
/// PyTorch's name for the op ("bessel_j0"), its kernel being "<name>_cpu".
const char* special_op_name(SpecialUnaryOp op);
const char* special_op_name(SpecialBinaryOp op);
/// Every floating dtype (16-bit floats through float; PyTorch 1.13 has float and double CPU
/// kernels for the Bessel functions and polynomials only, a gap ember does not copy).
void special_unary_kernel(SpecialUnaryOp op, const Tensor& out, const Tensor& in);
/// The polynomials (x, n), every floating dtype (igamma / igammac: math_more_kernels.h).
void special_binary_kernel(SpecialBinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b);
/// The scalar functions themselves, in double (the *_ref of the kernels' tests).
double special_unary_ref(SpecialUnaryOp op, double x);
double special_binary_ref(SpecialBinaryOp op, double a, double b);

}  // namespace ember::cpu
