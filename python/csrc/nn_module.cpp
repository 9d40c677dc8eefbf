// ember.nn.Module: the C++ nn::Module itself, bound with a trampoline so that Python subclasses
// override forward, extra_repr, _save_to_state_dict and _load_from_state_dict. Registration,
// traversal, state_dict, loading, conversion and repr all run in C++ (nn/module.h); this file
// only moves values across. ember/nn/modules/module.py adds what PyTorch writes in Python (the
// hook algorithm of __call__, registration checks, the _parameters/_buffers/_modules views,
// _IncompatibleKeys); nn_module_hooks.cpp has __call__ and the GC support.
//
// Note [Python modules under C++ parents]
// A Python subclass instance keeps its forward and its attributes in its Python object, which
// owns the C++ module (pybind11's shared_ptr holder). When only a C++ parent still holds the
// child, that object must stay alive, or the parent would call a forward-less C++ shell. So every
// module that crosses from Python into C++ (module_from_py) crosses as a shared_ptr whose control
// block owns a reference to the Python object (its deleter only drops that reference), aliasing
// the C++ module. The ownership is a tree, never a cycle: parent object -> parent C++ module ->
// child object -> child C++ module. Dropping the parent's last Python reference frees the parent
// module, whose child list releases the child object, which frees the child module.
#include <pybind11/functional.h>

#include "nn.h"
#include "autograd/autograd_meta.h"

#include "ember/nn/module.h"
#include "ember/nn/module_clone.h"
#include "ember/tensor_options.h"

namespace ember::python {

py::object ordered_dict() { return py::module_::import("collections").attr("OrderedDict")(); }

py::object state_dict_to_py(const nn::StateDict& sd) {
  py::object out = ordered_dict();
  for (const auto& [k, v] : sd.items()) out[py::str(k)] = value_to_py(v);
  if (sd.metadata) {
    py::object md = ordered_dict();
    for (const auto& [prefix, local] : *sd.metadata) {
      py::dict d;
      for (const auto& [k, v] : local) d[py::str(k)] = value_to_py(v);
      md[py::str(prefix)] = d;
    }
    out.attr("_metadata") = md;
  }
  return out;
}

nn::LocalMetadata metadata_from_py(py::handle d) {
  nn::LocalMetadata out;
  for (auto item : py::reinterpret_borrow<py::dict>(d)) {
    Value v;
    if (!try_py_to_value(item.second, v)) v = opaque_py_value(item.second);
    out[py::str(item.first)] = std::move(v);
  }
  return out;
}

nn::StateDict state_dict_from_py(py::handle obj) {
  nn::StateDict sd;
  py::object items = obj.attr("items")();
  for (auto item : items) {
    auto kv = py::reinterpret_borrow<py::tuple>(item);
    Value v;
    const auto key = py::cast<std::string>(kv[0]);
    // Anything else (a module's extra state, a hook's entry) travels as the object itself;
    // load_state_dict reports a value it cannot use by its type (value_types), as PyTorch does.
    if (!try_py_to_value(kv[1], v)) v = opaque_py_value(kv[1]);
    if (!is_tensor(kv[1].ptr())) sd.value_types[key] = py::repr(py::type::handle_of(kv[1]));
    sd.insert(key, std::move(v));
  }
  py::object md = py::getattr(obj, "_metadata", py::none());
  if (!md.is_none()) {
    std::vector<std::pair<std::string, nn::LocalMetadata>> all;
    for (auto item : md.attr("items")()) {
      auto kv = py::reinterpret_borrow<py::tuple>(item);
      all.emplace_back(py::cast<std::string>(kv[0]), metadata_from_py(kv[1]));
    }
    sd.metadata = std::move(all);
  }
  return sd;
}

namespace {

py::list str_list(const std::vector<std::string>& v) {
  py::list l;
  for (const auto& s : v) l.append(py::str(s));
  return l;
}
std::vector<std::string> str_vector(py::handle l) { return py::cast<std::vector<std::string>>(l); }

}  // namespace

// Note [Python overrides of the state_dict steps]: a Python subclass's _save_to_state_dict /
// _load_from_state_dict run with the state as Python objects (an OrderedDict, lists), and what
// they leave there is the result. PyModule and PyLayer (nn_cnn.h) both call through these.
void call_save_override(const py::function& f, nn::StateDict& destination, const std::string& prefix,
                        bool keep_vars) {
  py::object d = ordered_dict();
  f(d, prefix, keep_vars);
  for (auto item : d.attr("items")()) {
    auto kv = py::reinterpret_borrow<py::tuple>(item);
    destination.insert(py::cast<std::string>(kv[0]), py_to_value(kv[1], "state_dict value"));
  }
}

void call_load_override(const py::function& f, nn::StateDict& state_dict, const std::string& prefix,
                        nn::LocalMetadata& local_metadata, bool strict,
                        std::vector<std::string>& missing_keys,
                        std::vector<std::string>& unexpected_keys,
                        std::vector<std::string>& error_msgs) {
  py::object sd = state_dict_to_py(state_dict);
  py::dict md;
  for (const auto& [k, v] : local_metadata) md[py::str(k)] = value_to_py(v);
  py::list missing = str_list(missing_keys), unexpected = str_list(unexpected_keys),
           errors = str_list(error_msgs);
  f(sd, prefix, md, strict, missing, unexpected, errors);
  // The override may have edited any of them (renamed keys, added messages).
  auto metadata = std::move(state_dict.metadata);
  state_dict = state_dict_from_py(sd);
  state_dict.metadata = std::move(metadata);
  missing_keys = str_vector(missing);
  unexpected_keys = str_vector(unexpected);
  error_msgs = str_vector(errors);
}

namespace {

// The trampoline of Python subclasses (PYBIND11_OVERRIDE_* find a Python override, if any).
class PyModule : public nn::Module {
 public:
  using nn::Module::Module;

