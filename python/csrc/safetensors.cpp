// ember._C._safetensors: the C++ safetensors reader and writer (ember/safetensors.h), bound
// for python/ember/safetensors, which gives them safetensors.torch's names and argument checks.
#include <pybind11/stl.h>

#include "common.h"
#include "ember/safetensors.h"

namespace ember::python {

namespace st = ember::safetensors;

namespace {

PyObject* g_safetensor_error = nullptr;  // ember.safetensors.SafetensorError

st::TensorList tensor_list(const py::list& items) {
  st::TensorList out;
  for (py::handle item : items) {
    auto pair = item.cast<py::tuple>();
    out.emplace_back(pair[0].cast<std::string>(), unpack(pair[1].ptr()));
  }
  return out;
}

py::dict to_dict(st::NamedTensors tensors) {
  py::dict d;
  for (auto& [name, t] : tensors) d[py::str(name)] = py::reinterpret_steal<py::object>(wrap(std::move(t)));
  return d;
}

py::object metadata_obj(const std::optional<st::Metadata>& md) {
  if (!md) return py::none();
  py::dict d;
  for (const auto& [k, v] : *md) d[py::str(k)] = py::str(v);
  return d;
}

// The indices of PySafeSlice.__getitem__, as the crate reads them: ints and slices (start and
// stop as unsigned integers, the step ignored); a list only when empty.
std::vector<st::SliceIndex> slice_indices(py::handle key) {
  std::vector<py::handle> items;
  if (py::isinstance<py::tuple>(key)) {
    for (py::handle h : key.cast<py::tuple>()) items.push_back(h);
  } else if (py::isinstance<py::list>(key)) {
    if (py::len(key) != 0) throw st::SafetensorError("Non empty lists are not implemented");
    return {st::Narrow{0, 0}};
  } else {
    items.push_back(key);
  }
  auto bound = [](py::handle v) -> std::optional<uint64_t> {
    if (v.is_none()) return std::nullopt;
    if (!PyLong_Check(v.ptr()))
      throw py::type_error(std::string("'") + Py_TYPE(v.ptr())->tp_name +
                           "' object cannot be interpreted as an integer");
    if (PyObject_RichCompareBool(v.ptr(), py::int_(0).ptr(), Py_LT) == 1)
      throw py::value_error("can't convert negative int to unsigned");  // pyo3's usize text
    return v.cast<uint64_t>();
  };
  std::vector<st::SliceIndex> out;
  for (py::handle h : items) {
    if (PySlice_Check(h.ptr())) {
      out.push_back(st::Narrow{bound(h.attr("start")), bound(h.attr("stop"))});
    } else if (PyLong_Check(h.ptr()) && !PyBool_Check(h.ptr())) {
      out.push_back(h.cast<int64_t>());
    } else {
      throw py::type_error(std::string("get_slice: expected an int or a slice, got ") + Py_TYPE(h.ptr())->tp_name);
    }
  }
  return out;
}

}  // namespace

void init_safetensors(py::module_& parent) {
  py::module_ m = parent.def_submodule("_safetensors", "safetensors files (ember/safetensors.h)");
  g_safetensor_error = PyErr_NewExceptionWithDoc("ember.safetensors.SafetensorError",
                                                 "Custom Python Exception for Safetensor errors.",
                                                 PyExc_Exception, nullptr);
  m.attr("SafetensorError") = py::handle(g_safetensor_error);
  // Registered after init_errors: tried first, so these keep their own Python types.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const st::FileNotFound& e) {
      PyErr_SetString(PyExc_FileNotFoundError, e.what());
    } catch (const st::SafetensorError& e) {
      PyErr_SetString(g_safetensor_error, e.what());
    }
  });

  m.def("serialize", [](const py::list& items, std::optional<st::Metadata> md) {
    auto tensors = tensor_list(items);
    std::string bytes;
    {
      py::gil_scoped_release nogil;
      bytes = st::serialize(tensors, md);
    }
    return py::bytes(bytes);
  });
  m.def("save_file", [](const py::list& items, const std::string& path, std::optional<st::Metadata> md) {
    auto tensors = tensor_list(items);
    py::gil_scoped_release nogil;
    st::save_file(tensors, path, md);
  });
  m.def("find_shared_tensors", [](const py::list& items) {
    py::list out;
    for (const auto& group : st::find_shared_tensors(tensor_list(items))) {
      py::set names;
      for (const auto& n : group) names.add(py::str(n));
      out.append(names);
    }
    return out;
  });
  m.def("is_complete", [](const Tensor& t) { return st::is_complete(t); });
  m.def("load", [](py::buffer data) {
    py::buffer_info info = data.request();
    st::NamedTensors tensors;
    {
      py::gil_scoped_release nogil;
      tensors = st::load(info.ptr, static_cast<size_t>(info.size * info.itemsize));
    }
    return to_dict(std::move(tensors));
  });
  m.def("load_file", [](const std::string& path) {
    st::NamedTensors tensors;
    {
      py::gil_scoped_release nogil;
      tensors = st::load_file(path);
    }
    return to_dict(std::move(tensors));
  });

  py::class_<st::SafeOpen, std::shared_ptr<st::SafeOpen>>(m, "SafeOpen")
      .def(py::init([](const std::string& path) {
        py::gil_scoped_release nogil;
        return std::make_shared<st::SafeOpen>(path);
      }))
      .def("keys", &st::SafeOpen::keys)
      .def("offset_keys", &st::SafeOpen::offset_keys)
      .def("metadata", [](const st::SafeOpen& f) { return metadata_obj(f.metadata()); })
      .def("get_tensor", &st::SafeOpen::get_tensor)
      .def("info", [](const st::SafeOpen& f, const std::string& name) {
        const st::TensorInfo& i = f.info(name);
        return py::make_tuple(i.dtype, py::cast(i.shape));
      })
      .def("get_slice", [](const st::SafeOpen& f, const std::string& name, py::handle key) {
        return f.get_slice(name, slice_indices(key));
      });
}

}  // namespace ember::python
