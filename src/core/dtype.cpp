#include "ember/dtype.h"

#include <array>
#include <string_view>

namespace ember {

namespace {
struct DtypeInfo {
  const char* name;
  size_t size;
};
constexpr std::array<DtypeInfo, kNumScalarTypes> kInfo{{
    {"float32", 4},
    {"float64", 8},
    {"float16", 2},
    {"bfloat16", 2},
    {"int8", 1},
    {"uint8", 1},
    {"int16", 2},
    {"int32", 4},
    {"int64", 8},
    {"bool", 1},
    {"quint8", 1},
    {"qint8", 1},
    {"qint32", 4},
    {"complex64", 8},
    {"complex128", 16},
    {"quint4x2", 1},
    {"quint2x4", 1},
}};

ScalarType g_default_dtype = kFloat32;
}  // namespace

const char* dtype_name(ScalarType t) {
  if (t == ScalarType::Undefined) return "undefined";
  return kInfo[static_cast<size_t>(t)].name;
}

const char* scalar_type_name(ScalarType t) {
  static constexpr const char* kNames[] = {"Float", "Double", "Half",  "BFloat16", "Char",
                                           "Byte",  "Short",  "Int",   "Long",     "Bool",
                                           "QUInt8", "QInt8", "QInt32", "ComplexFloat",
                                           "ComplexDouble", "QUInt4x2", "QUInt2x4",
                                           "Undefined"};
  return kNames[static_cast<size_t>(t)];
}

std::string dtype_repr(ScalarType t) { return std::string("ember.") + dtype_name(t); }

ScalarType dtype_from_name(const std::string& raw) {
  std::string_view name = raw;
  if (name.starts_with("ember.")) name.remove_prefix(6);
  if (name.starts_with("torch.")) name.remove_prefix(6);
  for (int i = 0; i < kNumScalarTypes; ++i)
    if (name == kInfo[i].name) return static_cast<ScalarType>(i);
  struct Alias {
    std::string_view alias;
    ScalarType type;
  };
  static constexpr Alias kAliases[] = {
      {"float", kFloat32}, {"double", kFloat64}, {"half", kFloat16}, {"short", kInt16},
      {"int", kInt32},     {"long", kInt64},     {"byte", kUInt8},   {"char", kInt8},
      {"cfloat", kComplexFloat}, {"cdouble", kComplexDouble},
  };
  for (const auto& a : kAliases)
    if (name == a.alias) return a.type;
  EMBER_FAIL_KIND(ErrorKind::Value, "unknown dtype '", raw, "'");
}

size_t element_size(ScalarType t) {
  EMBER_ASSERT(t != ScalarType::Undefined);
  return kInfo[static_cast<size_t>(t)].size;
}

namespace {
int float_rank(ScalarType t) {
  switch (t) {
    case kFloat16:
    case kBFloat16: return 1;
    case kFloat32: return 2;
    case kFloat64: return 3;
    default: return 0;
  }
}
int int_rank(ScalarType t) {
  switch (t) {
    case kInt8:
    case kUInt8: return 1;
    case kInt16: return 2;
    case kInt32: return 3;
    case kInt64: return 4;
    default: return 0;
  }
}
}  // namespace

// Equivalent to PyTorch's promoteTypes lookup table, written as its rules:
// bool yields to anything; floats beat ints; float16 with bfloat16 meets at float32;
// uint8 with int8 meets at int16; otherwise the wider type wins.
ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (a == ScalarType::Undefined) return b;
  if (b == ScalarType::Undefined) return a;
  EMBER_CHECK(!is_quantized(a) && !is_quantized(b),
              "promoteTypes with quantized numbers is not handled yet; figure out what the "
              "correct rules should be, offending types: ",
              scalar_type_name(a), " ", scalar_type_name(b));
  if (a == kBool) return b;
  if (b == kBool) return a;
  // A complex type with anything: complex, as wide as the wider of the two real value types
  // (complex64 with float64 is complex128, as torch.promote_types says).
  if (is_complex(a) || is_complex(b)) {
    const ScalarType ra = to_real_value_type(a), rb = to_real_value_type(b);
    const ScalarType real = promote_types(is_floating(ra) ? ra : kFloat32, is_floating(rb) ? rb : kFloat32);
    return real == kFloat64 ? kComplexDouble : kComplexFloat;
  }
  bool fa = is_floating(a), fb = is_floating(b);
  if (fa && fb) {
    if (float_rank(a) == 1 && float_rank(b) == 1) return kFloat32;  // half with bfloat16
    return float_rank(a) >= float_rank(b) ? a : b;
  }
  if (fa) return a;
  if (fb) return b;
  if ((a == kUInt8 && b == kInt8) || (a == kInt8 && b == kUInt8)) return kInt16;
  return int_rank(a) >= int_rank(b) ? a : b;
}

ScalarType default_dtype() { return g_default_dtype; }

ScalarType default_complex_dtype() { return g_default_dtype == kFloat64 ? kComplexDouble : kComplexFloat; }

ScalarType to_complex_type(ScalarType t) {
  if (is_complex(t)) return t;
  EMBER_CHECK(is_floating(t), "Unknown Complex ScalarType for ", scalar_type_name(t));
  return t == kFloat64 ? kComplexDouble : kComplexFloat;
}

void set_default_dtype(ScalarType t) {
  EMBER_CHECK_TYPE(is_floating(t),  // PyTorch 1.13 accepts float16 and bfloat16 too
                   "only floating-point types are supported as the default type");
  g_default_dtype = t;
}

}  // namespace ember
