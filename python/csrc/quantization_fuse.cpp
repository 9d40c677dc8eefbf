// Fusion for Python: the float fused modules (ember::nn::intrinsic) as _C._nni classes, and the
// C++ fuse_modules steps that python/ember/ao/quantization/fuse_modules.py drives. The type
// checks whose messages print Python classes ("Incorrect types for input modules<class ...>")
// run here, before the C++ constructors' own checks, with PyTorch's AssertionError.
#include "nn_cnn.h"

#include "ember/nn/intrinsic/fused.h"
#include "ember/nn/modules/activation.h"
#include "ember/nn/modules/batchnorm.h"
#include "ember/nn/modules/container.h"
#include "ember/nn/modules/conv.h"
#include "ember/nn/modules/linear.h"
#include "ember/quantization/fuse.h"

namespace ember::python {

namespace {

namespace nni = ember::nn::intrinsic;
using VH = py::detail::value_and_holder;

[[noreturn]] void raise_assertion(const std::string& msg) {
  PyErr_SetString(PyExc_AssertionError, msg.c_str());
  throw py::error_already_set();
}

// PyTorch's `assert type(a) == A and type(b) == B, 'Incorrect types for input
// modules{}{}'.format(type(a), type(b))`.
void check_exact_types(const std::vector<py::handle>& mods, const std::vector<py::handle>& types) {
  bool ok = true;
  std::string msg = "Incorrect types for input modules";
  for (size_t i = 0; i < mods.size(); ++i) {
    py::handle t(reinterpret_cast<PyObject*>(Py_TYPE(mods[i].ptr())));
    ok = ok && t.is(types[i]);
    msg += py::str(t).cast<std::string>();
  }
  if (!ok) raise_assertion(msg);
}

template <class T>
py::handle type_of() {
  return py::type::of<T>();
}

template <class T, class A, class B>
void bind_fused2(py::module_& m, const char* name, const char* a_name, const char* b_name) {
  py::class_<T, PyLayer<T>, nni::FusedModule, std::shared_ptr<T>> cls(m, name);
  cls.def(
      "__init__",
      [](VH& v_h, py::handle a, py::handle b) {
        check_exact_types({a, b}, {type_of<A>(), type_of<B>()});
        construct_layer<T>(v_h, module_from_py(a), module_from_py(b));
      },
      py::detail::is_new_style_constructor(), py::arg(a_name), py::arg(b_name));
}

template <class T, class A, class B, class C>
void bind_fused3(py::module_& m, const char* name) {
  py::class_<T, PyLayer<T>, nni::FusedModule, std::shared_ptr<T>> cls(m, name);
  cls.def(
      "__init__",
      [](VH& v_h, py::handle a, py::handle b, py::handle c) {
        check_exact_types({a, b, c}, {type_of<A>(), type_of<B>(), type_of<C>()});
        construct_layer<T>(v_h, module_from_py(a), module_from_py(b), module_from_py(c));
      },
      py::detail::is_new_style_constructor(), py::arg("conv"), py::arg("bn"), py::arg("relu"));
}

void bind_intrinsic(py::module_& m) {
  py::class_<nni::FusedModule, nn::Sequential, std::shared_ptr<nni::FusedModule>>(m, "_FusedModule");
  bind_fused2<nni::ConvReLU1d, nn::Conv1d, nn::ReLU>(m, "ConvReLU1d", "conv", "relu");
  bind_fused2<nni::ConvReLU2d, nn::Conv2d, nn::ReLU>(m, "ConvReLU2d", "conv", "relu");
  bind_fused2<nni::ConvReLU3d, nn::Conv3d, nn::ReLU>(m, "ConvReLU3d", "conv", "relu");
  bind_fused2<nni::LinearReLU, nn::Linear, nn::ReLU>(m, "LinearReLU", "linear", "relu");
  bind_fused2<nni::ConvBn1d, nn::Conv1d, nn::BatchNorm1d>(m, "ConvBn1d", "conv", "bn");
  bind_fused2<nni::ConvBn2d, nn::Conv2d, nn::BatchNorm2d>(m, "ConvBn2d", "conv", "bn");
  bind_fused2<nni::ConvBn3d, nn::Conv3d, nn::BatchNorm3d>(m, "ConvBn3d", "conv", "bn");
  bind_fused3<nni::ConvBnReLU1d, nn::Conv1d, nn::BatchNorm1d, nn::ReLU>(m, "ConvBnReLU1d");
  bind_fused3<nni::ConvBnReLU2d, nn::Conv2d, nn::BatchNorm2d, nn::ReLU>(m, "ConvBnReLU2d");
  bind_fused3<nni::ConvBnReLU3d, nn::Conv3d, nn::BatchNorm3d, nn::ReLU>(m, "ConvBnReLU3d");
  bind_fused2<nni::BNReLU2d, nn::BatchNorm2d, nn::ReLU>(m, "BNReLU2d", "batch_norm", "relu");
  bind_fused2<nni::BNReLU3d, nn::BatchNorm3d, nn::ReLU>(m, "BNReLU3d", "batch_norm", "relu");
  bind_fused2<nni::LinearBn1d, nn::Linear, nn::BatchNorm1d>(m, "LinearBn1d", "linear", "bn");
  // isinstance(m, _FusedModule) in PyTorch, for the QAT fused modules too (fused.h).
  m.def("_is_fused_module", [](py::handle mod) {
    return nni::is_fused_module(*module_from_py(mod));
  }, py::arg("mod"));
}

std::vector<std::shared_ptr<nn::Module>> modules_from_list(py::handle list) {
  std::vector<std::shared_ptr<nn::Module>> out;
  for (auto item : list) out.push_back(module_from_py(item));
  return out;
}

py::list modules_to_list(const std::vector<std::shared_ptr<nn::Module>>& mods) {
  py::list out;
  for (const auto& m : mods) out.append(module_to_py(m));
  return out;
}

void bind_fuse(py::module_& m) {
  // One group of names: the C++ steps (find the modules, fuse, put back) with the Python
  // fuser_func(mod_list, is_qat) in the middle.
  m.def("_fuse_modules_group", [](py::handle model, const std::vector<std::string>& names,
                                   bool is_qat, py::object fuser_func) {
    quantization::FuserFn fn = [&fuser_func](const std::vector<std::shared_ptr<nn::Module>>& mods,
                                             bool qat) {
      py::object result = fuser_func(modules_to_list(mods), qat);
      return modules_from_list(result);
    };
    quantization::fuse_modules_group(*module_from_py(model), names, is_qat, fn);
  });
  m.def("_get_module", [](py::handle model, const std::string& path) {
    return module_to_py(quantization::get_submodule_by_path(*module_from_py(model), path));
  });
  // The C++ forward hooks (prepare's observers, hooks registered from C++) of the modules being
  // fused; Python's hooks are moved by fuse_known_modules itself.
  m.def("_move_native_fusion_hooks", [](py::handle first, py::handle last, py::handle fused) {
    quantization::move_fusion_hooks(*module_from_py(first), *module_from_py(last),
                                    *module_from_py(fused));
  });
}

}  // namespace

void init_quantization_stubs(py::module_& m);  // quantization_stubs.cpp
void init_quantization_qat(py::module_& m);    // quantization_qat.cpp

// _C._nni, _C._fuse, and _C._qstubs (quantization_stubs.cpp), _C._nnqat and _C._nniqat
// (quantization_qat.cpp).
void init_quantization_fuse(py::module_& m) {
  py::module_ nni_mod = m.def_submodule("_nni", "ember::nn::intrinsic");
  bind_intrinsic(nni_mod);
  py::module_ q = m.def_submodule("_fuse", "ember::quantization (fusion)");
  bind_fuse(q);
  init_quantization_stubs(m);
  init_quantization_qat(m);
}

}  // namespace ember::python
