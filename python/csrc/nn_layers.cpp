// The C++ layers, losses and containers of ember::nn as ember.nn classes, with PyTorch's
// constructor signatures. Each class binds its own forward (arguments boxed into the layer's C++
// forward) and gets a trampoline for Python subclasses (Note [Trampolines for C++ layers]).
#include "nn_cnn.h"

#include <algorithm>

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
// Sequential's forward calls each child through Python's __call__, so that any Python value
// flows between the children, as in PyTorch. When the input is a tensor and every module below
// is an instance of a C++ layer's own class (no Python subclass, hence no Python forward) with
// no hook, that is exactly what the C++ forward does, so it runs instead: one call, and C++'s
// eval-mode conv-bn-activation fusion (Note [Eval-mode conv-bn-activation fusion]) applies to
// Sequentials built in Python too. (A hooked child would also be right under the C++ forward —
// Note [Module hooks across the boundary] — but its hooks may pass any Python value.)
// (Depth first, stopping at the first module that needs Python: this runs on every call, and
// listing the whole tree first cost more than a small block's convolutions. A tree deeper than
// any real model, or a cyclic one, takes the Python path, which reports it as before.)
// A child made in Python is held through its object (PyObjectRef); one made in C++ has an object
// only if Python gave it state (front_end_object), and then of its C++ class: so no Python
// object is made here just to look at its type (that cost more than the look).
bool children_run_natively(const nn::Module& m, int depth) {
  if (depth > 100) return false;
  for (const auto& [name, child] : m.named_children()) {
    if (child->has_forward_hooks()) return false;
    PyObject* obj = nullptr;
    if (const auto* ref = std::get_deleter<PyObjectRef>(child)) {
      obj = ref->obj;
    } else {
      obj = static_cast<PyObject*>(child->front_end_object().get());
    }
    if (obj != nullptr) {
      PyTypeObject* type = Py_TYPE(obj);
      const py::detail::type_info* info = py::detail::get_type_info(type);
      if (info == nullptr || info->type != type) return false;
    }
    if (!children_run_natively(*child, depth + 1)) return false;
  }
  return true;
}
bool runs_natively(nn::Module& root) { return children_run_natively(root, 0); }

using namespace ember::nn;

template <class T, class Base = Module>
using Class = py::class_<T, Base, std::shared_ptr<T>>;

}  // namespace

// nn.h: torch.nn._reduction.legacy_get_string: the deprecated size_average / reduce arguments.
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

namespace {

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

// ModuleList._get_abs_string_index: the name str(idx) after Python's range check.
std::string list_key(const ModuleList& self, py::handle idx) {
  const auto i = idx.cast<int64_t>();
  const auto n = static_cast<int64_t>(self.size());
  EMBER_CHECK_INDEX(i >= -n && i < n, "index ", i, " is out of range");
  return std::to_string(i < 0 ? i + n : i);
}

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

  // The containers get the trampoline too (a `class Blocks(nn.ModuleList)` with a forward, a
  // Sequential subclass inside a C++ model).
  py::class_<Sequential, PyLayer<Sequential>, ModuleSequence, std::shared_ptr<Sequential>> sequential(
      m, "Sequential");
  sequential.def("__init__", [](py::detail::value_and_holder& v_h, py::args args) {
    if (args.size() == 1 && py::isinstance(args[0], py::module_::import("collections").attr("OrderedDict"))) {
      return construct_layer<Sequential>(v_h, named_from(args[0]));
    }
    construct_layer<Sequential>(v_h, modules_from(args));
  }, py::detail::is_new_style_constructor());
  sequential.def("extra_repr", [](const Sequential& self) { return self.Sequential::extra_repr(); });
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