  Value forward(const std::vector<Value>& inputs) override {
    py::gil_scoped_acquire gil;
    py::function f = py::get_override(static_cast<const nn::Module*>(this), "forward");
    if (!f) return nn::Module::forward(inputs);
    py::tuple args(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) args[i] = value_to_py(inputs[i]);
    return py_to_value(f(*args), "forward result");
  }

  std::string extra_repr() const override {
    PYBIND11_OVERRIDE(std::string, nn::Module, extra_repr, );
  }

  // Note [Python extra state and versions] (nn_module_state_hooks.cpp).
  bool has_extra_state() const override { return py_has_extra_state(this, typeid(nn::Module)); }
  Value get_extra_state() const override { return py_get_extra_state(this, typeid(nn::Module)); }
  void set_extra_state(const Value& state) override {
    py_set_extra_state(this, typeid(nn::Module), state);
  }
  int64_t version() const override {
    return py_version(this, typeid(nn::Module)).value_or(nn::Module::version());
  }

  void _save_to_state_dict(nn::StateDict& destination, const std::string& prefix,
                           bool keep_vars) override {
    py::gil_scoped_acquire gil;
    py::function f = py::get_override(static_cast<const nn::Module*>(this), "_save_to_state_dict");
    if (!f) return nn::Module::_save_to_state_dict(destination, prefix, keep_vars);
    call_save_override(f, destination, prefix, keep_vars);
  }

