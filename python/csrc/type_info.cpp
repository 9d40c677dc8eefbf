// ember.finfo / ember.iinfo and the dtype functions ember.promote_types, can_cast and
// result_type, with torch's results, reprs and errors. The rules are the C++ ones
// (ember::promote_types, can_cast, result_type); this file binds them as torch's Python
// signatures bind.
#include <cmath>
#include <limits>
#include <sstream>

#include "ember/ops/factory.h"
#include "ember/ops/pointwise.h"
#include "tensor_api.h"

namespace ember::python {

namespace {

// ---- finfo / iinfo ----

struct FInfo {
  ScalarType type;
  int64_t bits;
  double eps, max, min, tiny, resolution;
};

struct IInfo {
  ScalarType type;
  int64_t bits;
  int64_t max, min;
};

// digits10: the decimal digits the type keeps (c10's numeric_limits for Half: 3, BFloat16: 2).
template <class T>
FInfo make_finfo(ScalarType t, int digits10) {
  using L = std::numeric_limits<T>;
  auto d = [](T v) { return static_cast<double>(static_cast<float>(v)); };
  return {t, static_cast<int64_t>(8 * sizeof(T)), d(L::epsilon()), d(L::max()), d(L::lowest()),
          d(L::min()), std::pow(10.0, -digits10)};
}

FInfo finfo_of(ScalarType t) {
  switch (t) {
    case kFloat32: return make_finfo<float>(t, std::numeric_limits<float>::digits10);
    case kFloat64: {
      using L = std::numeric_limits<double>;
      return {t, 64, L::epsilon(), L::max(), L::lowest(), L::min(), std::pow(10.0, -L::digits10)};
    }
    case kFloat16: return make_finfo<Half>(t, 3);
    case kBFloat16: return make_finfo<BFloat16>(t, 2);
    // A complex dtype's finfo is its real value type's, as PyTorch's (dtype 'float32').
    case kComplexFloat: return finfo_of(kFloat32);
    case kComplexDouble: return finfo_of(kFloat64);
    default: break;
  }
  EMBER_FAIL_KIND(ErrorKind::Type, "ember.finfo() requires a floating point input type. Use "
                  "ember.iinfo to handle 'ember.finfo'");
}

IInfo iinfo_of(ScalarType t) {
  EMBER_CHECK_TYPE(t != kBool, "ember.bool is not supported by ember.iinfo");
  EMBER_CHECK_TYPE(is_integral(t, false) || is_quantized(t),
                   "ember.iinfo() requires an integer input type. Use ember.finfo to handle "
                   "'ember.iinfo'");
  // Quantized dtypes have the range of the integers they store (quint8: uint8, ...).
  const ScalarType stored =
      t == kQUInt8 || is_sub_byte(t) ? kUInt8 : t == kQInt8 ? kInt8 : t == kQInt32 ? kInt32 : t;
  return visit_dtype(stored, [&]<class T>() -> IInfo {
    if constexpr (std::is_integral_v<T>) {
      return {t, static_cast<int64_t>(8 * sizeof(T)),
              static_cast<int64_t>(std::numeric_limits<T>::max()),
              static_cast<int64_t>(std::numeric_limits<T>::lowest())};
    } else {
      EMBER_FAIL("iinfo: not an integer type");
    }
  }, "iinfo");
}

// torch's reprs print every number with C++'s default stream format (%g, 6 digits).
std::string finfo_repr(const FInfo& f) {
  std::ostringstream os;
  os << "finfo(resolution=" << f.resolution << ", min=" << f.min << ", max=" << f.max
     << ", eps=" << f.eps << ", smallest_normal=" << f.tiny << ", tiny=" << f.tiny
     << ", dtype=" << dtype_name(f.type) << ")";
  return os.str();
}

std::string iinfo_repr(const IInfo& i) {
  std::ostringstream os;
  os << "iinfo(min=" << static_cast<double>(i.min) << ", max=" << static_cast<double>(i.max)
     << ", dtype=" << dtype_name(i.type) << ")";
  return os.str();
}

// ---- hand-bound signatures ----

std::string arg_type_name(py::handle o) {
  if (is_tensor(o.ptr())) return "Tensor";
  if (is_dtype(o.ptr())) return "ember.dtype";
  return Py_TYPE(o.ptr())->tp_name;
}

[[noreturn]] void invalid_combination(const char* name, const py::args& args,
                                      const py::kwargs& kwargs,
                                      const std::vector<const char*>& signatures) {
  std::string msg = std::string(name) + "() received an invalid combination of arguments - got (";
  bool first = true;
  for (py::handle a : args) {
    msg += (first ? "" : ", ") + arg_type_name(a);
    first = false;
  }
  for (auto item : kwargs) {
    msg += (first ? "" : ", ") + py::str(item.first).cast<std::string>() + "=" + arg_type_name(item.second);
    first = false;
  }
  msg += "), but expected one of:\n";
  for (const char* s : signatures) msg += std::string(" * ") + s + "\n";
  EMBER_FAIL_KIND(ErrorKind::Type, msg);
}

// args and kwargs bound to `names`, in order; false when they do not fit.
bool bind_names(const py::args& args, const py::kwargs& kwargs,
                const std::vector<const char*>& names, std::vector<py::handle>& out) {
  if (args.size() > names.size()) return false;
  out.assign(names.size(), py::handle());
  for (size_t i = 0; i < args.size(); ++i) out[i] = args[i];
  size_t used = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    if (!kwargs.contains(names[i])) continue;
    if (out[i]) return false;  // given twice
    out[i] = kwargs[names[i]];
    ++used;
  }
  if (used != kwargs.size()) return false;
  for (auto h : out)
    if (!h) return false;
  return true;
}

bool is_number(py::handle o) {
  PyObject* p = o.ptr();
  return PyBool_Check(p) || PyLong_Check(p) || PyFloat_Check(p) || PyComplex_Check(p) ||
         (!is_tensor(p) && PyIndex_Check(p));
}

// A Python number as the wrapped-number tensor ops see (it promotes weakly).
Tensor wrapped_number(py::handle o) {
  PyObject* p = o.ptr();
  if (PyBool_Check(p)) return wrapped_scalar_tensor(Scalar(p == Py_True));
  if (PyFloat_Check(p)) return wrapped_scalar_tensor(Scalar(PyFloat_AsDouble(p)));
  if (PyComplex_Check(p)) {
    return wrapped_scalar_tensor(Scalar(std::complex<double>(PyComplex_RealAsDouble(p), PyComplex_ImagAsDouble(p))));
  }
  py::int_ i = py::reinterpret_steal<py::int_>(PyNumber_Index(p));
  if (!i) throw py::error_already_set();
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
  EMBER_CHECK(!overflow, "Overflow when unpacking long");
  return wrapped_scalar_tensor(Scalar(static_cast<int64_t>(v)));
}

ScalarType dtype_arg(const char* fn, const char* name, int position, py::handle o) {
  EMBER_CHECK_TYPE(is_dtype(o.ptr()), fn, "(): argument '", name, "' (position ", position,
                   ") must be ember.dtype, not ", Py_TYPE(o.ptr())->tp_name);
  return unpack_dtype(o.ptr());
}

py::object result_type_body(const py::args& args, const py::kwargs& kwargs) {
  struct Form {
    std::vector<const char*> names;
    bool tensor[2];
  };
  static const std::vector<Form> forms = {{{"tensor", "other"}, {true, true}},
                                          {{"scalar", "tensor"}, {false, true}},
                                          {{"tensor", "other"}, {true, false}},
                                          {{"scalar1", "scalar2"}, {false, false}}};
  std::vector<py::handle> b;
  for (const Form& f : forms) {
    if (!bind_names(args, kwargs, f.names, b)) continue;
    bool fits = true;
    for (size_t i = 0; i < 2; ++i) fits &= f.tensor[i] ? is_tensor(b[i].ptr()) : is_number(b[i]);
    if (!fits) continue;
    std::vector<Tensor> operands;
    for (size_t i = 0; i < 2; ++i) operands.push_back(f.tensor[i] ? unpack(b[i].ptr()) : wrapped_number(b[i]));
    return py::reinterpret_borrow<py::object>(dtype_object(result_type(operands)));
  }
  invalid_combination("result_type", args, kwargs,
                      {"(Tensor tensor, Tensor other)", "(Number scalar, Tensor tensor)",
                       "(Tensor tensor, Number other)", "(Number scalar1, Number scalar2)"});
}

// What finfo and iinfo share: dtype (its name), equality by dtype, no hash, repr = str.
template <class Info>
void def_info_common(py::class_<Info>& cls, std::string (*repr)(const Info&)) {
  auto same = [](const Info& a, py::handle b) {
    return py::isinstance<Info>(b) && b.cast<const Info&>().type == a.type;
  };
  cls.def_property_readonly("dtype", [](const Info& i) { return std::string(dtype_name(i.type)); })
      .def("__eq__", same)
      .def("__ne__", [same](const Info& a, py::handle b) { return !same(a, b); })
      .def("__repr__", repr)
      .def("__str__", repr)
      .attr("__hash__") = py::none();
}

}  // namespace

