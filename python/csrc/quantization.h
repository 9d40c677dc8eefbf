// What the ember.ao.quantization bindings share (quantization_*.cpp): QConfigs crossing
// between Python and C++ (Note [The qconfig slot]).
#pragma once

#include <utility>

#include "common.h"
#include "ember/quantization/qconfig.h"

namespace ember::python {

/// A C++ ModuleFactory as a Python callable (_C._quantization.ModuleFactory).
struct ModuleFactoryHandle {
  quantization::ModuleFactory fn;
};

/// A Python QConfig (or any object with `activation` / `weight` callables) as a C++ QConfig
/// keeping the object; None → null.
quantization::QConfigPtr qconfig_from_py(py::handle obj);
/// The Python object of a QConfig: the one it came from, or (made in C++) a QConfig namedtuple
/// of ModuleFactory callables, the same object each time. Null → None.
py::object qconfig_to_py(const quantization::QConfigPtr& qconfig);

/// Creates _C._quantization (after _C._nn) and fills it.
void init_quantization(py::module_& m);
void init_quantization_qconfig(py::module_& qm, py::handle module_class);

}  // namespace ember::python
