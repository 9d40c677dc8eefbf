// Quantized tensors: quint8 / qint8 / qint32 codes with a quantizer (per-tensor or per-channel
// affine), the ops that make, read and convert them, and the quantized engine setting.
//
//   auto q = ember::quantize_per_tensor(ember::tensor({0.5f, 1.5f}), 0.1, 10, ember::kQUInt8);
//   ember::int_repr(q);           // tensor([15, 25], dtype=ember.uint8)
//   q.dequantize();               // tensor([0.5000, 1.5000])
//   ember::q_scale(q);            // 0.1
//   ember::set_quantized_engine(ember::QEngine::QNNPACK);
//
// Numerics (quantization-spec § 1.2): q = clamp(z + rint(x * f32(1 / f32(s))), qmin, qmax) with
// ties to even; x = f32(q - z) * f32(s). A quantized tensor's data pointer points at its codes
// (uint8 for quint8, int8 for qint8, int32 for qint32); its quantizer holds the parameters.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ember/memory_format.h"
#include "ember/tensor.h"

namespace ember {

/// PyTorch's c10::QScheme, same numbering.
enum class QScheme : int8_t {
  PerTensorAffine = 0,
  PerChannelAffine = 1,
  PerTensorSymmetric = 2,
  PerChannelSymmetric = 3,
  PerChannelAffineFloatQParams = 4,
};
constexpr int kNumQSchemes = 5;
/// "per_tensor_affine", ... (`ember.per_tensor_affine` in Python).
const char* qscheme_name(QScheme s);

// ---- making and reading quantized tensors (aten ops; src/quant/quantize.cpp) ----
Tensor quantize_per_tensor(const Tensor& self, double scale, int64_t zero_point, ScalarType dtype);
/// The tensor-qparams overload: scale and zero_point are one-element tensors.
Tensor quantize_per_tensor(const Tensor& self, const Tensor& scale, const Tensor& zero_point,
                           ScalarType dtype);
/// The list form: tensors[i] with scales[i], zero_points[i].
std::vector<Tensor> quantize_per_tensor(const std::vector<Tensor>& tensors, const Tensor& scales,
                                        const Tensor& zero_points, ScalarType dtype);
Tensor quantize_per_channel(const Tensor& self, const Tensor& scales, const Tensor& zero_points,
                            int64_t axis, ScalarType dtype);
/// Float32 values of a quantized tensor (a float tensor comes back as float32, as in PyTorch).
Tensor dequantize(const Tensor& self);
std::vector<Tensor> dequantize(const std::vector<Tensor>& tensors);
/// The codes as uint8 / int8 / int32 (a copy, same shape and layout).
Tensor int_repr(const Tensor& self);
double q_scale(const Tensor& self);
int64_t q_zero_point(const Tensor& self);
Tensor q_per_channel_scales(const Tensor& self);       // float64 [C]
Tensor q_per_channel_zero_points(const Tensor& self);  // int64 [C]
int64_t q_per_channel_axis(const Tensor& self);
QScheme qscheme(const Tensor& self);

/// Uninitialised quantized tensors (aten::_empty_affine_quantized, on `device`, cpu by default).
Tensor _empty_affine_quantized(IntArrayRef size, ScalarType dtype, double scale = 1.0,
                               int64_t zero_point = 0,
                               MemoryFormat memory_format = MemoryFormat::Contiguous,
                               std::optional<Device> device = std::nullopt);
Tensor _empty_per_channel_affine_quantized(IntArrayRef size, const Tensor& scales,
                                           const Tensor& zero_points, int64_t axis,
                                           ScalarType dtype,
                                           MemoryFormat memory_format = MemoryFormat::Contiguous,
                                           std::optional<Device> device = std::nullopt);
/// An uninitialised quantized tensor of `size` with `qtensor`'s dtype and quantizer (PyTorch's
/// empty_quantized; here a function, not an op row).
Tensor empty_quantized(IntArrayRef size, const Tensor& qtensor,
                       MemoryFormat memory_format = MemoryFormat::Contiguous,
                       std::optional<Device> device = std::nullopt);
/// A quantized tensor whose codes are a copy of the integer tensor `self` (uint8 -> quint8,
/// int8 -> qint8, int32 -> qint32).
Tensor _make_per_tensor_quantized_tensor(const Tensor& self, double scale, int64_t zero_point);
Tensor _make_per_channel_quantized_tensor(const Tensor& self, const Tensor& scale,
                                          const Tensor& zero_point, int64_t axis);

// ---- fake quantization (float ops; src/quant/fake_quantize.cpp) ----
/// (clamp(z + rint(x * f32(1/s)), qmin, qmax) - z) * s in x's dtype; the gradient passes where
/// the code was inside [quant_min, quant_max].
Tensor fake_quantize_per_tensor_affine(const Tensor& self, double scale, int64_t zero_point,
                                       int64_t quant_min, int64_t quant_max);
Tensor fake_quantize_per_tensor_affine(const Tensor& self, const Tensor& scale,
                                       const Tensor& zero_point, int64_t quant_min,
                                       int64_t quant_max);
/// scale: float [C], zero_point: int32 (or float) [C] along `axis`.
Tensor fake_quantize_per_channel_affine(const Tensor& self, const Tensor& scale,
                                        const Tensor& zero_point, int64_t axis, int64_t quant_min,
                                        int64_t quant_max);

// ---- engines (PyTorch's torch.backends.quantized.engine; src/quant/engine.cpp) ----
/// PyTorch's c10::QEngine, same numbering.
enum class QEngine : int8_t { NoQEngine = 0, FBGEMM = 1, QNNPACK = 2, ONEDNN = 3, X86 = 4 };
/// "NoQEngine", "FBGEMM", "QNNPACK", "ONEDNN", "X86" (c10's toString, used in messages).
const char* qengine_name(QEngine e);
/// The active engine (process-wide; X86, ember's fast engine, by default).
QEngine quantized_engine();
/// Sets the active engine; an engine this build lacks (FBGEMM) is refused with PyTorch's text.
void set_quantized_engine(QEngine e);
/// QNNPACK, NoQEngine, ONEDNN, X86 (PyTorch's order: qnnpack, none, onednn, x86).
std::vector<QEngine> supported_quantized_engines();

}  // namespace ember