  void _load_from_state_dict(nn::StateDict& state_dict, const std::string& prefix,
                             nn::LocalMetadata& local_metadata, bool strict,
                             std::vector<std::string>& missing_keys,
                             std::vector<std::string>& unexpected_keys,
                             std::vector<std::string>& error_msgs) override {
    py::gil_scoped_acquire gil;
    py::function f = py::get_override(static_cast<const nn::Module*>(this), "_load_from_state_dict");
    if (!f) {
      return nn::Module::_load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                               missing_keys, unexpected_keys, error_msgs);
    }
    call_load_override(f, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                       error_msgs);
  }
};

// Access to the parameter and buffer slots of any module (protected in nn::Module; reached
// through pointers to members named via this class, which is what C++ access rules allow).
struct SlotAccess : nn::Module {
  using Slots = std::deque<Slot>;
  static Slots& params(nn::Module& m) { return (m.*(&SlotAccess::parameter_slots))(); }
  static Slots& buffers(nn::Module& m) { return (m.*(&SlotAccess::buffer_slots))(); }
  static const auto& children(const nn::Module& m) { return (m.*(&SlotAccess::child_slots))(); }
  static bool erase(Slots& slots, const std::string& name) {
    for (auto it = slots.begin(); it != slots.end(); ++it) {
      if (it->name == name) {
        slots.erase(it);
        return true;
      }
    }
    return false;
  }
};

bool has_child(nn::Module& m, const std::string& name) {
  for (const auto& [n, c] : SlotAccess::children(m)) {
    if (n == name) return true;
  }
  return false;
}

// torch.typename(o), with ember's tensor type names ("ember.FloatTensor", "int", "__main__.Foo").
std::string type_name_of(py::handle o) {
  if (is_tensor(o.ptr())) return py::cast<std::string>(o.attr("type")());
  std::string module;
  py::object mod = py::getattr(o, "__module__", py::none());
  if (!mod.is_none() && py::isinstance<py::str>(mod)) {
    const auto m = py::cast<std::string>(mod);
    if (m != "builtins" && m != "__builtin__") module = m + ".";
  }
  for (const char* attr : {"__qualname__", "__name__"}) {
    py::object n = py::getattr(o, attr, py::none());
    if (!n.is_none()) return module + py::cast<std::string>(py::str(n));
  }
  return module + py::cast<std::string>(py::type::handle_of(o).attr("__name__"));
}

std::string class_name(py::handle self) {
  return py::cast<std::string>(py::type::handle_of(self).attr("__name__"));
}

// Removes `name` from every kind of member and from the instance dict (PyTorch's remove_from).
void remove_member(py::handle self, nn::Module& m, const std::string& name) {
  SlotAccess::erase(SlotAccess::params(m), name);
  SlotAccess::erase(SlotAccess::buffers(m), name);
  if (has_child(m, name)) m.unregister_module(name);
  if (!m.tensor_attribute_is_computed(name)) m.remove_tensor_attribute(name);
  py::object d = py::getattr(self, "__dict__", py::none());
  if (!d.is_none() && d.contains(py::str(name))) d.attr("pop")(py::str(name));
}

void set_parameter(nn::Module& m, const std::string& name, py::handle value) {
  Tensor t = value.is_none() ? Tensor() : unpack(value.ptr());
  if (m.has_parameter(name)) {
    if (t.defined()) {
      // register_parameter's checks for the new value, on a scratch module.
      nn::Module scratch;
      scratch.register_parameter(name, t, t.requires_grad());
    }
    m.parameter(name) = t;
  } else {
    m.register_parameter(name, t, t.defined() ? t.requires_grad() : true);
  }
}

void set_child(nn::Module& m, const std::string& name, py::handle value) {
  auto child = module_from_py(value);
  if (has_child(m, name)) {
    m.replace_module(name, child);
  } else {
    m.register_module(name, child);
  }
}

bool initialized(py::handle self) {
  auto* inst = reinterpret_cast<py::detail::instance*>(self.ptr());
  return inst->get_value_and_holder().holder_constructed();
}

py::object py_setattr(py::handle self, const std::string& name, py::handle value) {
  const bool value_is_tensor = is_tensor(value.ptr());
  const bool value_is_param = value_is_tensor && unpack(value.ptr()).is_parameter();
  if (!initialized(self)) {
    // Before Module.__init__ ran there is no C++ module: plain attributes only, as in PyTorch.
    EMBER_CHECK_KIND(ErrorKind::Attribute, !value_is_param,
                     "cannot assign parameters before Module.__init__() call");
    EMBER_CHECK_KIND(ErrorKind::Attribute, !py::isinstance<nn::Module>(value),
                     "cannot assign module before Module.__init__() call");
    if (PyObject_GenericSetAttr(self.ptr(), py::str(name).ptr(), value.ptr()) < 0) {
      throw py::error_already_set();
    }
    return py::none();
  }
  auto& m = self.cast<nn::Module&>();
  // (the value's type name only for the messages: Tensor.type() is a torch function call)
  if (value_is_param) {
    // An existing parameter keeps its place in the order (PyTorch assigns into _parameters).
    if (!m.has_parameter(name)) remove_member(self, m, name);
    set_parameter(m, name, value);
  } else if (m.has_parameter(name)) {
    EMBER_CHECK_TYPE(value.is_none(), "cannot assign '", type_name_of(value), "' as parameter '", name,
                     "' (ember.nn.Parameter or None expected)");
    set_parameter(m, name, value);
  } else if (py::isinstance<nn::Module>(value)) {
    remove_member(self, m, name);
    set_child(m, name, value);
  } else if (has_child(m, name)) {
    EMBER_CHECK_TYPE(value.is_none(), "cannot assign '", type_name_of(value), "' as child module '", name,
                     "' (ember.nn.Module or None expected)");
    set_child(m, name, value);
  } else if (m.has_buffer(name)) {
    EMBER_CHECK_TYPE(value.is_none() || value_is_tensor, "cannot assign '", type_name_of(value),
                     "' as buffer '", name, "' (ember.Tensor or None expected)");
    m.buffer(name) = value.is_none() ? Tensor() : unpack(value.ptr());
  } else if (value_is_tensor && m.has_tensor_attribute(name) &&
             !m.tensor_attribute_is_computed(name)) {
    // A plain tensor attribute the C++ layer reads (Note [Tensor attributes]): weight_norm's
    // `module.weight = w`.
    m.set_tensor_attribute(name, unpack(value.ptr()));
  } else {
    if (!m.tensor_attribute_is_computed(name)) m.remove_tensor_attribute(name);
    if (PyObject_GenericSetAttr(self.ptr(), py::str(name).ptr(), value.ptr()) < 0) {
      throw py::error_already_set();
    }
  }
  return py::none();
}

py::object py_getattr(py::handle self, const std::string& name) {
  // Reached only when normal lookup failed; before __init__ ran there is no C++ module yet.
  if (initialized(self)) {
    auto& m = self.cast<nn::Module&>();
    if (m.has_parameter(name)) return py::reinterpret_steal<py::object>(wrap(m.parameter(name)));
    if (m.has_buffer(name)) return py::reinterpret_steal<py::object>(wrap(m.buffer(name)));
    if (has_child(m, name)) return module_to_py(m.child(name));
    if (m.has_tensor_attribute(name)) {
      return py::reinterpret_steal<py::object>(wrap(m.tensor_attribute(name)));
    }
  }
  throw py::attribute_error("'" + class_name(self) + "' object has no attribute '" + name + "'");
}

void py_delattr(py::handle self, const std::string& name) {
  auto& m = self.cast<nn::Module&>();
  if (SlotAccess::erase(SlotAccess::params(m), name)) return;
  if (SlotAccess::erase(SlotAccess::buffers(m), name)) return;
  if (has_child(m, name)) return m.unregister_module(name);
  if (!m.tensor_attribute_is_computed(name) && m.remove_tensor_attribute(name)) return;
  if (PyObject_GenericSetAttr(self.ptr(), py::str(name).ptr(), nullptr) < 0) {
    throw py::error_already_set();
  }
}

template <class Pairs>
py::list named_tensors(const Pairs& pairs) {
  py::list out;
  for (const auto& [n, t] : pairs) {
    out.append(py::make_tuple(n, py::reinterpret_steal<py::object>(wrap(t))));
  }
  return out;
}

template <class Pairs>
py::list named_modules_list(const Pairs& pairs) {
  py::list out;
  for (const auto& [n, c] : pairs) out.append(py::make_tuple(n, module_to_py(c)));
  return out;
}

// PyTorch's Module.to(*args, **kwargs): device, dtype, a tensor, non_blocking, memory_format.
nn::Module& module_to(nn::Module& m, py::args args, py::kwargs kwargs) {
  std::optional<Device> device;
  std::optional<ScalarType> dtype;
  std::optional<Tensor> other;
  std::optional<MemoryFormat> memory_format;
  auto take = [&](py::handle a) {
    if (a.is_none()) return;
    if (is_tensor(a.ptr())) {
      other = unpack(a.ptr());
    } else if (is_dtype(a.ptr())) {
      dtype = unpack_dtype(a.ptr());
    } else if (is_device(a.ptr()) || PyUnicode_Check(a.ptr())) {
      device = parse_device(a.ptr());
    } else if (!PyBool_Check(a.ptr())) {  // non_blocking: nothing to wait for on CPU
      EMBER_FAIL_KIND(ErrorKind::Type, "to() received an invalid combination of arguments - got (",
                      Py_TYPE(a.ptr())->tp_name, ")");
    }
  };
  for (auto a : args) take(a);
  for (auto item : kwargs) {
    const auto key = py::cast<std::string>(item.first);
    EMBER_CHECK_TYPE(key == "device" || key == "dtype" || key == "non_blocking" ||
                         key == "memory_format" || key == "tensor",
                     "to() got an unexpected keyword argument '", key, "'");
    if (key != "memory_format") {
      take(item.second);
    } else if (!item.second.is_none()) {
      EMBER_CHECK_TYPE(is_memory_format(item.second.ptr()),
                       "to() received an invalid combination of arguments - got (memory_format=",
                       Py_TYPE(item.second.ptr())->tp_name, ", )");
      memory_format = memory_format_from_int(unpack_memory_format(item.second.ptr()));
    }
  }
  if (memory_format) {
    if (other) return m.to(other->device(), other->dtype(), memory_format);
    return m.to(device, dtype, memory_format);
  }
  if (other) return m.to(*other);
  if (device && dtype) return m.to(*device, *dtype);
  if (dtype) return m.to(*dtype);
  if (device) return m.to(*device);
  return m;
}

}  // namespace

