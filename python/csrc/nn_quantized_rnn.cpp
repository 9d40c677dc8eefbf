// The dynamic quantized recurrent modules (ember::nn::quantized::dynamic::LSTM, GRU, RNNCell,
// LSTMCell, GRUCell, PackedParameter) as classes of _C._nnqd with PyTorch 1.13's constructors,
// attributes and from_float; the CellParamsBase ScriptObject (PyTorch's __getstate__ /
// __setstate__ form: ("quantized_dynamic", [b_ih, b_hh], [], [reduce_range], [w_ih, w_hh]));
// and _C._quantized_lstm / _quantized_gru, the multi-layer functions behind ember.quantized_lstm
// / quantized_gru (Note [Lists of packed objects] in ember/quantized/rnn.h).
#include "nn_seq.h"
#include "quantization.h"

#include "ember/nn/qat/embedding_ops.h"
#include "ember/nn/quantized/linear_relu_dynamic.h"
#include "ember/nn/quantized/prelu.h"
#include "ember/nn/quantized/rnn.h"
#include "ember/nn/utils/rnn.h"
#include "ember/quantized/rnn.h"
#include "quant/packed_params.h"

namespace ember::python {

namespace {

namespace nnqd = ember::nn::quantized::dynamic;
namespace qz = ember::quantized;
namespace R = ember::nn::utils::rnn;
using VH = py::detail::value_and_holder;
using qz::CellParamsDynamic;
using qz::LinearPackedParams;

template <class T, class Base = nn::Module>
using Class = py::class_<T, PyLayer<T>, Base, std::shared_ptr<T>>;

const auto none = py::none();

template <class T, class... Args>
void construct(VH& v_h, Args&&... args) {
  if (is_subclass_instance(v_h)) {
    v_h.value_ptr() = new PyLayer<T>(std::forward<Args>(args)...);
  } else {
    v_h.value_ptr() = new T(std::forward<Args>(args)...);
  }
}

py::object to_py(const Tensor& t) {
  return t.defined() ? py::reinterpret_steal<py::object>(wrap(t)) : py::object(none);
}

std::optional<Tensor> opt_tensor(py::handle o) {
  if (o.is_none()) return std::nullopt;
  return unpack(o.ptr());
}


template <class T>
intrusive_ptr<T> object_of(py::handle h, const char* what) {
  Value v = py_to_value(h, what);
  EMBER_CHECK_TYPE(v.is_object(), what, " must be a ", T::kClassName, ", got ", v.type_name());
  return v.to_object<T>();
}

// ---- CellParamsBase ----

py::tuple cell_getstate(const CellParamsDynamic& c) {
  py::list tensors, doubles, longs, packed;
  tensors.append(to_py(c.b_ih()));
  tensors.append(to_py(c.b_hh()));
  longs.append(py::int_(c.reduce_range() ? 1 : 0));
  packed.append(value_to_py(Value(intrusive_ptr<CustomClassHolder>(c.w_ih().get()))));
  packed.append(value_to_py(Value(intrusive_ptr<CustomClassHolder>(c.w_hh().get()))));
  py::tuple state = py::make_tuple(py::str("quantized_dynamic"), tensors, doubles, longs, packed);
  return py::make_tuple(state, py::str(CellParamsDynamic::kClassName));
}

intrusive_ptr<CellParamsDynamic> cell_setstate(py::handle state_in) {
  const char* cls = CellParamsDynamic::kClassName;
  EMBER_CHECK_TYPE(py::isinstance<py::tuple>(state_in), cls, ".__setstate__: expected a tuple");
  auto t = py::reinterpret_borrow<py::tuple>(state_in);
  if (t.size() == 2 && py::isinstance<py::str>(t[1]) && py::isinstance<py::tuple>(t[0])) {
    EMBER_CHECK(t[1].cast<std::string>() == cls, "cannot restore a ", t[1].cast<std::string>(),
                " as a ", cls);
    t = py::reinterpret_borrow<py::tuple>(t[0]);
  }
  EMBER_CHECK(t.size() == 5 && py::isinstance<py::str>(t[0]), cls,
              ".__setstate__: expected (type, tensors, doubles, longs, packed params)");
  const std::string kind = t[0].cast<std::string>();
  EMBER_CHECK(kind == "quantized_dynamic", cls, ".__setstate__: ember has only the "
              "'quantized_dynamic' cell params, got '", kind, "'");
  auto tensors = t[1].cast<py::sequence>();
  auto longs = t[3].cast<py::sequence>();
  auto packed = t[4].cast<py::sequence>();
  EMBER_CHECK(tensors.size() == 2 && longs.size() == 1 && packed.size() == 2, cls,
              ".__setstate__: malformed quantized_dynamic state");
  return make_intrusive<CellParamsDynamic>(
      object_of<LinearPackedParams>(packed[0], "the packed w_ih"),
      object_of<LinearPackedParams>(packed[1], "the packed w_hh"), unpack(py::object(tensors[0]).ptr()),
      unpack(py::object(tensors[1]).ptr()), longs[0].cast<int64_t>() != 0);
}

void bind_cell_params(py::module_& m) {
  py::class_<CellParamsDynamic, CustomClassHolder, intrusive_ptr<CellParamsDynamic>> cls(
      m, "CellParamsBase");
  const std::vector<std::string> names{"__getstate__", "__setstate__"};
  cls.def("__deepcopy__", [](const CellParamsDynamic& c, py::handle) { return c.deep_copy(); })
      .def(py::pickle([](const CellParamsDynamic& c) { return cell_getstate(c); },
                      [](py::tuple state) { return cell_setstate(state); }))
      .def("_method_names", [names](py::handle) { return names; })
      .def("_has_method", [names](py::handle, const std::string& n) {
        return std::find(names.begin(), names.end(), n) != names.end();
      });
}

qz::CellParamsList cell_list(py::handle params) {
  qz::CellParamsList r;
  for (auto p : params.cast<py::sequence>()) r.push_back(object_of<CellParamsDynamic>(p, "params"));
  return r;
}

std::vector<Tensor> tensor_list(py::handle l) {
  std::vector<Tensor> r;
  for (auto t : l.cast<py::sequence>()) r.push_back(unpack(py::object(t).ptr()));
  return r;
}

std::optional<ScalarType> opt_dtype(py::handle d) {
  if (d.is_none()) return std::nullopt;
  return py_to_value(d, "dtype").to_dtype();
}

void bind_functions(py::module_& m) {
  m.def("_quantized_lstm",
        [](const Tensor& input, py::handle hx, py::handle params, bool has_biases,
           int64_t num_layers, double dropout, bool train, bool bidirectional, bool batch_first,
           py::handle dtype, bool use_dynamic) {
          return qz::quantized_lstm(input, tensor_list(hx), cell_list(params), has_biases,
                                    num_layers, dropout, train, bidirectional, batch_first,
                                    opt_dtype(dtype), use_dynamic);
        });
  m.def("_quantized_lstm_data",
        [](const Tensor& data, const Tensor& batch_sizes, py::handle hx, py::handle params,
           bool has_biases, int64_t num_layers, double dropout, bool train, bool bidirectional,
           py::handle dtype, bool use_dynamic) {
          return qz::quantized_lstm(data, batch_sizes, tensor_list(hx), cell_list(params),
                                    has_biases, num_layers, dropout, train, bidirectional,
                                    opt_dtype(dtype), use_dynamic);
        });
  m.def("_quantized_gru",
        [](const Tensor& input, const Tensor& hx, py::handle params, bool has_biases,
           int64_t num_layers, double dropout, bool train, bool bidirectional, bool batch_first) {
          return qz::quantized_gru(input, hx, cell_list(params), has_biases, num_layers, dropout,
                                   train, bidirectional, batch_first);
        });
  m.def("_quantized_gru_data",
        [](const Tensor& data, const Tensor& batch_sizes, const Tensor& hx, py::handle params,
           bool has_biases, int64_t num_layers, double dropout, bool train, bool bidirectional) {
          return qz::quantized_gru(data, batch_sizes, hx, cell_list(params), has_biases,
                                   num_layers, dropout, train, bidirectional);
        });
}

// ---- modules ----

py::dict named_dict(const nnqd::WeightMap& d) {
  py::dict r;
  for (const auto& [k, v] : d) r[py::str(k)] = to_py(v);
  return r;
}

template <class T>
py::dict weight_bias_dict(const T& self) {
  auto [w, b] = self._weight_bias();
  py::dict r;
  r["weight"] = named_dict(w);
  r["bias"] = named_dict(b);
  return r;
}

// extra_repr and _get_name; forward is bound per class (a Tensor or a PackedSequence input).
template <class T, class Cls>
void finish(Cls& cls) {
  cls.def("extra_repr", [](const T& self) { return self.T::extra_repr(); });
  cls.def("_get_name", [](const T& self) { return self.type_name(); });
}

void bind_rnn_base(py::module_& m) {
  using B = nnqd::RNNBase;
  Class<nnqd::PackedParameter> pp(m, "PackedParameter");
  pp.def("__init__",
         [](VH& v_h, py::handle param) {
           construct<nnqd::PackedParameter>(v_h, object_of<CellParamsDynamic>(param, "param"));
         },
         py::detail::is_new_style_constructor(), py::arg("param"))
      .def_property(
          "param",
          [](const nnqd::PackedParameter& self) {
            return value_to_py(Value(intrusive_ptr<CustomClassHolder>(self.param.get())));
          },
          [](nnqd::PackedParameter& self, py::handle v) {
            self.param = object_of<CellParamsDynamic>(v, "param");
          });
  pp.def("_get_name", [](const nnqd::PackedParameter& self) { return self.type_name(); });

  Class<B> base(m, "RNNBase");
  base.def("__init__",
           [](VH& v_h, const std::string& mode, int64_t input_size, int64_t hidden_size,
              int64_t num_layers, bool bias, bool batch_first, py::handle dropout,
              bool bidirectional, ScalarType dtype) {
             const bool number = (PyFloat_Check(dropout.ptr()) || PyLong_Check(dropout.ptr())) &&
                                 !PyBool_Check(dropout.ptr());
             EMBER_CHECK_VALUE(number, "dropout should be a number in range [0, 1] representing "
                                       "the probability of an element being zeroed");
             construct<B>(v_h, mode, input_size, hidden_size, num_layers, bias, batch_first,
                          dropout.cast<double>(), bidirectional, dtype);
           },
           py::detail::is_new_style_constructor(), py::arg("mode"), py::arg("input_size"),
           py::arg("hidden_size"), py::arg("num_layers") = 1, py::arg("bias") = true,
           py::arg("batch_first") = false, py::arg("dropout") = 0.0,
           py::arg("bidirectional") = false, py::arg("dtype") = kQInt8)
      .def_readwrite("mode", &B::mode)
      .def_readwrite("input_size", &B::input_size)
      .def_readwrite("hidden_size", &B::hidden_size)
      .def_readwrite("num_layers", &B::num_layers)
      .def_readwrite("bias", &B::bias)
      .def_readwrite("batch_first", &B::batch_first)
      .def_readwrite("dropout", &B::dropout)
      .def_readwrite("bidirectional", &B::bidirectional)
      .def_readwrite("dtype", &B::dtype)
      .def_readwrite("version", &B::loaded_version)
      .def_property_readonly_static("_version", [](py::handle) { return 2; })
      .def("_weight_bias", [](const B& self) { return weight_bias_dict(self); })
      .def("get_weight", [](const B& self) { return py::object(weight_bias_dict(self)["weight"]); })
      .def("get_bias", [](const B& self) { return py::object(weight_bias_dict(self)["bias"]); })
      .def("set_weight_bias", [](B& self, py::dict d) {
        nnqd::WeightMap wb;
        for (auto [k, v] : d) wb.emplace_back(k.cast<std::string>(), unpack(v.ptr()));
        self.set_weight_bias(wb);
      }, py::arg("weight_bias_dict"));
  finish<B>(base);
}

// forward(input, hx=None): a Tensor or a PackedSequence.
void bind_lstm_gru(py::module_& m) {
  Class<nnqd::LSTM, nnqd::RNNBase> lstm(m, "LSTM");
  lstm.def("__init__",
           [](VH& v_h, int64_t input_size, int64_t hidden_size, int64_t num_layers, bool bias,
              bool batch_first, double dropout, bool bidirectional, ScalarType dtype) {
             construct<nnqd::LSTM>(v_h, input_size, hidden_size, num_layers, bias, batch_first,
                                   dropout, bidirectional, dtype);
           },
           py::detail::is_new_style_constructor(), py::arg("input_size"), py::arg("hidden_size"),
           py::arg("num_layers") = 1, py::arg("bias") = true, py::arg("batch_first") = false,
           py::arg("dropout") = 0.0, py::arg("bidirectional") = false, py::arg("dtype") = kQInt8);
  finish<nnqd::LSTM>(lstm);
  lstm.def("forward", [](nnqd::LSTM& self, py::object input, py::object hx) -> py::object {
    std::optional<nnqd::LSTM::State> state;
    if (!hx.is_none()) {
      auto seq = py::reinterpret_borrow<py::sequence>(hx);
      EMBER_CHECK_TYPE(seq.size() == 2, "LSTM: hx must be a tuple (h_0, c_0)");
      state = nnqd::LSTM::State{unpack(py::object(seq[0]).ptr()), unpack(py::object(seq[1]).ptr())};
    }
    if (py::isinstance(input, packed_class())) {
      auto [out, hc] = self.forward_packed(packed_from(input), state);
      return py::make_tuple(packed_to(out),
                            py::make_tuple(to_py(std::get<0>(hc)), to_py(std::get<1>(hc))));
    }
    EMBER_CHECK_TYPE(is_tensor(input.ptr()), "forward(): input must be a Tensor or a PackedSequence");
    auto [out, hc] = self.forward(unpack(input.ptr()), state);
    return py::make_tuple(to_py(out), py::make_tuple(to_py(std::get<0>(hc)), to_py(std::get<1>(hc))));
  }, py::arg("input"), py::arg("hx") = none);

  Class<nnqd::GRU, nnqd::RNNBase> gru(m, "GRU");
  gru.def("__init__",
          [](VH& v_h, int64_t input_size, int64_t hidden_size, int64_t num_layers, bool bias,
             bool batch_first, double dropout, bool bidirectional, ScalarType dtype) {
            construct<nnqd::GRU>(v_h, input_size, hidden_size, num_layers, bias, batch_first,
                                 dropout, bidirectional, dtype);
          },
          py::detail::is_new_style_constructor(), py::arg("input_size"), py::arg("hidden_size"),
          py::arg("num_layers") = 1, py::arg("bias") = true, py::arg("batch_first") = false,
          py::arg("dropout") = 0.0, py::arg("bidirectional") = false, py::arg("dtype") = kQInt8);
  finish<nnqd::GRU>(gru);
  gru.def("forward", [](nnqd::GRU& self, py::object input, py::object hx) -> py::object {
    if (py::isinstance(input, packed_class())) {
      auto [out, h] = self.forward_packed(packed_from(input), opt_tensor(hx));
      return py::make_tuple(packed_to(out), to_py(h));
    }
    EMBER_CHECK_TYPE(is_tensor(input.ptr()), "forward(): input must be a Tensor or a PackedSequence");
    auto [out, h] = self.forward(unpack(input.ptr()), opt_tensor(hx));
    return py::make_tuple(to_py(out), to_py(h));
  }, py::arg("input"), py::arg("hx") = none);
}

void bind_cells(py::module_& m) {
  using B = nnqd::RNNCellBase;
  auto packed_prop = [](intrusive_ptr<LinearPackedParams> B::*field, const char* name) {
    return std::make_pair(
        [field](const B& self) {
          return value_to_py(Value(intrusive_ptr<CustomClassHolder>((self.*field).get())));
        },
        [field, name](B& self, py::handle v) { self.*field = object_of<LinearPackedParams>(v, name); });
  };
  Class<B> base(m, "RNNCellBase");
  auto ih = packed_prop(&B::packed_weight_ih, "_packed_weight_ih");
  auto hh = packed_prop(&B::packed_weight_hh, "_packed_weight_hh");
  base.def("__init__",
           [](VH& v_h, int64_t input_size, int64_t hidden_size, bool bias, int64_t num_chunks,
              ScalarType dtype) { construct<B>(v_h, input_size, hidden_size, bias, num_chunks, dtype); },
           py::detail::is_new_style_constructor(), py::arg("input_size"), py::arg("hidden_size"),
           py::arg("bias") = true, py::arg("num_chunks") = 4, py::arg("dtype") = kQInt8)
      .def_readwrite("input_size", &B::input_size)
      .def_readwrite("hidden_size", &B::hidden_size)
      .def_readwrite("bias", &B::bias)
      .def_readwrite("weight_dtype", &B::weight_dtype)
      .def_readwrite("bias_ih", &B::bias_ih)
      .def_readwrite("bias_hh", &B::bias_hh)
      .def_property("_packed_weight_ih", ih.first, ih.second)
      .def_property("_packed_weight_hh", hh.first, hh.second)
      .def("_weight_bias", [](const B& self) { return weight_bias_dict(self); })
      .def("get_weight", [](const B& self) { return py::object(weight_bias_dict(self)["weight"]); })
      .def("get_bias", [](const B& self) { return py::object(weight_bias_dict(self)["bias"]); })
      .def("set_weight_bias", [](B& self, py::dict d) {
        py::dict w = d["weight"], b = d["bias"];
        self.set_weight_bias(unpack(w["weight_ih"].ptr()), opt_tensor(b["bias_ih"]),
                             unpack(w["weight_hh"].ptr()), opt_tensor(b["bias_hh"]));
      }, py::arg("weight_bias_dict"))
      .def("check_forward_input", [](const B& self, const Tensor& input) {
        EMBER_CHECK(input.size(1) == self.input_size, "input has inconsistent input_size: got ",
                    input.size(1), ", expected ", self.input_size);
      });
  finish<B>(base);

  Class<nnqd::RNNCell, B> rnn(m, "RNNCell");
  rnn.def("__init__",
          [](VH& v_h, int64_t input_size, int64_t hidden_size, bool bias,
             const std::string& nonlinearity, ScalarType dtype) {
            construct<nnqd::RNNCell>(v_h, input_size, hidden_size, bias, nonlinearity, dtype);
          },
          py::detail::is_new_style_constructor(), py::arg("input_size"), py::arg("hidden_size"),
          py::arg("bias") = true, py::arg("nonlinearity") = "tanh", py::arg("dtype") = kQInt8)
      .def_property(
          "nonlinearity", [](const nnqd::RNNCell& self) { return self.nonlinearity.value_or("tanh"); },
          [](nnqd::RNNCell& self, const std::string& v) { self.nonlinearity = v; });
  finish<nnqd::RNNCell>(rnn);
  rnn.def("forward", [](nnqd::RNNCell& self, const Tensor& input, py::handle hx) {
    return self.forward(input, opt_tensor(hx));
  }, py::arg("input"), py::arg("hx") = none);

  Class<nnqd::LSTMCell, B> lstm(m, "LSTMCell");
  lstm.def("__init__",
           [](VH& v_h, int64_t input_size, int64_t hidden_size, bool bias, ScalarType dtype) {
             construct<nnqd::LSTMCell>(v_h, input_size, hidden_size, bias, dtype);
           },
           py::detail::is_new_style_constructor(), py::arg("input_size"), py::arg("hidden_size"),
           py::arg("bias") = true, py::arg("dtype") = kQInt8);
  finish<nnqd::LSTMCell>(lstm);
  lstm.def("forward", [](nnqd::LSTMCell& self, const Tensor& input, py::handle hx) {
    std::optional<std::tuple<Tensor, Tensor>> state;
    if (!hx.is_none()) {
      auto seq = py::reinterpret_borrow<py::sequence>(hx);
      EMBER_CHECK_TYPE(seq.size() == 2, "LSTMCell: hx must be a tuple (h_0, c_0)");
      state = std::make_tuple(unpack(py::object(seq[0]).ptr()), unpack(py::object(seq[1]).ptr()));
    }
    auto [h, c] = self.forward(input, state);
    return py::make_tuple(to_py(h), to_py(c));
  }, py::arg("input"), py::arg("hx") = none);

  Class<nnqd::GRUCell, B> gru(m, "GRUCell");
  gru.def("__init__",
          [](VH& v_h, int64_t input_size, int64_t hidden_size, bool bias, ScalarType dtype) {
            construct<nnqd::GRUCell>(v_h, input_size, hidden_size, bias, dtype);
          },
          py::detail::is_new_style_constructor(), py::arg("input_size"), py::arg("hidden_size"),
          py::arg("bias") = true, py::arg("dtype") = kQInt8);
  finish<nnqd::GRUCell>(gru);
  gru.def("forward", [](nnqd::GRUCell& self, const Tensor& input, py::handle hx) {
    return self.forward(input, opt_tensor(hx));
  }, py::arg("input"), py::arg("hx") = none);
}

std::shared_ptr<nn::Module> module_arg(py::handle obj) {
  EMBER_CHECK_TYPE(py::isinstance<nn::Module>(obj), "from_float(): expected an ember.nn.Module, got ",
                   Py_TYPE(obj.ptr())->tp_name);
  return module_from_py(obj);
}

void bind_from_float() {
  const char* doc = "The dynamic quantized module of a float module with a qconfig.";
  auto rnn = py::cpp_function(
      [](py::handle mod) -> std::shared_ptr<nn::Module> {
        return nnqd::RNNBase::from_float(*module_arg(mod));
      },
      py::arg("mod"), doc);
  auto cell = py::cpp_function(
      [](py::handle mod) -> std::shared_ptr<nn::Module> {
        return nnqd::RNNCellBase::from_float(*module_arg(mod));
      },
      py::arg("mod"), doc);
  for (py::type t : {py::type::of<nnqd::RNNBase>(), py::type::of<nnqd::LSTM>(),
                     py::type::of<nnqd::GRU>()}) {
    t.attr("from_float") = py::staticmethod(rnn);
  }
  for (py::type t : {py::type::of<nnqd::RNNCellBase>(), py::type::of<nnqd::RNNCell>(),
                     py::type::of<nnqd::LSTMCell>(), py::type::of<nnqd::GRUCell>()}) {
    t.attr("from_float") = py::staticmethod(cell);
  }
}

void bind_prelu(py::module_& nnq_mod) {
  namespace nnq = ember::nn::quantized;
  Class<nnq::PReLU> prelu(nnq_mod, "PReLU");
  prelu
      .def("__init__",
           [](VH& v_h, double output_scale, int64_t output_zero_point, int64_t num_parameters) {
             construct<nnq::PReLU>(v_h, output_scale, output_zero_point, num_parameters);
           },
           py::detail::is_new_style_constructor(), py::arg("output_scale"),
           py::arg("output_zero_point"), py::arg("num_parameters") = 1)
      .def_readwrite("num_parameters", &nnq::PReLU::num_parameters)
      .def_readwrite("scale", &nnq::PReLU::scale)
      .def_readwrite("zero_point", &nnq::PReLU::zero_point)
      .def_readwrite("weight", &nnq::PReLU::weight)
      .def("set_weight", [](nnq::PReLU& self, const Tensor& w) { self.set_weight(w); },
           py::arg("w"))
      .def("forward", [](nnq::PReLU& self, const Tensor& input) { return self.forward(input); },
           py::arg("input"));
  finish<nnq::PReLU>(prelu);
  prelu.attr("from_float") = py::staticmethod(py::cpp_function(
      [](py::handle mod) -> std::shared_ptr<nn::Module> {
        return nnq::PReLU::from_float(*module_arg(mod));
      },
      py::arg("mod"), "The quantized PReLU of an observed float PReLU."));
}

void bind_linear_relu_dynamic(py::module_& nnqd_mod) {
  using LR = nnqd::LinearReLU;
  Class<LR, nnqd::Linear> lr(nnqd_mod, "LinearReLU");
  lr.def("__init__",
         [](VH& v_h, int64_t in, int64_t out, bool bias, ScalarType dtype) {
           construct<LR>(v_h, in, out, bias, dtype);
         },
         py::detail::is_new_style_constructor(), py::arg("in_features"), py::arg("out_features"),
         py::arg("bias") = true, py::arg("dtype") = kQInt8);
  lr.def("forward", [](LR& self, const Tensor& x) { return self.LR::forward(x); }, py::arg("x"));
  finish<LR>(lr);
  lr.attr("from_float") = py::staticmethod(py::cpp_function(
      [](py::handle mod) -> std::shared_ptr<nn::Module> {
        return LR::from_float(*module_arg(mod));
      },
      py::arg("mod"), "The dynamic quantized LinearReLU of a float (fused) module."));
}

template <class T, class Cls>
void bind_qat_embedding_common(Cls& cls) {
  cls.def_static("from_float", [](py::handle mod) {
    return module_to_py(T::from_float(*module_arg(mod)));
  }, py::arg("mod"));
  cls.def("to_float", [](T& self) { return module_to_py(self.to_float()); });
  cls.def("extra_repr", [](const T& self) { return self.T::extra_repr(); });
}

std::optional<int64_t> opt_int(py::handle o) {
  if (o.is_none()) return std::nullopt;
  return o.cast<int64_t>();
}
std::optional<double> opt_double(py::handle o) {
  if (o.is_none()) return std::nullopt;
  return o.cast<double>();
}
Tensor weight_or_undefined(py::handle o) { return o.is_none() ? Tensor() : unpack(o.ptr()); }

}  // namespace

// nn.qat.Embedding / EmbeddingBag (C++ ember::nn::qat, ember/nn/qat/embedding_ops.h) in
// _C._nnqat, after the QAT classes exist.
void init_nn_qat_embedding(py::module_& m) {
  namespace nnqat = ember::nn::qat;
  py::module_ qat = m.attr("_nnqat").cast<py::module_>();
  py::class_<nnqat::Embedding, PyLayer<nnqat::Embedding>, nn::Embedding,
             std::shared_ptr<nnqat::Embedding>>
      emb(qat, "Embedding");
  emb.def("__init__",
          [](VH& v_h, int64_t num, int64_t dim, py::handle padding_idx, py::handle max_norm,
             double norm_type, bool scale_grad_by_freq, bool sparse, py::handle weight,
             py::object device, py::object dtype, py::handle qconfig) {
            construct_layer<nnqat::Embedding>(v_h, num, dim, opt_int(padding_idx),
                                              opt_double(max_norm), norm_type,
                                              scale_grad_by_freq, sparse,
                                              weight_or_undefined(weight),
                                              qconfig_from_py(qconfig),
                                              tensor_options(device, dtype));
          },
          py::detail::is_new_style_constructor(), py::arg("num_embeddings"),
          py::arg("embedding_dim"), py::arg("padding_idx") = none, py::arg("max_norm") = none,
          py::arg("norm_type") = 2.0, py::arg("scale_grad_by_freq") = false,
          py::arg("sparse") = false, py::arg("_weight") = none, py::arg("device") = none,
          py::arg("dtype") = none, py::arg("qconfig") = none);
  emb.def("forward", [](nnqat::Embedding& self, const Tensor& input) {
    return self.nnqat::Embedding::forward(input);
  }, py::arg("input"));
  bind_qat_embedding_common<nnqat::Embedding>(emb);

  py::class_<nnqat::EmbeddingBag, PyLayer<nnqat::EmbeddingBag>, nn::EmbeddingBag,
             std::shared_ptr<nnqat::EmbeddingBag>>
      bag(qat, "EmbeddingBag");
  bag.def("__init__",
          [](VH& v_h, int64_t num, int64_t dim, py::handle max_norm, double norm_type,
             bool scale_grad_by_freq, const std::string& mode, bool sparse, py::handle weight,
             bool include_last_offset, py::handle padding_idx, py::handle qconfig,
             py::object device, py::object dtype) {
            construct_layer<nnqat::EmbeddingBag>(v_h, num, dim, opt_double(max_norm), norm_type,
                                                 scale_grad_by_freq, mode, sparse,
                                                 weight_or_undefined(weight), include_last_offset,
                                                 opt_int(padding_idx), qconfig_from_py(qconfig),
                                                 tensor_options(device, dtype));
          },
          py::detail::is_new_style_constructor(), py::arg("num_embeddings"),
          py::arg("embedding_dim"), py::arg("max_norm") = none, py::arg("norm_type") = 2.0,
          py::arg("scale_grad_by_freq") = false, py::arg("mode") = "mean",
          py::arg("sparse") = false, py::arg("_weight") = none,
          py::arg("include_last_offset") = false, py::arg("padding_idx") = none,
          py::arg("qconfig") = none, py::arg("device") = none, py::arg("dtype") = none);
  bag.def("forward", [](nnqat::EmbeddingBag& self, const Tensor& input, py::handle offsets,
                        py::handle per_sample_weights) {
    return self.nnqat::EmbeddingBag::forward(input, opt_tensor(offsets),
                                             opt_tensor(per_sample_weights));
  }, py::arg("input"), py::arg("offsets") = none, py::arg("per_sample_weights") = none);
  bind_qat_embedding_common<nnqat::EmbeddingBag>(bag);
}

void init_nn_quantized_rnn(py::module_& m) {
  bind_cell_params(m);
  bind_functions(m);
  py::module_ nnqd_mod = m.attr("_nnqd").cast<py::module_>();
  bind_rnn_base(nnqd_mod);
  bind_lstm_gru(nnqd_mod);
  bind_cells(nnqd_mod);
  bind_linear_relu_dynamic(nnqd_mod);
  bind_from_float();
  py::module_ nnq_mod = m.attr("_nnq").cast<py::module_>();
  bind_prelu(nnq_mod);
}

}  // namespace ember::python
