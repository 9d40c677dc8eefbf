// The packed params of the 3-d and transposed quantized convolutions as Python objects
// (ember.ScriptObject subclasses with the methods of PyTorch's Conv2dPackedParamsBase /
// Conv3dPackedParamsBase: unpack, stride, ..., transpose, and __getstate__ / __setstate__ in
// PyTorch's version-2 form, so deepcopy and pickle re-pack for the engine active then).
#include <algorithm>

#include "common.h"

#include "ember/ops/factory.h"
#include "quant/packed_params_nd.h"

namespace ember::python {

namespace {

using quantized::Conv3dPackedParams;
using quantized::ConvNdPackedParams;
using quantized::ConvTranspose2dPackedParams;

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

template <class P>
py::tuple getstate(const P& p) {
  std::vector<int64_t> config = p.config_values();
  Tensor c = empty({static_cast<int64_t>(config.size())}, TensorOptions().dtype(kInt16));
  auto* d = c.data_ptr<int16_t>();
  for (size_t i = 0; i < config.size(); ++i) d[i] = static_cast<int16_t>(config[i]);
  py::list non_optional, optional;
  non_optional.append(tensor_obj(c));
  non_optional.append(tensor_obj(p.weight()));
  optional.append(optional_tensor(p.bias()));
  py::tuple state = py::make_tuple(py::str("2"), non_optional, optional);
  return py::make_tuple(state, py::str(P::kClassName));
}

template <class P>
intrusive_ptr<P> setstate(py::handle state) {
  EMBER_CHECK_TYPE(py::isinstance<py::tuple>(state), P::kClassName,
                   ".__setstate__: expected a tuple, got ", Py_TYPE(state.ptr())->tp_name);
  auto s = py::reinterpret_borrow<py::tuple>(state);
  if (s.size() == 2 && py::isinstance<py::str>(s[1]) && py::isinstance<py::tuple>(s[0])) {
    EMBER_CHECK(s[1].cast<std::string>() == P::kClassName, "cannot restore a ",
                s[1].cast<std::string>(), " as a ", P::kClassName);
    s = py::reinterpret_borrow<py::tuple>(s[0]);
  }
  EMBER_CHECK(s.size() == 3 && py::isinstance<py::str>(s[0]) && s[0].cast<std::string>() == "2",
              P::kClassName, ".__setstate__: expected a version '2' state (version, [config, "
              "weight], [bias])");
  auto non_optional = s[1].cast<py::sequence>();
  auto optional = s[2].cast<py::sequence>();
  EMBER_CHECK(non_optional.size() == 2 && optional.size() == 1, P::kClassName,
              ".__setstate__: malformed state");
  std::optional<Tensor> config = tensor_or_none(non_optional[0], "the configuration");
  std::optional<Tensor> weight = tensor_or_none(non_optional[1], "the weight");
  EMBER_CHECK(config && weight, P::kClassName, ".__setstate__: missing configuration or weight");
  Tensor c = config->to(kInt64).contiguous();
  std::vector<int64_t> values(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
  return P::from_state(values, *weight, tensor_or_none(optional[0], "the bias"));
}

template <class P>
void bind(py::module_& m, const char* name) {
  py::class_<P, CustomClassHolder, intrusive_ptr<P>> cls(m, name);
  cls.def("unpack", [](const P& p) { return py::make_tuple(tensor_obj(p.weight()), optional_tensor(p.bias())); })
      .def("weight", [](const P& p) { return tensor_obj(p.weight()); })
      .def("bias", [](const P& p) { return optional_tensor(p.bias()); })
      .def("stride", &P::stride)
      .def("padding", &P::padding)
      .def("dilation", &P::dilation)
      .def("output_padding", &P::output_padding)
      .def("groups", &P::groups)
      .def("transpose", &P::transpose)
      .def("__deepcopy__", [](const P& p, py::handle) { return p.deep_copy(); })
      .def(py::pickle([](const P& p) { return getstate(p); },
                      [](py::tuple state) { return setstate<P>(state); }));
  std::vector<std::string> names{"__getstate__", "__setstate__", "weight", "bias", "unpack",
                                 "stride", "padding", "output_padding", "dilation", "groups",
                                 "transpose"};
  cls.def("_method_names", [names](py::handle) { return names; });
  cls.def("_has_method", [names](py::handle, const std::string& n) {
    return std::find(names.begin(), names.end(), n) != names.end();
  });
}

}  // namespace

void init_quantized_ops_conv_nd(py::module_& m) {
  bind<Conv3dPackedParams>(m, "Conv3dPackedParams");
  bind<ConvTranspose2dPackedParams>(m, "ConvTranspose2dPackedParams");
}

}  // namespace ember::python