Value py_to_value(py::handle obj, const char* what) {
  Value v;
  EMBER_CHECK_TYPE(try_py_to_value(obj, v), "unsupported ", what, " of type ",
                   Py_TYPE(obj.ptr())->tp_name);
  return v;
}

bool try_py_to_value(py::handle obj, Value& out) {
  PyObject* o = obj.ptr();
  if (o == Py_None) {
    out = Value();
  } else if (is_tensor(o)) {
    out = Value(unpack(o));
  } else if (is_script_object(o)) {
    out = Value(unpack_object(o));
  } else if (PyBool_Check(o)) {
    out = Value(o == Py_True);
  } else if (PyLong_Check(o)) {
    out = Value(py::cast<int64_t>(obj));
  } else if (PyFloat_Check(o)) {
    out = Value(PyFloat_AsDouble(o));
  } else if (PyUnicode_Check(o)) {
    out = Value(py::cast<std::string>(obj));
  } else if (is_dtype(o)) {
    out = Value(unpack_dtype(o));
  } else if (is_device(o)) {
    out = Value(parse_device(o));
  } else if (PyList_Check(o) || PyTuple_Check(o)) {
    auto seq = py::reinterpret_borrow<py::sequence>(obj);
    bool all_tensors = true, all_ints = true, all_numbers = true, tensors_or_none = true;
    for (auto item : seq) {
      PyObject* e = item.ptr();
      all_tensors &= is_tensor(e);
      tensors_or_none &= is_tensor(e) || e == Py_None;
      all_ints &= PyLong_Check(e) && !PyBool_Check(e);
      all_numbers &= (PyLong_Check(e) || PyFloat_Check(e)) && !PyBool_Check(e);
    }
    if (all_tensors) {
      std::vector<Tensor> ts;
      for (auto item : seq) ts.push_back(unpack(item.ptr()));
      out = Value(std::move(ts));
    } else if (tensors_or_none) {
      // (weight, None): a quantized Linear's "_packed_params" state entry.
      Value::OptionalTensorList ts;
      for (auto item : seq) {
        if (item.is_none()) ts.emplace_back(std::nullopt);
        else ts.emplace_back(unpack(item.ptr()));
      }
      out = Value(std::move(ts));
    } else if (all_ints) {
      out = Value(py::cast<std::vector<int64_t>>(obj));
    } else if (all_numbers) {
      out = Value(py::cast<std::vector<double>>(obj));
    } else {
      return false;
    }
  } else {
    return false;
  }
  return true;
}

