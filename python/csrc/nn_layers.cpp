// The C++ layers, losses and containers of ember::nn as ember.nn classes, with PyTorch's
// constructor signatures. Their forward is Module.forward's binding (arguments boxed into the
// layer's C++ forward); Sequential's forward calls each child through Python's __call__, so
// that hooks registered from Python run and any Python value flows, as in PyTorch.
#include "nn.h"

#include "ember/nn/modules/activation.h"
#include "ember/nn/modules/container.h"
#include "ember/nn/modules/dropout.h"
#include "ember/nn/modules/embedding.h"
#include "ember/nn/modules/flatten.h"
#include "ember/nn/modules/linear.h"
#include "ember/nn/modules/loss.h"
#include "ember/nn/modules/normalization.h"
#include "ember/warning.h"

namespace ember::python {

namespace {

// Note [Sequential's forward from Python]
// Sequential's forward calls each child through Python's __call__, so that forward hooks
// registered from Python run (they live in the Python objects) and any Python value flows. When
// the input is a tensor and every module below is an instance of a C++ layer's own class (no
// Python subclass, hence no Python forward) with no Python hook, that is exactly what the C++
// forward does, so it runs instead: one call, and C++'s eval-mode conv-bn-activation fusion
// (Note [Eval-mode conv-bn-activation fusion]) applies to Sequentials built in Python too.
bool runs_natively(nn::Module& root) {
  const auto mods = root.modules();
  for (size_t i = 1; i < mods.size(); ++i) {  // mods[0] is root: its forward is this one
    py::object o = module_to_py(mods[i]);
    PyTypeObject* type = Py_TYPE(o.ptr());
    const py::detail::type_info* info = py::detail::get_type_info(type);
    if (info == nullptr || info->type != type) return false;
    PyObject** dict = _PyObject_GetDictPtr(o.ptr());
    if (dict == nullptr || *dict == nullptr) continue;
    for (const char* name : {"_forward_hooks", "_forward_pre_hooks"}) {
      PyObject* hooks = PyDict_GetItemString(*dict, name);  // borrowed
      if (hooks != nullptr && PyObject_IsTrue(hooks) != 0) return false;
    }
  }
  return true;
}

using namespace ember::nn;

template <class T, class Base = Module>
using Class = py::class_<T, Base, std::shared_ptr<T>>;

// torch.nn._reduction.legacy_get_string: the deprecated size_average / reduce arguments.
std::string reduction_arg(const py::object& size_average, const py::object& reduce,
                          const std::string& reduction) {
  if (size_average.is_none() && reduce.is_none()) return reduction;
  const bool avg = size_average.is_none() || size_average.cast<bool>();
  const bool red = reduce.is_none() || reduce.cast<bool>();
  const std::string ret = !red ? "none" : avg ? "mean" : "sum";
  warn("size_average and reduce args will be deprecated, please use reduction='" + ret +
       "' instead.");
  return ret;
}

std::optional<Tensor> opt_tensor(const py::object& o) {
  if (o.is_none()) return std::nullopt;
  return unpack(o.ptr());
}

std::vector<std::shared_ptr<Module>> modules_from(py::handle iterable) {
  std::vector<std::shared_ptr<Module>> out;
  for (auto item : iterable) out.push_back(module_from_py(item));
  return out;
}

std::vector<NamedModule> named_from(py::handle mapping_or_pairs) {
  std::vector<NamedModule> out;
  py::object items = py::hasattr(mapping_or_pairs, "items")
                         ? mapping_or_pairs.attr("items")()
                         : py::reinterpret_borrow<py::object>(mapping_or_pairs);
  for (auto item : items) {
    auto kv = py::reinterpret_borrow<py::sequence>(item);
    out.emplace_back(py::cast<std::string>(kv[0]), module_from_py(kv[1]));
  }
  return out;
}

// A Python slice's start / stop / step as the containers' optional indices.
void slice_parts(const py::slice& s, std::optional<int64_t>& start, std::optional<int64_t>& stop,
                 int64_t& step) {
  py::object a = s.attr("start"), b = s.attr("stop"), c = s.attr("step");
  if (!a.is_none()) start = a.cast<int64_t>();
  if (!b.is_none()) stop = b.cast<int64_t>();
  step = c.is_none() ? 1 : c.cast<int64_t>();
}

py::object self_of(py::handle h) { return py::reinterpret_borrow<py::object>(h); }

void bind_sequences(py::module_& m) {
  Class<ModuleContainer> container(m, "_ModuleContainer");
  container.def("__len__", &ModuleContainer::size);
  container.def("__dir__", [](py::handle self) {
    py::list names = py::module_::import("builtins").attr("object").attr("__dir__")(self);
    for (const auto& k : self.cast<ModuleContainer&>().keys()) names.append(py::str(k));
    return names;
  });

  Class<ModuleSequence, ModuleContainer> seq(m, "_ModuleSequence");
  seq.def("__setitem__", [](ModuleSequence& self, int64_t idx, py::handle module) {
    self.set(idx, module_from_py(module));
  });
  seq.def("__delitem__", [](ModuleSequence& self, int64_t idx) { self.erase(idx); });
  seq.def("__delitem__", [](ModuleSequence& self, py::slice s) {
    std::optional<int64_t> a, b;
    int64_t step;
    slice_parts(s, a, b, step);
    self.erase(a, b, step);
  });
  seq.def("__iter__", [](ModuleSequence& self) {
    py::list l;
    for (const auto& c : self) l.append(module_to_py(c));
    return py::iter(l);
  });
  seq.def("append", [](py::handle self, py::handle module) {
    self.cast<ModuleSequence&>().append(module_from_py(module));
    return self_of(self);
  });
  seq.def("insert", [](ModuleSequence& self, int64_t index, py::handle module) {
    self.insert(index, module_from_py(module));
  });
  seq.def("extend", [](py::handle self, py::handle modules) {
    self.cast<ModuleSequence&>().extend(modules_from(modules));
    return self_of(self);
  });
  seq.def("pop", [](ModuleSequence& self, int64_t idx) { return module_to_py(self.pop(idx)); },
          py::arg("idx") = -1);

  Class<Sequential, ModuleSequence> sequential(m, "Sequential");
  sequential.def(py::init([](py::args args) {
    if (args.size() == 1 && py::isinstance(args[0], py::module_::import("collections").attr("OrderedDict"))) {
      return std::make_shared<Sequential>(named_from(args[0]));
    }
    return std::make_shared<Sequential>(modules_from(args));
  }));
  sequential.def("__getitem__", [](Sequential& self, py::object idx) {
    if (!py::isinstance<py::slice>(idx)) return module_to_py(self[idx.cast<int64_t>()]);
    std::optional<int64_t> a, b;
    int64_t step;
    slice_parts(idx, a, b, step);
    return module_to_py(self.slice(a, b, step));
  });
  sequential.def("forward", [](Sequential& self, py::object input) {
    if (is_tensor(input.ptr()) && runs_natively(self)) {
      return value_to_py(self.Sequential::forward(std::vector<Value>{unpack(input.ptr())}));
    }
    for (const auto& c : self) input = module_to_py(c)(input);
    return input;
  });

  Class<ModuleList, ModuleSequence> list(m, "ModuleList");
  list.def(py::init([](py::object modules) {
    if (modules.is_none()) return std::make_shared<ModuleList>();
    return std::make_shared<ModuleList>(modules_from(modules));
  }), py::arg("modules") = py::none());
  list.def("__getitem__", [](ModuleList& self, py::object idx) {
    if (!py::isinstance<py::slice>(idx)) return module_to_py(self[idx.cast<int64_t>()]);
    std::optional<int64_t> a, b;
    int64_t step;
    slice_parts(idx, a, b, step);
    return module_to_py(self.slice(a, b, step));
  });
  list.def("__iadd__", [](py::handle self, py::handle modules) {
    self.cast<ModuleList&>().extend(modules_from(modules));
    return self_of(self);
  });

  Class<ModuleDict, ModuleContainer> dict(m, "ModuleDict");
  dict.def(py::init([](py::object modules) {
    if (modules.is_none()) return std::make_shared<ModuleDict>();
    return std::make_shared<ModuleDict>(named_from(modules));
  }), py::arg("modules") = py::none());
  dict.def("__getitem__", [](ModuleDict& self, const std::string& k) { return module_to_py(self[k]); });
  dict.def("__setitem__", [](ModuleDict& self, const std::string& k, py::handle module) {
    self.set(k, module_from_py(module));
  });
  dict.def("__delitem__", [](ModuleDict& self, const std::string& k) { self.erase(k); });
  dict.def("__contains__", &ModuleDict::contains);
  dict.def("__iter__", [](ModuleDict& self) { return py::iter(py::cast(self.keys())); });
  dict.def("keys", [](ModuleDict& self) { return self.keys(); });
  dict.def("values", [](ModuleDict& self) {
    py::list l;
    for (const auto& c : self.values()) l.append(module_to_py(c));
    return l;
  });
  dict.def("items", [](ModuleDict& self) {
    py::list l;
    for (const auto& [k, c] : self.items()) l.append(py::make_tuple(k, module_to_py(c)));
    return l;
  });
  dict.def("pop", [](ModuleDict& self, const std::string& k) { return module_to_py(self.pop(k)); });
  dict.def("clear", &ModuleDict::clear);
  dict.def("update", [](ModuleDict& self, py::handle modules) { self.update(named_from(modules)); });
}

void bind_activations(py::module_& m) {
  Class<Identity>(m, "Identity")
      .def(py::init([](py::args, py::kwargs) { return std::make_shared<Identity>(); }));
  Class<ReLU>(m, "ReLU")
      .def(py::init<bool>(), py::arg("inplace") = false)
      .def_readwrite("inplace", &ReLU::inplace);
  Class<Hardtanh>(m, "Hardtanh")
      .def(py::init([](double min_val, double max_val, bool inplace, py::object min_value,
                       py::object max_value) {
             if (!min_value.is_none()) {
               warn("keyword argument min_value is deprecated and rename to min_val");
               min_val = min_value.cast<double>();
             }
             if (!max_value.is_none()) {
               warn("keyword argument max_value is deprecated and rename to max_val");
               max_val = max_value.cast<double>();
             }
             return std::make_shared<Hardtanh>(min_val, max_val, inplace);
           }),
           py::arg("min_val") = -1.0, py::arg("max_val") = 1.0, py::arg("inplace") = false,
           py::arg("min_value") = py::none(), py::arg("max_value") = py::none())
      .def_readwrite("min_val", &Hardtanh::min_val)
      .def_readwrite("max_val", &Hardtanh::max_val)
      .def_readwrite("inplace", &Hardtanh::inplace);
  Class<ReLU6, Hardtanh>(m, "ReLU6").def(py::init<bool>(), py::arg("inplace") = false);
  Class<Hardswish>(m, "Hardswish")
      .def(py::init<bool>(), py::arg("inplace") = false)
      .def_readwrite("inplace", &Hardswish::inplace);
  Class<Sigmoid>(m, "Sigmoid").def(py::init<>());
  Class<Tanh>(m, "Tanh").def(py::init<>());
  Class<GELU>(m, "GELU")
      .def(py::init<std::string>(), py::arg("approximate") = "none")
      .def_readwrite("approximate", &GELU::approximate);
  Class<SiLU>(m, "SiLU")
      .def(py::init<bool>(), py::arg("inplace") = false)
      .def_readwrite("inplace", &SiLU::inplace);
  Class<Softmax>(m, "Softmax")
      .def(py::init<std::optional<int64_t>>(), py::arg("dim") = py::none())
      .def_readwrite("dim", &Softmax::dim);
  Class<LogSoftmax>(m, "LogSoftmax")
      .def(py::init<std::optional<int64_t>>(), py::arg("dim") = py::none())
      .def_readwrite("dim", &LogSoftmax::dim);
  Class<Flatten>(m, "Flatten")
      .def(py::init<int64_t, int64_t>(), py::arg("start_dim") = 1, py::arg("end_dim") = -1)
      .def_readwrite("start_dim", &Flatten::start_dim)
      .def_readwrite("end_dim", &Flatten::end_dim);
  Class<Dropout>(m, "Dropout")
      .def(py::init<double, bool>(), py::arg("p") = 0.5, py::arg("inplace") = false)
      .def_readwrite("p", &Dropout::p)
      .def_readwrite("inplace", &Dropout::inplace);
}

void bind_layers(py::module_& m) {
  Class<Linear>(m, "Linear")
      .def(py::init([](int64_t in, int64_t out, bool bias, py::object device, py::object dtype) {
             return std::make_shared<Linear>(in, out, bias, tensor_options(device, dtype));
           }),
           py::arg("in_features"), py::arg("out_features"), py::arg("bias") = true,
           py::arg("device") = py::none(), py::arg("dtype") = py::none())
      .def("reset_parameters", &Linear::reset_parameters)
      .def_readwrite("in_features", &Linear::in_features)
      .def_readwrite("out_features", &Linear::out_features);
  Class<Bilinear>(m, "Bilinear")
      .def(py::init([](int64_t in1, int64_t in2, int64_t out, bool bias, py::object device,
                       py::object dtype) {
             return std::make_shared<Bilinear>(in1, in2, out, bias, tensor_options(device, dtype));
           }),
           py::arg("in1_features"), py::arg("in2_features"), py::arg("out_features"),
           py::arg("bias") = true, py::arg("device") = py::none(), py::arg("dtype") = py::none())
      .def("reset_parameters", &Bilinear::reset_parameters)
      .def_readwrite("in1_features", &Bilinear::in1_features)
      .def_readwrite("in2_features", &Bilinear::in2_features)
      .def_readwrite("out_features", &Bilinear::out_features);
  Class<Embedding>(m, "Embedding")
      .def(py::init([](int64_t num, int64_t dim, std::optional<int64_t> padding_idx,
                       std::optional<double> max_norm, double norm_type, bool scale_grad_by_freq,
                       bool sparse, py::object weight, py::object device, py::object dtype) {
             return std::make_shared<Embedding>(
                 num, dim, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                 weight.is_none() ? Tensor() : unpack(weight.ptr()), tensor_options(device, dtype));
           }),
           py::arg("num_embeddings"), py::arg("embedding_dim"), py::arg("padding_idx") = py::none(),
           py::arg("max_norm") = py::none(), py::arg("norm_type") = 2.0,
           py::arg("scale_grad_by_freq") = false, py::arg("sparse") = false,
           py::arg("_weight") = py::none(), py::arg("device") = py::none(),
           py::arg("dtype") = py::none())
      .def_static("from_pretrained", &Embedding::from_pretrained, py::arg("embeddings"),
                  py::arg("freeze") = true, py::arg("padding_idx") = py::none(),
                  py::arg("max_norm") = py::none(), py::arg("norm_type") = 2.0,
                  py::arg("scale_grad_by_freq") = false, py::arg("sparse") = false)
      .def("reset_parameters", &Embedding::reset_parameters)
      .def_readwrite("num_embeddings", &Embedding::num_embeddings)
      .def_readwrite("embedding_dim", &Embedding::embedding_dim)
      .def_readwrite("padding_idx", &Embedding::padding_idx)
      .def_readwrite("max_norm", &Embedding::max_norm)
      .def_readwrite("norm_type", &Embedding::norm_type)
      .def_readwrite("scale_grad_by_freq", &Embedding::scale_grad_by_freq)
      .def_readwrite("sparse", &Embedding::sparse);
  Class<LayerNorm>(m, "LayerNorm")
      .def(py::init([](py::object shape, double eps, bool affine, py::object device,
                       py::object dtype) {
             std::vector<int64_t> s = PyLong_Check(shape.ptr())
                                          ? std::vector<int64_t>{shape.cast<int64_t>()}
                                          : shape.cast<std::vector<int64_t>>();
             return std::make_shared<LayerNorm>(s, eps, affine, tensor_options(device, dtype));
           }),
           py::arg("normalized_shape"), py::arg("eps") = 1e-5,
           py::arg("elementwise_affine") = true, py::arg("device") = py::none(),
           py::arg("dtype") = py::none())
      .def("reset_parameters", &LayerNorm::reset_parameters)
      .def_property_readonly("normalized_shape", [](const LayerNorm& self) {
        return py::tuple(py::cast(self.normalized_shape));
      })
      .def_readwrite("eps", &LayerNorm::eps)
      .def_readwrite("elementwise_affine", &LayerNorm::elementwise_affine);
}

void bind_losses(py::module_& m) {
  Class<Loss>(m, "_Loss").def_readwrite("reduction", &Loss::reduction);
  Class<WeightedLoss, Loss>(m, "_WeightedLoss");
  const auto none = py::none();
  Class<MSELoss, Loss>(m, "MSELoss")
      .def(py::init([](py::object sa, py::object r, const std::string& red) {
             return std::make_shared<MSELoss>(reduction_arg(sa, r, red));
           }),
           py::arg("size_average") = none, py::arg("reduce") = none, py::arg("reduction") = "mean");
  Class<L1Loss, Loss>(m, "L1Loss")
      .def(py::init([](py::object sa, py::object r, const std::string& red) {
             return std::make_shared<L1Loss>(reduction_arg(sa, r, red));
           }),
           py::arg("size_average") = none, py::arg("reduce") = none, py::arg("reduction") = "mean");
  Class<NLLLoss, WeightedLoss>(m, "NLLLoss")
      .def(py::init([](py::object weight, py::object sa, int64_t ignore_index, py::object r,
                       const std::string& red) {
             return std::make_shared<NLLLoss>(opt_tensor(weight), ignore_index,
                                              reduction_arg(sa, r, red));
           }),
           py::arg("weight") = none, py::arg("size_average") = none,
           py::arg("ignore_index") = -100, py::arg("reduce") = none, py::arg("reduction") = "mean")
      .def_readwrite("ignore_index", &NLLLoss::ignore_index);
  Class<CrossEntropyLoss, WeightedLoss>(m, "CrossEntropyLoss")
      .def(py::init([](py::object weight, py::object sa, int64_t ignore_index, py::object r,
                       const std::string& red, double label_smoothing) {
             return std::make_shared<CrossEntropyLoss>(opt_tensor(weight), ignore_index,
                                                       reduction_arg(sa, r, red), label_smoothing);
           }),
           py::arg("weight") = none, py::arg("size_average") = none,
           py::arg("ignore_index") = -100, py::arg("reduce") = none, py::arg("reduction") = "mean",
           py::arg("label_smoothing") = 0.0)
      .def_readwrite("ignore_index", &CrossEntropyLoss::ignore_index)
      .def_readwrite("label_smoothing", &CrossEntropyLoss::label_smoothing);
  Class<BCEWithLogitsLoss, Loss>(m, "BCEWithLogitsLoss")
      .def(py::init([](py::object weight, py::object sa, py::object r, const std::string& red,
                       py::object pos_weight) {
             return std::make_shared<BCEWithLogitsLoss>(opt_tensor(weight), reduction_arg(sa, r, red),
                                                        opt_tensor(pos_weight));
           }),
           py::arg("weight") = none, py::arg("size_average") = none, py::arg("reduce") = none,
           py::arg("reduction") = "mean", py::arg("pos_weight") = none);
}

}  // namespace

void init_nn_layers(py::module_& m) {
  m.def("_legacy_get_string", &reduction_arg, py::arg("size_average"), py::arg("reduce"),
        py::arg("reduction") = "mean");
  bind_sequences(m);
  bind_activations(m);
  bind_layers(m);
  bind_losses(m);
}

}  // namespace ember::python
