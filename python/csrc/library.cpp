// ember._C's side of ember.library: Library blocks (ember::Library) with Python callables as
// kernels, the run-time ops for ember.ops, and the dispatcher queries torch.library makes
// (_dispatch_dump, _dispatch_has_kernel_for_dispatch_key). Note [Run-time operators] in
// src/dispatch/library.cpp.
#include <memory>

#include "common.h"
#include "dispatch/runtime_ops.h"
#include "ember/library.h"
#include "torch_function.h"

namespace ember::python {

namespace {

// A Python kernel; dropped with the GIL held (kernels are copied by the dispatcher without it).
struct PyCallable {
  explicit PyCallable(py::object f) : fn(std::move(f)) {}
  ~PyCallable() {
    if (!Py_IsInitialized()) {
      fn.release();
      return;
    }
    py::gil_scoped_acquire gil;
    fn = py::object();
  }
  py::object fn;
};

// A Python callable as a boxed kernel: it gets the arguments as __torch_dispatch__ handlers do
// (PyTorch's PythonKernelHolder uses the same conversion).
CppFunction python_kernel(py::object fn) {
  auto holder = std::make_shared<PyCallable>(std::move(fn));
  return CppFunction::makeFromBoxedFunction([holder](const OpHandle& op, const Stack& args) {
    py::gil_scoped_acquire gil;
    auto [pargs, pkwargs] = stack_to_py(op, args);
    py::object r = holder->fn(*pargs, **pkwargs);
    return result_to_stack(r, op);
  });
}

Library::Kind kind_from_name(const std::string& kind) {
  if (kind == "DEF") return Library::DEF;
  if (kind == "IMPL") return Library::IMPL;
  if (kind == "FRAGMENT") return Library::FRAGMENT;
  EMBER_FAIL_KIND(ErrorKind::Value, "Unsupported kind: ", kind);
}

// Python's handle on a Library (torch._C._DispatchModule); reset() removes its registrations.
struct PyLibrary {
  std::unique_ptr<Library> lib;
  Library& get() {
    EMBER_CHECK(lib, "this Library was destroyed (its registrations are gone)");
    return *lib;
  }
};

// ember._C._AutoDispatchBelowAutograd: a context manager.
struct PyBelowAutograd {
  std::unique_ptr<AutoDispatchBelowAutograd> guard;
};

}  // namespace

void init_library(py::module_& m) {
  py::class_<PyLibrary>(m, "_DispatchModule")
      .def("define",
           [](PyLibrary& self, const std::string& schema, const std::string& /*alias_analysis*/) {
             self.get().def(schema);
             return self.get().last_defined();
           },
           py::arg("schema"), py::arg("alias_analysis") = "")
      .def("impl",
           [](PyLibrary& self, const std::string& name, const std::string& key, py::object fn) {
             self.get().impl(name, library_key_from_name(key), python_kernel(std::move(fn)));
           })
      .def("impl_fallthrough",
           [](PyLibrary& self, const std::string& name, const std::string& key) {
             self.get().impl(name, library_key_from_name(key), CppFunction::makeFallthrough());
           })
      .def("fallback_fallthrough",
           [](PyLibrary& self) { self.get().fallback(CppFunction::makeFallthrough()); })
      .def("reset", [](PyLibrary& self) { self.lib.reset(); });

  m.def("_dispatch_library",
        [](const std::string& kind, const std::string& ns, const std::string& key,
           const std::string& file, uint32_t line) {
          std::optional<LibraryKey> k;
          if (!key.empty()) k = library_key_from_name(key);
          auto lib = std::make_unique<Library>(kind_from_name(kind), ns, k, file.c_str(), line);
          return PyLibrary{std::move(lib)};
        });
  m.def("_dispatch_dump", [](const std::string& name) { return dispatch::dump_runtime_op(name); });
  m.def("_dispatch_has_kernel_for_dispatch_key", [](const std::string& name, const std::string& key) {
    return dispatch::runtime_has_kernel(name, library_key_from_name(key));
  });
  m.def("_dispatch_key_for_device", [](const std::string& device_type) -> std::string {
    if (device_type == "cpu") return "CPU";
    if (device_type == "meta") return "Meta";
    if (device_type == "cuda") return "CUDA";  // kept, never used: ember has no CUDA tensors
    EMBER_FAIL_KIND(ErrorKind::Value, "Unsupported device type '", device_type,
                    "': ember has the device types 'cpu' and 'meta' (and takes kernels for 'cuda')");
  });
  // The run-time ops of namespace `ns` (all when ""): (name, overload, schema).
  m.def("_runtime_ops", [](const std::string& ns) {
    py::list out;
    for (const OpHandle* op : dispatch::runtime_ops_in(ns))
      out.append(py::make_tuple(op->name(), op->overload(), op->schema()));
    return out;
  });
  m.def("_set_bump_mutated_versions", [](const std::string& name, const std::string& overload,
                                         bool on) {
    dispatch::set_bump_mutated_versions(find_op(name, overload), on);
  });
  py::class_<PyBelowAutograd>(m, "_AutoDispatchBelowAutograd")
      .def(py::init<>())
      .def("__enter__", [](PyBelowAutograd& self) {
        self.guard = std::make_unique<AutoDispatchBelowAutograd>();
      })
      .def("__exit__", [](PyBelowAutograd& self, py::args) { self.guard.reset(); });
}

}  // namespace ember::python
