// Tensor.__getitem__ / __setitem__: a Python index becomes a list of ember::TensorIndex and goes
// to Tensor::index / index_put_ (src/ops/indexing_basic.cpp), which apply ints, slices, None,
// Ellipsis and bools as views and hand tensor indices to aten::index / index_put_ — so `t[0]`
// is a view of t and autograd records every step. Only the Python-side conversion lives here,
// mirroring torch/csrc/autograd/python_variable_indexing.cpp (treatSequenceAsTuple,
// applySlicing, valueToTensor), so the same indices mean the same things and fail with the same
// errors.
#include <climits>

#include "ember/ops/indexing.h"
#include "tensor_api.h"

namespace ember::python {

std::string type_string(ScalarType dtype, Device device);  // tensor_api.cpp

namespace {

// numpy's heuristic, as PyTorch applies it: a short non-tuple sequence holding a tensor, a
// sequence, a slice, Ellipsis or None is a tuple of indices (`t[[0, slice(None)]]`); any other
// sequence is one index tensor (`t[[0, 2]]`).
bool treat_sequence_as_tuple(PyObject* index) {
  if (PyTuple_Check(index)) return true;
  if (is_tensor(index) || !PySequence_Check(index)) return false;
  Py_ssize_t n = PySequence_Size(index);
  if (n < 0) {
    PyErr_Clear();
    return false;
  }
  if (n >= 32) return false;
  for (Py_ssize_t i = 0; i < n; ++i) {
    py::object item = py::reinterpret_steal<py::object>(PySequence_GetItem(index, i));
    if (!item) {
      PyErr_Clear();
      return false;
    }
    PyObject* o = item.ptr();
    if (is_tensor(o) || PySequence_Check(o) || PySlice_Check(o) || o == Py_Ellipsis || o == Py_None)
      return true;
  }
  return false;
}

[[noreturn]] void invalid_index(PyObject* obj) {
  EMBER_FAIL_KIND(ErrorKind::Index,
                  "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                  "are valid indices (got ", Py_TYPE(obj)->tp_name, ")");
}

int64_t unpack_long(PyObject* obj) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  EMBER_CHECK(!overflow, "Overflow when unpacking long");
  return v;
}

bool is_python_int(PyObject* obj) {
  return !PyBool_Check(obj) && (PyLong_Check(obj) || (is_numpy_scalar(obj) && PyIndex_Check(obj)));
}

indexing::Slice unpack_slice(PyObject* obj) {
  Py_ssize_t start, stop, step;
  // Python's own unpacking: __index__ on the bounds (0-d integer tensors work), a zero step is
  // "slice step cannot be zero".
  if (PySlice_Unpack(obj, &start, &stop, &step) < 0) throw py::error_already_set();
  auto* s = reinterpret_cast<PySliceObject*>(obj);
  auto bound = [](PyObject* given, Py_ssize_t v) -> indexing::SliceArg {
    if (given == Py_None) return std::nullopt;
    return static_cast<int64_t>(v);
  };
  return indexing::Slice(bound(s->start, start), bound(s->stop, stop), static_cast<int64_t>(step));
}

TensorIndex to_index(const Tensor& self, PyObject* obj) {
  if (is_python_int(obj)) {
    PyObject* idx = PyNumber_Index(obj);  // numpy integers
    if (!idx) throw py::error_already_set();
    py::object holder = py::reinterpret_steal<py::object>(idx);
    return TensorIndex(unpack_long(idx));
  }
  if (PySlice_Check(obj)) return TensorIndex(unpack_slice(obj));
  if (obj == Py_Ellipsis) return TensorIndex(indexing::Ellipsis);
  if (obj == Py_None) return TensorIndex(indexing::None);
  if (PyBool_Check(obj)) return TensorIndex(obj == Py_True);
  if (is_tensor(obj)) return TensorIndex(unpack(obj));
  if (PySequence_Check(obj)) {
    // A list of indices is one index tensor: a mask when its values are bools, else int64
    // (PyTorch's sequenceToVariable).
    Tensor t = tensor_from_data(obj, std::nullopt, self.device());
    if (t.dtype() != kBool && t.dtype() != kUInt8) t = t.to(kInt64);
    return TensorIndex(t);
  }
  PyObject* idx = PyNumber_Index(obj);
  if (!idx) {
    PyErr_Clear();
    invalid_index(obj);
  }
  py::object holder = py::reinterpret_steal<py::object>(idx);
  return TensorIndex(unpack_long(idx));
}

std::vector<TensorIndex> to_indices(const Tensor& self, PyObject* index) {
  std::vector<TensorIndex> out;
  if (!treat_sequence_as_tuple(index)) {
    out.push_back(to_index(self, index));
    return out;
  }
  py::tuple items = py::reinterpret_steal<py::tuple>(PySequence_Tuple(index));
  if (!items) throw py::error_already_set();
  out.reserve(items.size());
  for (py::handle item : items) out.push_back(to_index(self, item.ptr()));
  return out;
}

py::object getitem(const py::args& args, const py::kwargs&) {
  EMBER_CHECK_TYPE(args.size() == 2, "__getitem__ expected 1 argument, got ", args.size() - 1);
  const Tensor& self = unpack(args[0].ptr());
  std::vector<TensorIndex> indices = to_indices(self, args[1].ptr());
  return py::reinterpret_steal<py::object>(wrap(self.index(indices)));
}

py::object setitem(const py::args& args, const py::kwargs&) {
  EMBER_CHECK_TYPE(args.size() == 3, "__setitem__ expected 2 arguments, got ", args.size() - 1);
  Tensor self = unpack(args[0].ptr());
  PyObject* value = args[2].ptr();
  std::vector<TensorIndex> indices = to_indices(self, args[1].ptr());
  // PyTorch's valueToTensor: a tensor, or a Python int / bool / float (which take self's dtype);
  // anything else (lists, arrays, numpy floats) is refused.
  if (is_tensor(value)) {
    self.index_put_(indices, unpack(value));
  } else if (is_python_int(value) || PyBool_Check(value)) {
    PyObject* idx = PyNumber_Index(value);
    if (!idx) throw py::error_already_set();
    py::object holder = py::reinterpret_steal<py::object>(idx);
    self.index_put_(indices, Scalar(unpack_long(idx)));
  } else if (PyFloat_Check(value)) {
    self.index_put_(indices, Scalar(PyFloat_AS_DOUBLE(value)));
  } else {
    EMBER_FAIL_KIND(ErrorKind::Type, "can't assign a ", Py_TYPE(value)->tp_name, " to a ",
                    type_string(self.dtype(), self.device()));
  }
  return py::none();
}

}  // namespace

void init_indexing(py::module_&) {
  def_overridable_method("__getitem__", getitem);
  def_overridable_method("__setitem__", setitem);
}

}  // namespace ember::python