TensorOptions tensor_options(const py::object& device, const py::object& dtype) {
  TensorOptions opts;
  if (!device.is_none()) opts = opts.device(parse_device(device.ptr()));
  if (!dtype.is_none()) opts = opts.dtype(unpack_dtype(dtype.ptr()));
  return opts;
}

std::shared_ptr<nn::Module> module_from_py(py::handle obj) {
  if (obj.is_none()) return nullptr;
  EMBER_CHECK_TYPE(py::isinstance<nn::Module>(obj), Py_TYPE(obj.ptr())->tp_name,
                   " is not a Module subclass");
  auto& m = obj.cast<nn::Module&>();
  // Note [Python modules under C++ parents]: the deleter drops the Python reference only.
  return std::shared_ptr<nn::Module>(&m, PyObjectRef{obj.inc_ref().ptr()});
}

void PyObjectRef::operator()(nn::Module*) const {
  if (!Py_IsInitialized()) return;
  py::gil_scoped_acquire gil;
  Py_DECREF(obj);
}

py::object module_to_py(const std::shared_ptr<nn::Module>& m) {
  if (!m) return py::none();
  return py::cast(m);
}

void init_nn(py::module_& parent) {
  py::module_ m = parent.def_submodule("_nn", "ember::nn");
  init_nn_module(m);
  init_nn_layers(m);
  init_nn_functional(m);
}