void init_type_info(py::module_& m) {
  py::class_<FInfo> finfo(m, "finfo");
  finfo.def(py::init([](py::object type) {
              return finfo_of(type.is_none() ? default_dtype() : dtype_arg("finfo", "type", 1, type));
            }),
            py::arg("type") = py::none())
      .def_readonly("bits", &FInfo::bits)
      .def_readonly("eps", &FInfo::eps)
      .def_readonly("max", &FInfo::max)
      .def_readonly("min", &FInfo::min)
      .def_readonly("tiny", &FInfo::tiny)
      .def_readonly("smallest_normal", &FInfo::tiny)
      .def_readonly("resolution", &FInfo::resolution);
  def_info_common(finfo, &finfo_repr);
  py::class_<IInfo> iinfo(m, "iinfo");
  iinfo.def(py::init([](py::handle type) { return iinfo_of(dtype_arg("iinfo", "type", 1, type)); }),
            py::arg("type"))
      .def_readonly("bits", &IInfo::bits)
      .def_readonly("max", &IInfo::max)
      .def_readonly("min", &IInfo::min);
  def_info_common(iinfo, &iinfo_repr);

  m.def("promote_types", [](py::handle type1, py::handle type2) {
    return promote_types(dtype_arg("promote_types", "type1", 1, type1),
                         dtype_arg("promote_types", "type2", 2, type2));
  }, py::arg("type1"), py::arg("type2"));
  m.def("can_cast", [](py::handle from, py::handle to) {
    return can_cast(dtype_arg("can_cast", "from", 1, from), dtype_arg("can_cast", "to", 2, to));
  }, py::arg("from"), py::arg("to"));
  m.attr("result_type") = overridable("result_type", result_type_body);
}

}  // namespace ember::python