  py::class_<ModuleList, PyLayer<ModuleList>, ModuleSequence, std::shared_ptr<ModuleList>> list(
      m, "ModuleList");
  list.def("__init__", [](py::detail::value_and_holder& v_h, py::object modules) {
    if (modules.is_none()) return construct_layer<ModuleList>(v_h);
    construct_layer<ModuleList>(v_h, modules_from(modules));
  }, py::detail::is_new_style_constructor(), py::arg("modules") = py::none());
  list.def("extra_repr", [](const ModuleList& self) { return self.ModuleList::extra_repr(); });
  list.def("__getitem__", [](ModuleList& self, py::object idx) {
    if (!py::isinstance<py::slice>(idx)) {
      const std::string key = list_key(self, idx);
      for (const auto& [n, c] : self.items()) {
        if (n == key) return module_to_py(c);
      }
      throw py::key_error(key);
    }
    std::optional<int64_t> a, b;
    int64_t step;
    slice_parts(idx, a, b, step);
    return module_to_py(self.slice(a, b, step));
  });
  // PyTorch's ModuleList addresses its children by the name str(index) (a child added under
  // another name is iterated and counted, but `ml[i]` looks for "i": KeyError).
  list.def("__setitem__", [](ModuleList& self, py::object idx, py::handle module) {
    self.add_module(list_key(self, idx), module_from_py(module));
  });
  list.def("__delitem__", [](ModuleList& self, py::object idx) {
    if (py::isinstance<py::slice>(idx)) {
      std::optional<int64_t> a, b;
      int64_t step;
      slice_parts(idx, a, b, step);
      self.erase(a, b, step);
      return;
    }
    const std::string key = list_key(self, idx);
    const auto keys = self.keys();
    const auto pos = std::find(keys.begin(), keys.end(), key) - keys.begin();
    EMBER_CHECK_KIND(ErrorKind::Attribute, pos < static_cast<std::ptrdiff_t>(keys.size()), key);
    self.erase(pos);  // and renumbers "0", "1", ..., as PyTorch
  });
  list.def("__iadd__", [](py::handle self, py::handle modules) {
    self.cast<ModuleList&>().extend(modules_from(modules));
    return self_of(self);
  });

