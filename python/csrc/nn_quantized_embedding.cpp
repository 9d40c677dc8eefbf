// The quantized embeddings from Python: the packed object (PyTorch's EmbeddingPackedParamsBase
// ScriptObject: bit_rate, version, __getstate__ / __setstate__) and the modules of
// ember::nn::quantized (include/ember/nn/quantized/embedding.h) as _C._nnq.EmbeddingPackedParams,
// Embedding and EmbeddingBag, with PyTorch 1.13's constructor signatures, attributes and
// from_float. The ops are rows of the op table (ember.ops.quantized.embedding_bag_prepack, ...).
#include <algorithm>

#include "nn_cnn.h"

#include "ember/nn/quantized/embedding.h"
#include "ember/quantized/embedding.h"

namespace ember::python {

namespace {

namespace nnq = ember::nn::quantized;
namespace q = ember::quantized;
using VH = py::detail::value_and_holder;

template <class T, class Base = nn::Module>
using Class = py::class_<T, PyLayer<T>, Base, std::shared_ptr<T>>;

const auto none = py::none();

std::optional<Tensor> opt_tensor(py::handle o) {
  if (o.is_none()) return std::nullopt;
  return o.cast<Tensor>();
}
template <class T>
std::optional<T> opt(py::handle o) {
  if (o.is_none()) return std::nullopt;
  return o.cast<T>();
}

// PyTorch's serialized state: (version 1, [the unpacked weight], [], [bit_rate]).
py::tuple packed_getstate(const q::EmbeddingPackedParams& p) {
  py::list tensors, doubles, longs;
  tensors.append(py::reinterpret_steal<py::object>(wrap(p.unpack())));
  longs.append(p.bit_rate());
  py::tuple state = py::make_tuple(p.version(), tensors, doubles, longs);
  return py::make_tuple(state, py::str(q::EmbeddingPackedParams::kClassName));
}

q::EmbeddingPackedParamsPtr packed_setstate(py::handle state_in) {
  const char* cls = q::EmbeddingPackedParams::kClassName;
  EMBER_CHECK_TYPE(py::isinstance<py::tuple>(state_in), cls,
                   ".__setstate__: expected a tuple, got ", Py_TYPE(state_in.ptr())->tp_name);
  auto state = py::reinterpret_borrow<py::tuple>(state_in);
  // Accept the state with or without the class name beside it (what __getstate__ gives).
  if (state.size() == 2 && py::isinstance<py::tuple>(state[0]) &&
      py::isinstance<py::str>(state[1])) {
    EMBER_CHECK(state[1].cast<std::string>() == cls, "cannot restore a ",
                state[1].cast<std::string>(), " as a ", cls);
    state = py::reinterpret_borrow<py::tuple>(state[0]);
  }
  EMBER_CHECK(state.size() == 4, cls, ".__setstate__: expected (version, tensors, doubles, "
              "longs), got ", state.size(), " items");
  auto tensors = state[1].cast<py::sequence>();
  EMBER_CHECK(tensors.size() == 1 && is_tensor(tensors[0].ptr()), cls,
              ".__setstate__: expected one weight tensor");
  return q::EmbeddingPackedParams::make(unpack(tensors[0].ptr()));
}

void bind_packed_object(py::module_& m) {
  py::class_<q::EmbeddingPackedParams, CustomClassHolder, q::EmbeddingPackedParamsPtr> cls(
      m, "EmbeddingPackedParams");
  cls.def("bit_rate", &q::EmbeddingPackedParams::bit_rate)
      .def("version", &q::EmbeddingPackedParams::version)
      .def("__deepcopy__", [](const q::EmbeddingPackedParams& p, py::handle) {
        return q::EmbeddingPackedParams::make(p.unpack());
      })
      .def(py::pickle([](const q::EmbeddingPackedParams& p) { return packed_getstate(p); },
                      [](py::tuple state) { return packed_setstate(state); }));
  const std::vector<std::string> names = {"__getstate__", "__setstate__", "bit_rate", "version"};
  cls.def("_method_names", [names](py::handle) { return names; });
  cls.def("_has_method", [names](py::handle, const std::string& n) {
    return std::find(names.begin(), names.end(), n) != names.end();
  });
}

template <class T>
void bind_from_float(py::handle cls) {
  cls.attr("from_float") = py::staticmethod(py::cpp_function(
      [](py::handle mod) {
        EMBER_CHECK_TYPE(py::isinstance<nn::Module>(mod), "from_float(): expected an "
                         "ember.nn.Module, got ", Py_TYPE(mod.ptr())->tp_name);
        return T::from_float(*module_from_py(mod));
      },
      py::arg("mod")));
}

void bind_modules(py::module_& nnq_mod) {
  Class<nnq::EmbeddingPackedParams> packed(nnq_mod, "EmbeddingPackedParams");
  packed.def("__init__",
             [](VH& v_h, int64_t num, int64_t dim, ScalarType dtype) {
               construct_layer<nnq::EmbeddingPackedParams>(v_h, num, dim, dtype);
             },
             py::detail::is_new_style_constructor(), py::arg("num_embeddings"),
             py::arg("embedding_dim"), py::arg("dtype") = kQUInt8)
      .def("set_weight", &nnq::EmbeddingPackedParams::set_weight, py::arg("weight"))
      .def("_weight", &nnq::EmbeddingPackedParams::_weight)
      .def_readwrite("dtype", &nnq::EmbeddingPackedParams::dtype)
      .def_property(
          "_packed_weight",
          [](const nnq::EmbeddingPackedParams& self) {
            return value_to_py(Value(intrusive_ptr<CustomClassHolder>(self.packed_weight().get())));
          },
          [](nnq::EmbeddingPackedParams& self, py::handle v) {
            Value val = py_to_value(v, "_packed_weight");
            self.set_packed_weight(val.to_object<q::EmbeddingPackedParams>());
          })
      .def("forward",
           [](py::handle, py::handle x) { return py::reinterpret_borrow<py::object>(x); },
           py::arg("x"))
      .def("__repr__", [](const nnq::EmbeddingPackedParams& self) { return self.repr(); })
      .def("_get_name", [](const nnq::EmbeddingPackedParams& self) { return self.type_name(); });

  Class<nnq::Embedding> emb(nnq_mod, "Embedding");
  emb.def("__init__",
          [](VH& v_h, int64_t num, int64_t dim, py::handle padding_idx, py::handle max_norm,
             double norm_type, bool scale_grad_by_freq, bool sparse, py::handle weight,
             ScalarType dtype) {
            construct_layer<nnq::Embedding>(v_h, num, dim, opt<int64_t>(padding_idx),
                                            opt<double>(max_norm), norm_type, scale_grad_by_freq,
                                            sparse, opt_tensor(weight), dtype);
          },
          py::detail::is_new_style_constructor(), py::arg("num_embeddings"),
          py::arg("embedding_dim"), py::arg("padding_idx") = none, py::arg("max_norm") = none,
          py::arg("norm_type") = 2.0, py::arg("scale_grad_by_freq") = false,
          py::arg("sparse") = false, py::arg("_weight") = none, py::arg("dtype") = kQUInt8)
      .def("forward",
           [](nnq::Embedding& self, const Tensor& indices) {
             return self.nnq::Embedding::forward(indices);
           },
           py::arg("indices"))
      .def("extra_repr",
           [](const nnq::Embedding& self) { return self.nnq::Embedding::extra_repr(); })
      .def("_get_name", [](const nnq::Embedding& self) { return self.type_name(); })
      .def("set_weight", &nnq::Embedding::set_weight, py::arg("w"))
      .def("weight", &nnq::Embedding::weight)
      .def_readwrite("num_embeddings", &nnq::Embedding::num_embeddings)
      .def_readwrite("embedding_dim", &nnq::Embedding::embedding_dim)
      .def_readwrite("dtype", &nnq::Embedding::dtype);
  bind_from_float<nnq::Embedding>(emb);

  Class<nnq::EmbeddingBag, nnq::Embedding> bag(nnq_mod, "EmbeddingBag");
  bag.def("__init__",
          [](VH& v_h, int64_t num, int64_t dim, py::handle max_norm, double norm_type,
             bool scale_grad_by_freq, const std::string& mode, bool sparse, py::handle weight,
             bool include_last_offset, ScalarType dtype) {
            construct_layer<nnq::EmbeddingBag>(v_h, num, dim, opt<double>(max_norm), norm_type,
                                               scale_grad_by_freq, mode, sparse,
                                               opt_tensor(weight), include_last_offset, dtype);
          },
          py::detail::is_new_style_constructor(), py::arg("num_embeddings"),
          py::arg("embedding_dim"), py::arg("max_norm") = none, py::arg("norm_type") = 2.0,
          py::arg("scale_grad_by_freq") = false, py::arg("mode") = "sum",
          py::arg("sparse") = false, py::arg("_weight") = none,
          py::arg("include_last_offset") = false, py::arg("dtype") = kQUInt8)
      .def("forward",
           [](nnq::EmbeddingBag& self, const Tensor& indices, py::handle offsets,
              py::handle per_sample_weights, py::handle compressed_indices_mapping) {
             return self.nnq::EmbeddingBag::forward(indices, opt_tensor(offsets),
                                                    opt_tensor(per_sample_weights),
                                                    opt_tensor(compressed_indices_mapping));
           },
           py::arg("indices"), py::arg("offsets") = none, py::arg("per_sample_weights") = none,
           py::arg("compressed_indices_mapping") = none)
      .def("_get_name", [](const nnq::EmbeddingBag& self) { return self.type_name(); })
      .def_readwrite("mode", &nnq::EmbeddingBag::mode)
      .def_readwrite("pruned_weights", &nnq::EmbeddingBag::pruned_weights)
      .def_readwrite("include_last_offset", &nnq::EmbeddingBag::include_last_offset);
  bind_from_float<nnq::EmbeddingBag>(bag);
}

}  // namespace

void init_nn_quantized_embedding(py::module_& m) {
  bind_packed_object(m);
  py::module_ nnq_mod = m.attr("_nnq").cast<py::module_>();
  bind_modules(nnq_mod);
}

}  // namespace ember::python
