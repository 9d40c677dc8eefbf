// What the sequence-model bindings share (nn_seq.cpp, nn_rnn.cpp, nn_quantized_rnn.cpp):
// forwards that take PyTorch's keyword arguments, PackedSequences across the boundary.
#pragma once

#include <string>
#include <vector>

#include "nn_cnn.h"
#include "ember/nn/utils/rnn.h"

namespace ember::python {

/// An ember.nn.utils.rnn.PackedSequence as the C++ struct (None fields: undefined tensors) and
/// back (nn_rnn.cpp; the float and the dynamic quantized RNNs share them).
/// The ember.nn.utils.rnn.PackedSequence class.
py::object packed_class();
nn::utils::rnn::PackedSequence packed_from(py::handle packed);
py::object packed_to(const nn::utils::rnn::PackedSequence& packed);

/// forward(*args, **kwargs) over the layer's own boxed forward (Note [Trampolines for C++
/// layers]): `names` are Python's parameter names, the first `n_required` without default, the
/// rest defaulting to `defaults`. Python's TypeErrors for unknown or repeated keywords.
template <class T, class Cls>
void bind_kw_forward(Cls& cls, std::vector<std::string> names, size_t n_required,
                     std::vector<py::object> defaults) {
  cls.def("forward", [names, n_required, defaults](T& self, py::args args, py::kwargs kw) {
    const std::string type = self.type_name();
    std::vector<py::object> slot(names.size());
    EMBER_CHECK_TYPE(args.size() <= names.size(), type, ".forward() takes from ", n_required + 1,
                     " to ", names.size() + 1, " positional arguments but ", args.size() + 1,
                     " were given");
    for (size_t i = 0; i < args.size(); ++i) slot[i] = py::reinterpret_borrow<py::object>(args[i]);
    for (auto [k, v] : kw) {
      const std::string key = py::cast<std::string>(k);
      size_t i = 0;
      while (i < names.size() && names[i] != key) ++i;
      EMBER_CHECK_TYPE(i < names.size(), type, ".forward() got an unexpected keyword argument '",
                       key, "'");
      EMBER_CHECK_TYPE(!slot[i], type, ".forward() got multiple values for argument '", key, "'");
      slot[i] = py::reinterpret_borrow<py::object>(v);
    }
    std::vector<Value> in;
    for (size_t i = 0; i < names.size(); ++i) {
      if (!slot[i]) {
        EMBER_CHECK_TYPE(i >= n_required, type, ".forward() missing 1 required positional "
                         "argument: '", names[i], "'");
        slot[i] = defaults[i - n_required];
      }
      in.push_back(py_to_value(slot[i], "forward argument"));
    }
    return value_to_py(self.T::forward(in));
  });
  cls.def("extra_repr", [](const T& self) { return self.T::extra_repr(); });
}

/// Creates the classes of nn_seq.cpp in _C._nn.
void init_nn_seq(py::module_& m);

}  // namespace ember::python
