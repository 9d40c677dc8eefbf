// Element types, their C++ twins, type promotion and the one dtype switch.
//
//   ember::ScalarType t = ember::promote_types(ember::kInt64, ember::kFloat32);  // kFloat32
//   ember::visit_dtype(t, [&]<class T>() { ... T is float here ... });
#pragma once

#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>

#include "ember/error.h"
#include "ember/half.h"

namespace ember {

// The order matches no external numbering; names follow PyTorch's `torch.<name>`.
enum class ScalarType : int8_t {
  Float32,
  Float64,
  Float16,
  BFloat16,
  Int8,
  UInt8,
  Int16,
  Int32,
  Int64,
  Bool,
  QUInt8,
  QInt8,
  QInt32,
  ComplexFloat,   // complex64: two float32, C++ twin std::complex<float> (Note [Complex dtypes])
  ComplexDouble,  // complex128: two float64, std::complex<double>
  QUInt4x2,       // two unsigned 4-bit codes per byte (Note [Sub-byte quantized dtypes])
  QUInt2x4,       // four unsigned 2-bit codes per byte
  Undefined,
};
constexpr int kNumScalarTypes = static_cast<int>(ScalarType::Undefined);

constexpr ScalarType kFloat32 = ScalarType::Float32, kFloat = kFloat32;
constexpr ScalarType kFloat64 = ScalarType::Float64, kDouble = kFloat64;
constexpr ScalarType kFloat16 = ScalarType::Float16, kHalf = kFloat16;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;
constexpr ScalarType kInt8 = ScalarType::Int8, kChar = kInt8;
constexpr ScalarType kUInt8 = ScalarType::UInt8, kByte = kUInt8;
constexpr ScalarType kInt16 = ScalarType::Int16, kShort = kInt16;
constexpr ScalarType kInt32 = ScalarType::Int32, kInt = kInt32;
constexpr ScalarType kInt64 = ScalarType::Int64, kLong = kInt64;
constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kQUInt8 = ScalarType::QUInt8;
constexpr ScalarType kQInt8 = ScalarType::QInt8;
constexpr ScalarType kQInt32 = ScalarType::QInt32;
constexpr ScalarType kComplexFloat = ScalarType::ComplexFloat, kComplex64 = kComplexFloat;
constexpr ScalarType kComplexDouble = ScalarType::ComplexDouble, kComplex128 = kComplexDouble;
constexpr ScalarType kQUInt4x2 = ScalarType::QUInt4x2;
constexpr ScalarType kQUInt2x4 = ScalarType::QUInt2x4;

// Note [Sub-byte quantized dtypes]
// quint4x2 / quint2x4 (PyTorch's, for embedding tables) pack 2 / 4 codes per byte, the first
// code in the low bits, in the tensor's flat (row-major) element order. element_size() is 1 as
// in PyTorch: a row of `cols` codes takes ceil(cols / codes_per_byte) bytes of storage, and
// offsets and int_repr() count bytes, as PyTorch's do. Only the ops that PyTorch implements for
// them take them (quantize / dequantize, int_repr, the embedding prepack); the generic
// quantized kernels (visit_codes) refuse them with a clear error.

// Note [Complex dtypes]
// complex64 / complex128 hold std::complex<float> / std::complex<double>: the layout
// (real, imag) is the one PyTorch, numpy, BLAS (cgemm / zgemm) and FFT libraries use, so
// buffers cross to all of them without a copy, and the standard library brings the arithmetic
// and the elementary functions (exp, log, sqrt, ...) with their branch cuts. A type of ember's
// own would have to re-write those; c10::complex exists for CUDA, which ember has not.
// Complex dtypes are not in visit_dtype: ordering, rounding and bit ops have no meaning on
// them, so an op that does not name complex explicitly (visit_dtype_and_complex, or the kernels'
// complex type lists) raises PyTorch's "... not implemented for 'ComplexFloat'" and never
// instantiates a template for them. is_floating() is false for them, as is_floating_point() is
// in PyTorch; promote_types and result_type treat them as the highest category.

/// "float32", "bfloat16", ... as PyTorch's `str(torch.bfloat16)` minus the "torch." prefix.
const char* dtype_name(ScalarType t);
/// "ember.float32" — the form used in reprs and messages.
std::string dtype_repr(ScalarType t);
/// "Float", "Long", "BFloat16", ... — the C++ ScalarType names PyTorch uses in some messages.
const char* scalar_type_name(ScalarType t);
/// Inverse of dtype_name; also accepts PyTorch aliases ("float", "long", "half"...). Throws on unknown.
ScalarType dtype_from_name(const std::string& name);

size_t element_size(ScalarType t);
constexpr bool is_floating(ScalarType t) {
  return t == kFloat32 || t == kFloat64 || t == kFloat16 || t == kBFloat16;
}
constexpr bool is_integral(ScalarType t, bool include_bool) {
  return t == kInt8 || t == kUInt8 || t == kInt16 || t == kInt32 || t == kInt64 ||
         (include_bool && t == kBool);
}
constexpr bool is_complex(ScalarType t) { return t == kComplexFloat || t == kComplexDouble; }
/// complex64 -> float32, complex128 -> float64, others unchanged (PyTorch's toRealValueType).
constexpr ScalarType to_real_value_type(ScalarType t) {
  return t == kComplexFloat ? kFloat32 : t == kComplexDouble ? kFloat64 : t;
}
/// float64 -> complex128, other floats -> complex64, complex unchanged (PyTorch's toComplexType;
/// ember has no complex32, so float16 and bfloat16 map to complex64). Throws for the rest.
ScalarType to_complex_type(ScalarType t);
/// The complex dtype Python complex numbers get: complex128 if the default dtype is float64,
/// complex64 otherwise.
ScalarType default_complex_dtype();
constexpr bool is_quantized(ScalarType t) {
  return t == kQUInt8 || t == kQInt8 || t == kQInt32 || t == kQUInt4x2 || t == kQUInt2x4;
}
/// quint4x2 -> 4, quint2x4 -> 2, other dtypes 8 (Note [Sub-byte quantized dtypes]).
constexpr int quantized_bit_width(ScalarType t) {
  return t == kQUInt4x2 ? 4 : t == kQUInt2x4 ? 2 : 8;
}
constexpr bool is_sub_byte(ScalarType t) { return t == kQUInt4x2 || t == kQUInt2x4; }
constexpr bool is_signed(ScalarType t) {
  return t != kUInt8 && t != kBool && t != kQUInt8 && t != kQUInt4x2 && t != kQUInt2x4;
}

/// PyTorch's promotion lattice (torch.promote_types).
ScalarType promote_types(ScalarType a, ScalarType b);

/// The dtype factories use when none is given (torch.get_default_dtype()).
ScalarType default_dtype();
void set_default_dtype(ScalarType t);  // a floating type (float32, float64, float16, bfloat16).

// ---- C++ type <-> ScalarType ----
template <class T>
struct dtype_of;
#define EMBER_DTYPE_OF(T, ST) \
  template <>                 \
  struct dtype_of<T> {        \
    static constexpr ScalarType value = ST; \
  };
EMBER_DTYPE_OF(float, kFloat32)
EMBER_DTYPE_OF(double, kFloat64)
EMBER_DTYPE_OF(Half, kFloat16)
EMBER_DTYPE_OF(BFloat16, kBFloat16)
EMBER_DTYPE_OF(int8_t, kInt8)
EMBER_DTYPE_OF(uint8_t, kUInt8)
EMBER_DTYPE_OF(int16_t, kInt16)
EMBER_DTYPE_OF(int32_t, kInt32)
EMBER_DTYPE_OF(int64_t, kInt64)
EMBER_DTYPE_OF(bool, kBool)
EMBER_DTYPE_OF(QUInt8, kQUInt8)
EMBER_DTYPE_OF(QInt8, kQInt8)
EMBER_DTYPE_OF(QInt32, kQInt32)
EMBER_DTYPE_OF(std::complex<float>, kComplexFloat)
EMBER_DTYPE_OF(std::complex<double>, kComplexDouble)
#undef EMBER_DTYPE_OF
template <class T>
constexpr ScalarType dtype_of_v = dtype_of<T>::value;

template <class T>
struct is_complex_t : std::false_type {};
template <class T>
struct is_complex_t<std::complex<T>> : std::true_type {};
template <class T>
constexpr bool is_complex_v = is_complex_t<T>::value;

template <class T>
constexpr bool is_reduced_float_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

/// The type arithmetic on T is carried out in: float for 16-bit floats, T otherwise.
template <class T>
using opmath_t = std::conditional_t<is_reduced_float_v<T>, float, T>;

/// The only dtype switch in ember: calls `f.template operator()<T>()` with T the C++ type of `t`.
///   visit_dtype(t, [&]<class T>() { fill<T>(...); });
/// Quantized dtypes are excluded (they need the quantization layer); `op` names the caller in errors.
template <class F>
decltype(auto) visit_dtype(ScalarType t, F&& f, const char* op = "this op") {
  switch (t) {
    case kFloat32: return f.template operator()<float>();
    case kFloat64: return f.template operator()<double>();
    case kFloat16: return f.template operator()<Half>();
    case kBFloat16: return f.template operator()<BFloat16>();
    case kInt8: return f.template operator()<int8_t>();
    case kUInt8: return f.template operator()<uint8_t>();
    case kInt16: return f.template operator()<int16_t>();
    case kInt32: return f.template operator()<int32_t>();
    case kInt64: return f.template operator()<int64_t>();
    case kBool: return f.template operator()<bool>();
    default: break;
  }
  if (is_complex(t)) EMBER_FAIL("\"", op, "\" not implemented for '", scalar_type_name(t), "'");
  EMBER_FAIL("\"", op, "\" not implemented for '", dtype_name(t), "'");
}

/// visit_dtype plus complex64 (std::complex<float>) and complex128 (std::complex<double>): for
/// the ops that support complex, whose body compiles for std::complex (Note [Complex dtypes]).
template <class F>
decltype(auto) visit_dtype_and_complex(ScalarType t, F&& f, const char* op = "this op") {
  if (t == kComplexFloat) return f.template operator()<std::complex<float>>();
  if (t == kComplexDouble) return f.template operator()<std::complex<double>>();
  return visit_dtype(t, std::forward<F>(f), op);
}

/// Same, over the quantized element types only.
template <class F>
decltype(auto) visit_qdtype(ScalarType t, F&& f, const char* op = "this op") {
  switch (t) {
    case kQUInt8: return f.template operator()<QUInt8>();
    case kQInt8: return f.template operator()<QInt8>();
    case kQInt32: return f.template operator()<QInt32>();
    default: break;
  }
  EMBER_FAIL("\"", op, "\" expects a quantized dtype, got '", dtype_name(t), "'");
}

}  // namespace ember
