// What the files of the Tensor API (tensor_api.cpp, indexing.cpp, numpy.cpp, dlpack.cpp,
// grad_mode.cpp) share: C++-written functions that honour __torch_function__, and conversion of
// Python data (numbers, nested sequences, numpy arrays) to tensors.
#pragma once

#include <functional>
#include <optional>

#include "common.h"

namespace ember::python {

/// The body of a C++-written function: the call's arguments as Python passed them.
using Body = std::function<py::object(const py::args&, const py::kwargs&)>;

/// A function that first checks its arguments for __torch_function__ overloads (as the op
/// functions do: Note [Function overrides at the Python boundary]) and hands the call to the
/// Python dispatcher with itself as `func` when one is found; otherwise runs `body`.
py::cpp_function overridable(const char* name, Body body);
/// `Tensor.<name>` as such a function (self is args[0]): `Tensor.<name>` is the function object,
/// so handlers can compare `func is ember.Tensor.<name>`.
void def_overridable_method(const char* name, Body body);

/// pin_memory=True of a factory or ember.tensor: page-locked host memory
/// exists for copies to CUDA devices, which ember does not have; torch without CUDA refuses it
/// with the same first sentence (cuda.cpp).
[[noreturn]] void refuse_pinned_memory();

/// PyTorch's legacy type name of a tensor: "ember.FloatTensor" (cpu), "ember.meta.FloatTensor"
/// (Tensor.type(), torch.typename).
std::string type_string(ScalarType dtype, Device device);

// ---- Python data -> tensors (tensor_api.cpp, numpy.cpp) ----

/// torch.tensor's conversion: a number, a (nested) sequence of numbers / one-element tensors /
/// numpy arrays, a numpy array, or a tensor. The dtype is inferred as PyTorch does unless given;
/// the result never shares memory with `data`.
Tensor tensor_from_data(py::handle data, std::optional<ScalarType> dtype, std::optional<Device> device);
/// torch.tensor's dtype inference for `data`.
ScalarType infer_scalar_type(py::handle data);

/// Whether `obj` is a numpy.ndarray / a numpy scalar (false when numpy was never imported).
bool is_numpy_array(PyObject* obj);
bool is_numpy_scalar(PyObject* obj);
/// The dtype of a numpy dtype object (TypeError for dtypes ember has no twin of).
ScalarType scalar_type_of_numpy(py::handle np_dtype);
/// torch.from_numpy: a tensor over the array's memory that keeps the array alive.
Tensor tensor_from_numpy(py::handle array);

void init_indexing(py::module_& m);
void init_numpy(py::module_& m);
void init_dlpack(py::module_& m);
void init_grad_mode(py::module_& m);

}  // namespace ember::python
