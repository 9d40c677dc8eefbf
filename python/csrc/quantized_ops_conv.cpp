// The packed-params objects of the quantized conv / linear ops as Python objects: subclasses of
// ember.ScriptObject (Note [Objects across the boundary] in values.cpp) with the methods of
// PyTorch's Conv2dPackedParamsBase / LinearPackedParamsBase ScriptObjects (unpack, stride, ...)
// and __getstate__ / __setstate__ in PyTorch's form, so copy.deepcopy and pickle re-pack the
// weight for the engine active then. The ops themselves are rows of the op table
// (ember.ops.quantized.conv2d_prepack, ...).
#include <algorithm>

#include "common.h"

#include "ember/ops/factory.h"
#include "quant/packed_params.h"

namespace ember::python {

namespace {

using quantized::ConvPackedParams;
using quantized::LinearPackedParams;

py::object optional_tensor(const std::optional<Tensor>& t) {
  return t ? py::reinterpret_steal<py::object>(wrap(*t)) : py::none();
}
py::object tensor_obj(const Tensor& t) { return py::reinterpret_steal<py::object>(wrap(t)); }

std::optional<Tensor> tensor_or_none(py::handle h, const char* what) {
  if (h.is_none()) return std::nullopt;
  EMBER_CHECK_TYPE(is_tensor(h.ptr()), what, " must be a Tensor or None, not ",
                   Py_TYPE(h.ptr())->tp_name);
  return unpack(h.ptr());
}

py::tuple unpack_pair(const Tensor& w, const std::optional<Tensor>& b) {
  return py::make_tuple(tensor_obj(w), optional_tensor(b));
}

// PyTorch's serialized conv state (version 2): ('2', [config int16 tensor, weight], [bias]).
py::tuple conv_getstate(const ConvPackedParams& p) {
  std::vector<int64_t> config = p.config_values();
  Tensor c = empty({static_cast<int64_t>(config.size())}, TensorOptions().dtype(kInt16));
  auto* d = c.data_ptr<int16_t>();
  for (size_t i = 0; i < config.size(); ++i) d[i] = static_cast<int16_t>(config[i]);
  py::list non_optional, optional;
  non_optional.append(tensor_obj(c));
  non_optional.append(tensor_obj(p.weight()));
  optional.append(optional_tensor(p.bias()));
  py::tuple state = py::make_tuple(py::str("2"), non_optional, optional);
  return py::make_tuple(state, py::str(ConvPackedParams::kClassName));
}

// Accepts what __getstate__ gives (the state with or without the class name beside it).
py::tuple strip_class_name(py::handle state, const char* class_name) {
  EMBER_CHECK_TYPE(py::isinstance<py::tuple>(state), class_name,
                   ".__setstate__: expected a tuple, got ", Py_TYPE(state.ptr())->tp_name);
  auto t = py::reinterpret_borrow<py::tuple>(state);
  if (t.size() == 2 && py::isinstance<py::str>(t[1]) && py::isinstance<py::tuple>(t[0])) {
    EMBER_CHECK(t[1].cast<std::string>() == class_name, "cannot restore a ",
                t[1].cast<std::string>(), " as a ", class_name);
    return py::reinterpret_borrow<py::tuple>(t[0]);
  }
  return t;
}

intrusive_ptr<ConvPackedParams> conv_setstate(py::handle state) {
  py::tuple s = strip_class_name(state, ConvPackedParams::kClassName);
  EMBER_CHECK(s.size() == 3 && py::isinstance<py::str>(s[0]) && s[0].cast<std::string>() == "2",
              "Conv2dPackedParamsBase.__setstate__: expected a version '2' state (version, "
              "[config, weight], [bias])");
  auto non_optional = s[1].cast<py::sequence>();
  auto optional = s[2].cast<py::sequence>();
  EMBER_CHECK(non_optional.size() == 2 && optional.size() == 1,
              "Conv2dPackedParamsBase.__setstate__: malformed state");
  std::optional<Tensor> config = tensor_or_none(non_optional[0], "the configuration");
  std::optional<Tensor> weight = tensor_or_none(non_optional[1], "the weight");
  EMBER_CHECK(config && weight, "Conv2dPackedParamsBase.__setstate__: missing configuration or "
              "weight");
  Tensor c = config->to(kInt64).contiguous();
  std::vector<int64_t> values(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
  return ConvPackedParams::from_state(values, *weight, tensor_or_none(optional[0], "the bias"));
}

py::tuple linear_getstate(const LinearPackedParams& p) {
  return py::make_tuple(unpack_pair(p.weight(), p.bias()), py::str(LinearPackedParams::kClassName));
}

intrusive_ptr<LinearPackedParams> linear_setstate(py::handle state) {
  py::tuple s = strip_class_name(state, LinearPackedParams::kClassName);
  EMBER_CHECK(s.size() == 2, "LinearPackedParamsBase.__setstate__: expected (weight, bias)");
  std::optional<Tensor> weight = tensor_or_none(s[0], "the weight");
  EMBER_CHECK(weight, "LinearPackedParamsBase.__setstate__: missing weight");
  return LinearPackedParams::make(*weight, tensor_or_none(s[1], "the bias"),
                                  quantized::formula_for_active_engine("quantized::linear_prepack"));
}

template <class Cls>
void add_method_names(Cls& cls, std::vector<std::string> names) {
  cls.def("_method_names", [names](py::handle) { return names; });
  cls.def("_has_method", [names](py::handle, const std::string& n) {
    return std::find(names.begin(), names.end(), n) != names.end();
  });
}

}  // namespace

void init_quantized_ops_conv(py::module_& m) {
  py::class_<ConvPackedParams, CustomClassHolder, intrusive_ptr<ConvPackedParams>> conv(
      m, "ConvPackedParams");
  conv.def("unpack", [](const ConvPackedParams& p) { return unpack_pair(p.weight(), p.bias()); })
      .def("weight", [](const ConvPackedParams& p) { return tensor_obj(p.weight()); })
      .def("bias", [](const ConvPackedParams& p) { return optional_tensor(p.bias()); })
      .def("stride", &ConvPackedParams::stride)
      .def("padding", &ConvPackedParams::padding)
      .def("dilation", &ConvPackedParams::dilation)
      .def("output_padding", &ConvPackedParams::output_padding)
      .def("groups", &ConvPackedParams::groups)
      .def("transpose", &ConvPackedParams::transpose)
      .def("__deepcopy__", [](const ConvPackedParams& p, py::handle) { return p.deep_copy(); })
      .def(py::pickle([](const ConvPackedParams& p) { return conv_getstate(p); },
                      [](py::tuple state) { return conv_setstate(state); }));
  add_method_names(conv, {"__getstate__", "__setstate__", "weight", "bias", "unpack", "stride",
                          "padding", "output_padding", "dilation", "groups", "transpose"});

  py::class_<LinearPackedParams, CustomClassHolder, intrusive_ptr<LinearPackedParams>> linear(
      m, "LinearPackedParams");
  linear.def("unpack", [](const LinearPackedParams& p) { return unpack_pair(p.weight(), p.bias()); })
      .def("bias", [](const LinearPackedParams& p) { return optional_tensor(p.bias()); })
      .def("__deepcopy__", [](const LinearPackedParams& p, py::handle) { return p.deep_copy(); })
      .def(py::pickle([](const LinearPackedParams& p) { return linear_getstate(p); },
                      [](py::tuple state) { return linear_setstate(state); }));
  add_method_names(linear, {"__getstate__", "__setstate__", "bias", "unpack"});
}

}  // namespace ember::python
