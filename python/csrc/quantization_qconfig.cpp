// The qconfig slot of nn::Module as Python's `module.qconfig` (Note [The qconfig slot]), and
// QConfigs crossing between Python and C++: a Python QConfig (any object with `activation` and
// `weight` callables) becomes a C++ QConfig whose factories call them under the GIL and whose
// front_end_object keeps the object (identity kept); a C++-made QConfig reaches Python as the
// Python QConfig namedtuple of two `_C._quantization.ModuleFactory` callables, made once per
// QConfig. _C._quantization also holds the observers and fake-quantize classes (their files).
#include <unordered_map>

#include "nn.h"
#include "quantization.h"
#include "quantization_args.h"

namespace ember::python {

namespace {

namespace q = ember::quantization;

// A Python reference that may be dropped without the GIL held (C++ owners of QConfigs).
std::shared_ptr<PyObject> shared_py(py::handle obj) {
  return std::shared_ptr<PyObject>(obj.inc_ref().ptr(), [](PyObject* o) {
    if (!Py_IsInitialized()) return;
    py::gil_scoped_acquire gil;
    Py_DECREF(o);
  });
}

q::ModuleFactory py_factory(std::shared_ptr<PyObject> owner, const char* attr) {
  return [owner, attr]() -> std::shared_ptr<nn::Module> {
    py::gil_scoped_acquire gil;
    py::object made = py::handle(owner.get()).attr(attr)();
    EMBER_CHECK_TYPE(py::isinstance<nn::Module>(made), "qconfig.", attr,
                     "() must make an ember.nn.Module (an observer or fake quantize), got ",
                     Py_TYPE(made.ptr())->tp_name);
    return module_from_py(made);
  };
}

// The Python objects of C++-made QConfigs, so that reading one twice gives the same object.
struct FrontEndCache {
  std::unordered_map<const q::QConfig*, std::pair<std::weak_ptr<const q::QConfig>, py::object>> map;
};
FrontEndCache& cache() {
  static auto* c = new FrontEndCache();  // leaked: outlives the interpreter's objects
  return *c;
}

py::object factory_to_py(const q::ModuleFactory& f) {
  if (!f) return py::none();
  return py::cast(ModuleFactoryHandle{f});
}

}  // namespace

q::QConfigPtr qconfig_from_py(py::handle obj) {
  if (obj.is_none()) return nullptr;
  auto owner = shared_py(obj);
  auto out = std::make_shared<q::QConfig>();
  out->activation = py_factory(owner, "activation");
  out->weight = py_factory(owner, "weight");
  out->front_end_object = owner;
  return out;
}

py::object qconfig_to_py(const q::QConfigPtr& qconfig) {
  if (!qconfig) return py::none();
  if (qconfig->front_end_object) {
    return py::reinterpret_borrow<py::object>(static_cast<PyObject*>(qconfig->front_end_object.get()));
  }
  auto& map = cache().map;
  for (auto it = map.begin(); it != map.end();) {
    it = it->second.first.expired() ? map.erase(it) : std::next(it);
  }
  auto found = map.find(qconfig.get());
  if (found != map.end()) return found->second.second;
  py::object cls = py::module_::import("ember.ao.quantization.qconfig").attr("QConfig");
  py::object made = cls(py::arg("activation") = factory_to_py(qconfig->activation),
                        py::arg("weight") = factory_to_py(qconfig->weight));
  map.emplace(qconfig.get(), std::make_pair(std::weak_ptr<const q::QConfig>(qconfig), made));
  return made;
}

void init_quantization_qconfig(py::module_& qm, py::handle module_class) {
  py::class_<ModuleFactoryHandle>(qm, "ModuleFactory")
      .def("__call__", [](const ModuleFactoryHandle& f) { return module_to_py(f.fn()); })
      .def("__repr__", [](const ModuleFactoryHandle&) {
        return std::string("<ember C++ module factory>");
      });

  auto getter = py::cpp_function([](py::handle self) -> py::object {
    auto& m = self.cast<nn::Module&>();
    if (!m.has_qconfig()) {
      throw py::attribute_error(
          "'" + py::cast<std::string>(py::type::handle_of(self).attr("__name__")) +
          "' object has no attribute 'qconfig'");
    }
    return qconfig_to_py(m.qconfig());
  });
  auto setter = py::cpp_function([](py::handle self, py::handle value) {
    self.cast<nn::Module&>().set_qconfig(qconfig_from_py(value));
  });
  auto deleter = py::cpp_function([](py::handle self) {
    auto& m = self.cast<nn::Module&>();
    if (!m.has_qconfig()) throw py::attribute_error("qconfig");
    m.clear_qconfig();
  });
  py::object property = py::module_::import("builtins").attr("property");
  py::setattr(module_class, "qconfig", property(getter, setter, deleter));

  // The C++ predefined qconfigs (C++ callers' defaults), for tests and C++ interop.
  qm.def("_cpp_get_default_qconfig", [](const std::string& backend, int64_t version) {
    return qconfig_to_py(q::get_default_qconfig(backend, version));
  }, py::arg("backend") = "x86", py::arg("version") = 0);
  qm.def("_cpp_get_default_qat_qconfig", [](const std::string& backend, int64_t version) {
    return qconfig_to_py(q::get_default_qat_qconfig(backend, version));
  }, py::arg("backend") = "x86", py::arg("version") = 1);
  qm.def("_observed_qparams", [](py::handle m) {
    // What C++ from_float / convert read from an observer (observed_qparams), seen from Python.
    auto p = q::observed_qparams(*module_from_py(m));
    return py::make_tuple(p.scale, p.zero_point, p.dtype, qscheme_to_py(p.qscheme), p.ch_axis);
  });
  qm.def("_module_qconfig_is_cpp", [](nn::Module& m) {
    return m.qconfig() != nullptr && !m.qconfig()->front_end_object;
  });
}

namespace {

// observed_qparams for a Python module that is no C++ observer: torch's duck typing
// (calculate_qparams, dtype, qscheme, and ch_axis when per channel).
bool py_observed_qparams(nn::Module& m, q::ObservedQParams& out) {
  py::gil_scoped_acquire gil;
  py::object obj = module_to_py(m.shared_from_this());
  if (!py::hasattr(obj, "calculate_qparams")) return false;
  py::tuple r = obj.attr("calculate_qparams")().cast<py::tuple>();
  out.scale = r[0].cast<Tensor>();
  out.zero_point = r[1].cast<Tensor>();
  out.dtype = obj.attr("dtype").cast<ScalarType>();
  out.qscheme = to_qscheme(obj.attr("qscheme"));
  out.ch_axis = py::getattr(obj, "ch_axis", py::int_(-1)).cast<int64_t>();
  return true;
}

}  // namespace

void init_quantization(py::module_& m) {
  py::module_ qm = m.def_submodule("_quantization", "ember::quantization");
  // torch's `assert`s raise AssertionError (registered after the generic ember::Error
  // translator, so tried first).
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const q::AssertionError& e) {
      PyErr_SetString(PyExc_AssertionError, e.what());
    }
  });
  init_quantization_qconfig(qm, m.attr("_nn").attr("Module"));
  init_quantization_observers(qm);
  init_quantization_fake_quantize(qm);
  q::set_front_end_qparams(&py_observed_qparams);
}

}  // namespace ember::python
