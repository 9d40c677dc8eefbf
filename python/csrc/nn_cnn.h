// What the bindings of issue 6's layers and models share (nn_cnn_layers.cpp,
// nn_cnn_functional.cpp, vision_models.cpp): the trampoline that lets Python subclasses override
// forward / extra_repr, the constructor that picks it, and Python <-> size-argument conversions.
//
// Note [Trampolines for C++ layers]
// A Python subclass of Conv2d (or of a model block) is constructed as PyLayer<Conv2d>, whose
// boxed forward and extra_repr look for a Python override first: so a subclass placed inside a
// C++ parent (a model's Sequential, a block built by a Python `block` factory) runs its own
// forward when the parent calls it from C++. Each class binds its own `forward` and
// `extra_repr` as qualified calls (`self.Conv2d::forward(...)`), never virtual ones: a
// subclass's `super().forward(x)` must reach the C++ layer, not come back to the override.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "nn.h"

#include "ember/nn/module.h"
#include "ember/nn/module_clone.h"
#include "ember/nn/modules/pooling.h"
#include "ember/nn/modules/utils.h"

namespace ember::python {

template <class Base>
class PyLayer : public Base {
 public:
  using Base::Base;

  Value forward(const std::vector<Value>& inputs) override {
    (void)cloneable_;
    py::gil_scoped_acquire gil;
    py::function f = py::get_override(static_cast<const Base*>(this), "forward");
    if (!f) return Base::forward(inputs);
    py::tuple args(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) args[i] = value_to_py(inputs[i]);
    return py_to_value(f(*args), "forward result");
  }

  std::string extra_repr() const override {
    PYBIND11_OVERRIDE(std::string, Base, extra_repr, );
  }

  // Note [Python extra state and versions] (nn_module_state_hooks.cpp).
  bool has_extra_state() const override {
    return py_has_extra_state(as_base(), typeid(Base)) || Base::has_extra_state();
  }
  Value get_extra_state() const override {
    if (py_has_extra_state(as_base(), typeid(Base))) return py_get_extra_state(as_base(), typeid(Base));
    return Base::get_extra_state();
  }
  void set_extra_state(const Value& state) override {
    if (py_has_extra_state(as_base(), typeid(Base)))
      return py_set_extra_state(as_base(), typeid(Base), state);
    Base::set_extra_state(state);
  }
  int64_t version() const override {
    return py_version(as_base(), typeid(Base)).value_or(Base::version());
  }

  // A Python override of the state_dict steps (the lazy modules' keeps uninitialized parameters
  // as they are); its super() call comes back here and runs the layer's own step.
  void _save_to_state_dict(nn::StateDict& destination, const std::string& prefix,
                           bool keep_vars) override {
    if (!in_override_) {
      py::gil_scoped_acquire gil;
      if (py::function f = py::get_override(static_cast<const Base*>(this), "_save_to_state_dict")) {
        Reentry r(in_override_);
        return call_save_override(f, destination, prefix, keep_vars);
      }
    }
    Base::_save_to_state_dict(destination, prefix, keep_vars);
  }

  void _load_from_state_dict(nn::StateDict& state_dict, const std::string& prefix,
                             nn::LocalMetadata& local_metadata, bool strict,
                             std::vector<std::string>& missing_keys,
                             std::vector<std::string>& unexpected_keys,
                             std::vector<std::string>& error_msgs) override {
    if (!in_override_) {
      py::gil_scoped_acquire gil;
      if (py::function f = py::get_override(static_cast<const Base*>(this), "_load_from_state_dict")) {
        Reentry r(in_override_);
        return call_load_override(f, state_dict, prefix, local_metadata, strict, missing_keys,
                                  unexpected_keys, error_msgs);
      }
    }
    Base::_load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                unexpected_keys, error_msgs);
  }

 private:
  const Base* as_base() const { return static_cast<const Base*>(this); }
  struct Reentry {
    bool& flag;
    explicit Reentry(bool& f) : flag(f) { flag = true; }
    ~Reentry() { flag = false; }
  };
  bool in_override_ = false;

  // Note [Cloning modules]: deep copies copy the trampoline too (registered with the class).
  static inline const bool cloneable_ = (nn::register_cloneable<PyLayer<Base>, Base>(), true);
};

/// Whether the instance being initialised is of a Python subclass (it then gets the trampoline).
inline bool is_subclass_instance(py::detail::value_and_holder& v_h) {
  return Py_TYPE(reinterpret_cast<PyObject*>(v_h.inst)) != v_h.type->type;
}