void init_nn_module(py::module_& m) {
  using nn::Module;
  m.def("_make_parameter", [](py::handle cls, py::handle data, bool requires_grad) {
    // Parameter.__new__: nn::Parameter (a detached leaf over data's storage, marked as a
    // parameter) as an instance of `cls`.
    EMBER_CHECK_TYPE(is_tensor(data.ptr()), "Parameter: data must be a Tensor, not ",
                     Py_TYPE(data.ptr())->tp_name);
    return py::reinterpret_steal<py::object>(wrap_as(
        reinterpret_cast<PyTypeObject*>(cls.ptr()), nn::Parameter(unpack(data.ptr()), requires_grad)));
  });
  m.def("_mark_parameter", [](py::handle t) {
    // Parameter.__new__ for tensor subclasses: the detached subclass instance itself becomes the
    // parameter (PyTorch's `_is_param`), so C++ module slots accept it.
    EMBER_CHECK_TYPE(is_tensor(t.ptr()), "Parameter: expected a Tensor, got ", Py_TYPE(t.ptr())->tp_name);
    autograd::materialize_meta(unpack(t.ptr())).is_parameter_ = true;
  });
  nn::register_cloneable<PyModule>();  // Note [Cloning modules]: deep copies copy it too
  py::class_<Module, PyModule, std::shared_ptr<Module>> cls(m, "Module", py::dynamic_attr());
  cls.def(
      "__init__",
      [](py::detail::value_and_holder& v_h, py::args args, py::kwargs kwargs) {
        EMBER_CHECK_TYPE(args.empty() && kwargs.empty(), "Module.__init__() takes 1 positional "
                         "argument but ", args.size() + 1, " were given");
        py::handle self(reinterpret_cast<PyObject*>(v_h.inst));
        std::string name = class_name(self);
        // A Python subclass gets the trampoline; `nn.Module()` itself a plain module.
        if (Py_TYPE(self.ptr()) == v_h.type->type) {
          v_h.value_ptr() = new Module(name);
        } else {
          v_h.value_ptr() = new PyModule(name);
        }
      },
      py::detail::is_new_style_constructor());
  init_nn_module_hooks(m, cls);
  init_nn_module_state_hooks(m);
  m.def("_module_initialized", [](py::handle self) { return initialized(self); });
  cls.def("__getattr__", &py_getattr);
  cls.def("__setattr__", &py_setattr);
  cls.def("__delattr__", &py_delattr);
  cls.def("__repr__", [](const Module& self) { return self.repr(); });
  cls.def("extra_repr", [](const Module& self) { return self.Module::extra_repr(); });
  cls.def("_get_name", [](py::handle self) { return class_name(self); });
  cls.def("forward", [](Module& self, py::args args) {
    std::vector<Value> in;
    for (auto a : args) in.push_back(py_to_value(a, "forward argument"));
    return value_to_py(self.forward(in));
  });

  // ---- registration (module.py checks the arguments first, with PyTorch's messages) ----
  cls.def("_cpp_register_parameter", [](Module& self, const std::string& name, py::handle param) {
    if (self.has_parameter(name)) {
      set_parameter(self, name, param);
    } else {
      self.register_parameter(name, param.is_none() ? Tensor() : unpack(param.ptr()),
                              param.is_none() || unpack(param.ptr()).requires_grad());
    }
  });
  cls.def("_cpp_store_parameter", [](Module& self, const std::string& name, py::handle value) {
    // `_parameters[name] = value`: PyTorch's dict takes the value as it is (no Parameter made,
    // no checks); ember's slots hold tensors or None.
    EMBER_CHECK_TYPE(value.is_none() || is_tensor(value.ptr()), "cannot assign '",
                     type_name_of(value), "' as parameter '", name,
                     "' (ember.nn.Parameter or None expected)");
    if (!self.has_parameter(name)) self.register_parameter(name, Tensor());
    self.parameter(name) = value.is_none() ? Tensor() : unpack(value.ptr());
  });
  cls.def("_cpp_register_buffer", [](Module& self, const std::string& name, py::handle tensor,
                                     bool persistent) {
    Tensor t = tensor.is_none() ? Tensor() : unpack(tensor.ptr());
    if (self.has_buffer(name)) {
      // PyTorch's `_buffers[name] = tensor`: the buffer keeps its place.
      self.buffer(name) = t;
      for (auto& s : SlotAccess::buffers(self)) {
        if (s.name == name) s.persistent = persistent;
      }
    } else {
      self.register_buffer(name, t, persistent);
    }
  });
  cls.def("_cpp_add_module", [](Module& self, const std::string& name, py::handle module) {
    set_child(self, name, module);
  });

  // ---- member views (the Python side builds _parameters / _buffers / _modules on these) ----
  cls.def("_slot_names", [](Module& self, int kind) {
    std::vector<std::string> names;
    if (kind == 0) for (const auto& s : SlotAccess::params(self)) names.push_back(s.name);
    if (kind == 1) for (const auto& s : SlotAccess::buffers(self)) names.push_back(s.name);
    if (kind == 2) {
      for (const auto& [n, c] : SlotAccess::children(self)) names.push_back(n);  // None ones too
    }
    return names;
  });
  cls.def("_non_persistent_buffer_names", [](Module& self) {
    std::vector<std::string> names;
    for (const auto& s : SlotAccess::buffers(self)) if (!s.persistent) names.push_back(s.name);
    return names;
  });

  // ---- traversal ----
  cls.def("named_parameters", [](const Module& self, const std::string& prefix, bool recurse,
                                 bool remove_duplicate) {
    return named_tensors(self.named_parameters(prefix, recurse, remove_duplicate));
  }, py::arg("prefix") = "", py::arg("recurse") = true, py::arg("remove_duplicate") = true);
  cls.def("named_buffers", [](const Module& self, const std::string& prefix, bool recurse,
                              bool remove_duplicate) {
    return named_tensors(self.named_buffers(prefix, recurse, remove_duplicate));
  }, py::arg("prefix") = "", py::arg("recurse") = true, py::arg("remove_duplicate") = true);
  cls.def("named_children", [](const Module& self) {
    return named_modules_list(self.named_children());
  });
  cls.def("_child_items", [](const Module& self) {
    // Every child slot in order, duplicates and None ones included (PyTorch's _modules.items()).
    py::list out;
    for (const auto& [n, c] : SlotAccess::children(self)) out.append(py::make_tuple(n, module_to_py(c)));
    return out;
  });

  // ---- modes and bulk operations ----
  cls.def("apply", [](py::handle self, py::function fn) {
    // Children first, each through its Python object (fn sees the objects users hold).
    self.cast<Module&>().apply([&](Module& mod) {
      fn(module_to_py(mod.shared_from_this()));
    });
    return py::reinterpret_borrow<py::object>(self);
  });
  cls.def("train", [](py::handle self, py::object mode) {
    EMBER_CHECK_VALUE(PyBool_Check(mode.ptr()), "training mode is expected to be boolean");
    self.cast<Module&>().train(mode.cast<bool>());
    return py::reinterpret_borrow<py::object>(self);
  }, py::arg("mode") = true);
  cls.def("eval", [](py::handle self) {
    self.cast<Module&>().eval();
    return py::reinterpret_borrow<py::object>(self);
  });
  cls.def_property("training", &Module::is_training, [](Module& self, bool mode) {
    // Only this module, as assigning the attribute in PyTorch does: train() recurses, so the
    // descendants' modes are put back.
    std::vector<std::pair<std::shared_ptr<Module>, bool>> modes;
    for (const auto& [n, c] : self.named_modules("", false)) {
      if (!n.empty()) modes.emplace_back(c, c->is_training());
    }
    self.train(mode);
    for (auto& [c, t] : modes) c->train(t);
  });
  cls.def("zero_grad", &Module::zero_grad, py::arg("set_to_none") = true);
  cls.def("requires_grad_", [](py::handle self, bool requires_grad) {
    self.cast<Module&>().requires_grad_(requires_grad);
    return py::reinterpret_borrow<py::object>(self);
  }, py::arg("requires_grad") = true);

  // ---- state_dict ----
  cls.def("_state_dict_impl", [](Module& self, const std::string& prefix, bool keep_vars) {
    StateDictRoot root(&self);
    return state_dict_to_py(self.state_dict(prefix, keep_vars));
  });
  cls.def("_load_state_dict_impl", [](Module& self, py::handle sd, bool strict, bool assign) {
    auto keys = self.load_state_dict(state_dict_from_py(sd), strict, assign);
    return py::make_tuple(str_list(keys.missing_keys), str_list(keys.unexpected_keys));
  });
  cls.def("_save_to_state_dict", [](Module& self, py::handle destination,
                                    const std::string& prefix, bool keep_vars) {
    nn::StateDict dest;
    if (dynamic_cast<PyModule*>(&self)) {
      self.Module::_save_to_state_dict(dest, prefix, keep_vars);  // super() of an override
    } else {
      self._save_to_state_dict(dest, prefix, keep_vars);
    }
    for (const auto& [k, v] : dest.items()) destination[py::str(k)] = value_to_py(v);
  });
  cls.def("_load_from_state_dict", [](Module& self, py::handle state_dict,
                                      const std::string& prefix, py::handle local_metadata,
                                      bool strict, py::list missing, py::list unexpected,
                                      py::list errors) {
    nn::StateDict sd = state_dict_from_py(state_dict);
    nn::LocalMetadata md = metadata_from_py(local_metadata);
    auto mk = str_vector(missing), uk = str_vector(unexpected), em = str_vector(errors);
    if (dynamic_cast<PyModule*>(&self)) {
      self.Module::_load_from_state_dict(sd, prefix, md, strict, mk, uk, em);
    } else {
      self._load_from_state_dict(sd, prefix, md, strict, mk, uk, em);
    }
    missing[py::slice(0, static_cast<Py_ssize_t>(py::len(missing)), 1)] = str_list(mk);
    unexpected[py::slice(0, static_cast<Py_ssize_t>(py::len(unexpected)), 1)] = str_list(uk);
    errors[py::slice(0, static_cast<Py_ssize_t>(py::len(errors)), 1)] = str_list(em);
  });

  // ---- conversion ----
  auto self_returning = [&cls](const char* name, Module& (Module::*fn)()) {
    cls.def(name, [fn](py::handle self) {
      (self.cast<Module&>().*fn)();
      return py::reinterpret_borrow<py::object>(self);
    });
  };
  self_returning("cpu", &Module::cpu);
  self_returning("float", &Module::float_);
  self_returning("double", &Module::double_);
  self_returning("half", &Module::half);
  self_returning("bfloat16", &Module::bfloat16);
  cls.def("to", [](py::handle self, py::args args, py::kwargs kwargs) {
    module_to(self.cast<Module&>(), args, kwargs);
    return py::reinterpret_borrow<py::object>(self);
  });
  cls.def("_apply", [](py::handle self, py::function fn, bool recurse) {
    self.cast<Module&>()._apply([&fn](const Tensor& t) {
      py::object r = fn(py::reinterpret_steal<py::object>(wrap(t)));
      EMBER_CHECK_TYPE(is_tensor(r.ptr()), "_apply: fn must return a Tensor, got ",
                       Py_TYPE(r.ptr())->tp_name);
      return unpack(r.ptr());
    }, recurse);
    return py::reinterpret_borrow<py::object>(self);
  }, py::arg("fn"), py::arg("recurse") = true);
  cls.def("to_empty", [](py::handle self, py::object device, bool recurse) {
    self.cast<Module&>().to_empty(parse_device(device.ptr()), recurse);
    return py::reinterpret_borrow<py::object>(self);
  }, py::kw_only(), py::arg("device"), py::arg("recurse") = true);
}

}  // namespace ember::python