  py::class_<ModuleDict, PyLayer<ModuleDict>, ModuleContainer, std::shared_ptr<ModuleDict>> dict(
      m, "ModuleDict");
  dict.def("__init__", [](py::detail::value_and_holder& v_h, py::object modules) {
    if (modules.is_none()) return construct_layer<ModuleDict>(v_h);
    construct_layer<ModuleDict>(v_h, named_from(modules));
  }, py::detail::is_new_style_constructor(), py::arg("modules") = py::none());
  dict.def("extra_repr", [](const ModuleDict& self) { return self.ModuleDict::extra_repr(); });
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

// The layers get the trampoline of Note [Trampolines for C++ layers]: a Python subclass's forward,
// extra_repr and class name are its own also where C++ calls it.
template <class T, class Base = Module>
using Layer = py::class_<T, PyLayer<T>, Base, std::shared_ptr<T>>;
// Shared bases (never instantiated themselves).
template <class T, class Base = Module>
using Abstract = py::class_<T, Base, std::shared_ptr<T>>;
using VH = py::detail::value_and_holder;
const auto none = py::none();

template <class T, class Cls>
void finish(Cls& cls) {
  bind_own_forward<T>(cls);
}

void bind_activations(py::module_& m) {
  Layer<Identity> identity(m, "Identity");
  identity.def("__init__", [](VH& v_h, py::args, py::kwargs) { construct_layer<Identity>(v_h); },
               py::detail::is_new_style_constructor());
  finish<Identity>(identity);
  Layer<ReLU> relu(m, "ReLU");
  relu.def("__init__", [](VH& v_h, bool inplace) { construct_layer<ReLU>(v_h, inplace); },
           py::detail::is_new_style_constructor(), py::arg("inplace") = false)
      .def_readwrite("inplace", &ReLU::inplace);
  finish<ReLU>(relu);
  Layer<Hardtanh> hardtanh(m, "Hardtanh");
  hardtanh
      .def("__init__",
           [](VH& v_h, double min_val, double max_val, bool inplace, py::object min_value,
              py::object max_value) {
             if (!min_value.is_none()) {
               warn("keyword argument min_value is deprecated and rename to min_val");
               min_val = min_value.cast<double>();
             }
             if (!max_value.is_none()) {
               warn("keyword argument max_value is deprecated and rename to max_val");
               max_val = max_value.cast<double>();
             }
             construct_layer<Hardtanh>(v_h, min_val, max_val, inplace);
           },
           py::detail::is_new_style_constructor(), py::arg("min_val") = -1.0,
           py::arg("max_val") = 1.0, py::arg("inplace") = false, py::arg("min_value") = none,
           py::arg("max_value") = none)
      .def_readwrite("min_val", &Hardtanh::min_val)
      .def_readwrite("max_val", &Hardtanh::max_val)
      .def_readwrite("inplace", &Hardtanh::inplace);
  finish<Hardtanh>(hardtanh);
  Layer<ReLU6, Hardtanh> relu6(m, "ReLU6");
  relu6.def("__init__", [](VH& v_h, bool inplace) { construct_layer<ReLU6>(v_h, inplace); },
            py::detail::is_new_style_constructor(), py::arg("inplace") = false);
  finish<ReLU6>(relu6);
  Layer<Hardswish> hardswish(m, "Hardswish");
  hardswish.def("__init__", [](VH& v_h, bool inplace) { construct_layer<Hardswish>(v_h, inplace); },
                py::detail::is_new_style_constructor(), py::arg("inplace") = false)
      .def_readwrite("inplace", &Hardswish::inplace);
  finish<Hardswish>(hardswish);
  Layer<Sigmoid> sigmoid(m, "Sigmoid");
  sigmoid.def("__init__", [](VH& v_h) { construct_layer<Sigmoid>(v_h); },
              py::detail::is_new_style_constructor());
  finish<Sigmoid>(sigmoid);
  Layer<Tanh> tanh(m, "Tanh");
  tanh.def("__init__", [](VH& v_h) { construct_layer<Tanh>(v_h); },
           py::detail::is_new_style_constructor());
  finish<Tanh>(tanh);
  Layer<GELU> gelu(m, "GELU");
  gelu.def("__init__", [](VH& v_h, std::string approximate) { construct_layer<GELU>(v_h, approximate); },
           py::detail::is_new_style_constructor(), py::arg("approximate") = "none")
      .def_readwrite("approximate", &GELU::approximate);
  finish<GELU>(gelu);
  Layer<SiLU> silu(m, "SiLU");
  silu.def("__init__", [](VH& v_h, bool inplace) { construct_layer<SiLU>(v_h, inplace); },
           py::detail::is_new_style_constructor(), py::arg("inplace") = false)
      .def_readwrite("inplace", &SiLU::inplace);
  finish<SiLU>(silu);
  Layer<Softmax> softmax(m, "Softmax");
  softmax.def("__init__", [](VH& v_h, std::optional<int64_t> dim) { construct_layer<Softmax>(v_h, dim); },
              py::detail::is_new_style_constructor(), py::arg("dim") = none)
      .def_readwrite("dim", &Softmax::dim);
  finish<Softmax>(softmax);
  Layer<LogSoftmax> log_softmax(m, "LogSoftmax");
  log_softmax.def("__init__", [](VH& v_h, std::optional<int64_t> dim) { construct_layer<LogSoftmax>(v_h, dim); },
                  py::detail::is_new_style_constructor(), py::arg("dim") = none)
      .def_readwrite("dim", &LogSoftmax::dim);
  finish<LogSoftmax>(log_softmax);
  Layer<Flatten> flatten(m, "Flatten");
  flatten.def("__init__", [](VH& v_h, int64_t start_dim, int64_t end_dim) {
                construct_layer<Flatten>(v_h, start_dim, end_dim);
              }, py::detail::is_new_style_constructor(), py::arg("start_dim") = 1, py::arg("end_dim") = -1)
      .def_readwrite("start_dim", &Flatten::start_dim)
      .def_readwrite("end_dim", &Flatten::end_dim);
  finish<Flatten>(flatten);
  Layer<Dropout> dropout(m, "Dropout");
  dropout.def("__init__", [](VH& v_h, double p, bool inplace) { construct_layer<Dropout>(v_h, p, inplace); },
              py::detail::is_new_style_constructor(), py::arg("p") = 0.5, py::arg("inplace") = false)
      .def_readwrite("p", &Dropout::p)
      .def_readwrite("inplace", &Dropout::inplace);
  finish<Dropout>(dropout);
}

void bind_layers(py::module_& m) {
  Layer<Linear> linear(m, "Linear");
  linear.def("__init__",
             [](VH& v_h, int64_t in, int64_t out, bool bias, py::object device, py::object dtype) {
               construct_layer<Linear>(v_h, in, out, bias, tensor_options(device, dtype));
             },
             py::detail::is_new_style_constructor(), py::arg("in_features"),
             py::arg("out_features"), py::arg("bias") = true, py::arg("device") = none,
             py::arg("dtype") = none)
      .def("reset_parameters", &Linear::reset_parameters)
      .def_readwrite("in_features", &Linear::in_features)
      .def_readwrite("out_features", &Linear::out_features);
  finish<Linear>(linear);
  Layer<Bilinear> bilinear(m, "Bilinear");
  bilinear
      .def("__init__",
           [](VH& v_h, int64_t in1, int64_t in2, int64_t out, bool bias, py::object device,
              py::object dtype) {
             construct_layer<Bilinear>(v_h, in1, in2, out, bias, tensor_options(device, dtype));
           },
           py::detail::is_new_style_constructor(), py::arg("in1_features"),
           py::arg("in2_features"), py::arg("out_features"), py::arg("bias") = true,
           py::arg("device") = none, py::arg("dtype") = none)
      .def("reset_parameters", &Bilinear::reset_parameters)
      .def_readwrite("in1_features", &Bilinear::in1_features)
      .def_readwrite("in2_features", &Bilinear::in2_features)
      .def_readwrite("out_features", &Bilinear::out_features);
  finish<Bilinear>(bilinear);
  Layer<Embedding> embedding(m, "Embedding");
  embedding
      .def("__init__",
           [](VH& v_h, int64_t num, int64_t dim, std::optional<int64_t> padding_idx,
              std::optional<double> max_norm, double norm_type, bool scale_grad_by_freq,
              bool sparse, py::object weight, py::object device, py::object dtype) {
             construct_layer<Embedding>(v_h, num, dim, padding_idx, max_norm, norm_type,
                                        scale_grad_by_freq, sparse,
                                        weight.is_none() ? Tensor() : unpack(weight.ptr()),
                                        tensor_options(device, dtype));
           },
           py::detail::is_new_style_constructor(), py::arg("num_embeddings"),
           py::arg("embedding_dim"), py::arg("padding_idx") = none, py::arg("max_norm") = none,
           py::arg("norm_type") = 2.0, py::arg("scale_grad_by_freq") = false,
           py::arg("sparse") = false, py::arg("_weight") = none, py::arg("device") = none,
           py::arg("dtype") = none)
      .def_static("from_pretrained", &Embedding::from_pretrained, py::arg("embeddings"),
                  py::arg("freeze") = true, py::arg("padding_idx") = none,
                  py::arg("max_norm") = none, py::arg("norm_type") = 2.0,
                  py::arg("scale_grad_by_freq") = false, py::arg("sparse") = false)
      .def("reset_parameters", &Embedding::reset_parameters)
      .def_readwrite("num_embeddings", &Embedding::num_embeddings)
      .def_readwrite("embedding_dim", &Embedding::embedding_dim)
      .def_readwrite("padding_idx", &Embedding::padding_idx)
      .def_readwrite("max_norm", &Embedding::max_norm)
      .def_readwrite("norm_type", &Embedding::norm_type)
      .def_readwrite("scale_grad_by_freq", &Embedding::scale_grad_by_freq)
      .def_readwrite("sparse", &Embedding::sparse);
  finish<Embedding>(embedding);
  Layer<LayerNorm> layer_norm(m, "LayerNorm");
  layer_norm
      .def("__init__",
           [](VH& v_h, py::object shape, double eps, bool affine, py::object device,
              py::object dtype) {
             std::vector<int64_t> s = PyLong_Check(shape.ptr())
                                          ? std::vector<int64_t>{shape.cast<int64_t>()}
                                          : shape.cast<std::vector<int64_t>>();
             construct_layer<LayerNorm>(v_h, s, eps, affine, tensor_options(device, dtype));
           },
           py::detail::is_new_style_constructor(), py::arg("normalized_shape"),
           py::arg("eps") = 1e-5, py::arg("elementwise_affine") = true, py::arg("device") = none,
           py::arg("dtype") = none)
      .def("reset_parameters", &LayerNorm::reset_parameters)
      .def_property_readonly("normalized_shape", [](const LayerNorm& self) {
        return py::tuple(py::cast(self.normalized_shape));
      })
      .def_readwrite("eps", &LayerNorm::eps)
      .def_readwrite("elementwise_affine", &LayerNorm::elementwise_affine);
  finish<LayerNorm>(layer_norm);
}

void bind_losses(py::module_& m) {
  Abstract<Loss>(m, "_Loss").def_readwrite("reduction", &Loss::reduction);
  Abstract<WeightedLoss, Loss>(m, "_WeightedLoss");
  Layer<MSELoss, Loss> mse(m, "MSELoss");
  mse.def("__init__",
          [](VH& v_h, py::object sa, py::object r, const std::string& red) {
            construct_layer<MSELoss>(v_h, reduction_arg(sa, r, red));
          },
          py::detail::is_new_style_constructor(), py::arg("size_average") = none,
          py::arg("reduce") = none, py::arg("reduction") = "mean");
  finish<MSELoss>(mse);
  Layer<L1Loss, Loss> l1(m, "L1Loss");
  l1.def("__init__",
         [](VH& v_h, py::object sa, py::object r, const std::string& red) {
           construct_layer<L1Loss>(v_h, reduction_arg(sa, r, red));
         },
         py::detail::is_new_style_constructor(), py::arg("size_average") = none,
         py::arg("reduce") = none, py::arg("reduction") = "mean");
  finish<L1Loss>(l1);
  Layer<NLLLoss, WeightedLoss> nll(m, "NLLLoss");
  nll.def("__init__",
          [](VH& v_h, py::object weight, py::object sa, int64_t ignore_index, py::object r,
             const std::string& red) {
            construct_layer<NLLLoss>(v_h, opt_tensor(weight), ignore_index,
                                     reduction_arg(sa, r, red));
          },
          py::detail::is_new_style_constructor(), py::arg("weight") = none,
          py::arg("size_average") = none, py::arg("ignore_index") = -100,
          py::arg("reduce") = none, py::arg("reduction") = "mean")
      .def_readwrite("ignore_index", &NLLLoss::ignore_index);
  finish<NLLLoss>(nll);
  Layer<CrossEntropyLoss, WeightedLoss> ce(m, "CrossEntropyLoss");
  ce.def("__init__",
         [](VH& v_h, py::object weight, py::object sa, int64_t ignore_index, py::object r,
            const std::string& red, double label_smoothing) {
           construct_layer<CrossEntropyLoss>(v_h, opt_tensor(weight), ignore_index,
                                             reduction_arg(sa, r, red), label_smoothing);
         },
         py::detail::is_new_style_constructor(), py::arg("weight") = none,
         py::arg("size_average") = none, py::arg("ignore_index") = -100,
         py::arg("reduce") = none, py::arg("reduction") = "mean",
         py::arg("label_smoothing") = 0.0)
      .def_readwrite("ignore_index", &CrossEntropyLoss::ignore_index)
      .def_readwrite("label_smoothing", &CrossEntropyLoss::label_smoothing);
  finish<CrossEntropyLoss>(ce);
  Layer<BCEWithLogitsLoss, Loss> bce(m, "BCEWithLogitsLoss");
  bce.def("__init__",
          [](VH& v_h, py::object weight, py::object sa, py::object r, const std::string& red,
             py::object pos_weight) {
            construct_layer<BCEWithLogitsLoss>(v_h, opt_tensor(weight), reduction_arg(sa, r, red),
                                               opt_tensor(pos_weight));
          },
          py::detail::is_new_style_constructor(), py::arg("weight") = none,
          py::arg("size_average") = none, py::arg("reduce") = none,
          py::arg("reduction") = "mean", py::arg("pos_weight") = none);
  finish<BCEWithLogitsLoss>(bce);
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