/// The Python class name of the instance being initialised (for classes whose C++ constructor
/// takes the name that repr shows).
inline std::string instance_class_name(py::detail::value_and_holder& v_h) {
  return py::cast<std::string>(
      py::handle(reinterpret_cast<PyObject*>(Py_TYPE(reinterpret_cast<PyObject*>(v_h.inst))))
          .attr("__name__"));
}

/// __init__'s body: a T, or PyLayer<T> for a Python subclass (pybind11 makes the holder after a
/// new-style constructor returns).
template <class T, class... Args>
void construct_layer(py::detail::value_and_holder& v_h, Args&&... args) {
  if (is_subclass_instance(v_h)) {
    auto* layer = new PyLayer<T>(std::forward<Args>(args)...);
    layer->set_type_name(instance_class_name(v_h));  // repr says "MyLinear(...)", as PyTorch
    v_h.value_ptr() = layer;
  } else {
    v_h.value_ptr() = new T(std::forward<Args>(args)...);
  }
}

/// `forward` bound as the class's own boxed forward (Note [Trampolines for C++ layers]).
template <class T, class Cls>
void bind_own_forward(Cls& cls) {
  cls.def("forward", [](T& self, py::args args) {
    std::vector<Value> in;
    for (auto a : args) in.push_back(py_to_value(a, "forward argument"));
    return value_to_py(self.T::forward(in));
  });
  cls.def("extra_repr", [](const T& self) { return self.T::extra_repr(); });
}

/// An int or a tuple / list of ints (PyTorch's _size_2_t).
inline nn::IntOrTuple int_or_tuple(py::handle o) {
  if (PyLong_Check(o.ptr()) && !PyBool_Check(o.ptr())) return nn::IntOrTuple(o.cast<int64_t>());
  return nn::IntOrTuple(o.cast<std::vector<int64_t>>());
}

inline py::object int_or_tuple_to_py(const nn::IntOrTuple& v) {
  if (v.is_int()) return py::int_(v.values()[0]);
  return py::tuple(py::cast(v.values()));
}

inline py::tuple to_tuple(const std::vector<int64_t>& v) { return py::tuple(py::cast(v)); }

// An IntOrTuple attribute (pooling sizes are kept as given: an int stays an int).
template <class T, class Cls>
void size_attr(Cls& cls, const char* name, nn::IntOrTuple T::*field) {
  cls.def_property(
      name, [field](const T& self) { return int_or_tuple_to_py(self.*field); },
      [field](T& self, py::handle v) { self.*field = int_or_tuple(v); });
}

inline nn::AdaptiveOutputSize adaptive_size(py::handle o) {
  if (PyLong_Check(o.ptr()) && !PyBool_Check(o.ptr())) return nn::AdaptiveOutputSize(o.cast<int64_t>());
  return nn::AdaptiveOutputSize(o.cast<std::vector<std::optional<int64_t>>>());
}

inline py::object adaptive_size_to_py(const nn::AdaptiveOutputSize& s) {
  const std::string r = s.repr();
  if (r.empty() || r[0] != '(') return py::int_(*s.values()[0]);
  return py::tuple(py::cast(s.values()));
}

template <class T, class Cls>
void adaptive_attr(Cls& cls) {
  cls.def_property(
      "output_size", [](const T& self) { return adaptive_size_to_py(self.output_size); },
      [](T& self, py::handle v) { self.output_size = adaptive_size(v); });
}

inline std::optional<nn::IntOrTuple> opt_size(py::handle o) {
  if (o.is_none()) return std::nullopt;
  return int_or_tuple(o);
}

/// A Python object that C++ may hold: its last reference is dropped under the GIL (a model keeps
/// its norm_layer / block factories, and C++ may free the model without holding the GIL).
inline std::shared_ptr<py::object> hold_py(py::object o) {
  return std::shared_ptr<py::object>(new py::object(std::move(o)), [](py::object* p) {
    if (Py_IsInitialized()) {
      py::gil_scoped_acquire gil;
      delete p;
    } else {
      p->release();
      delete p;
    }
  });
}

/// Creates the classes of nn_cnn_layers.cpp in _C._nn, the functions of nn_cnn_functional.cpp,
/// and _C._vision (vision_models.cpp).
void init_nn_cnn(py::module_& m);
void init_nn_cnn_functional(py::module_& nn);
void init_vision_models(py::module_& vision);
/// The layers and functions of issue 16 (nn_nnlayers.cpp, nn_nnlayers_functional.cpp).
void init_nn_nnlayers(py::module_& nn);
void init_nn_nnlayers_functional(py::module_& nn);

}  // namespace ember::python
