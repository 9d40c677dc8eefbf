// The storage object of ember.UntypedStorage / ember.TypedStorage (python/ember/storage.py) and
// the set_ family that rebuilds tensors over a storage: the pieces copy.deepcopy and pickle build
// tensors from (Note [Tensor pickling and deep copies] in python/ember/_utils.py), and that the
// checkpoint reader will reuse for its storage records.
#include "common.h"

#include <cstring>

#include "ember/ember.h"
#include "ember/grad_mode.h"
#include "ember/storage.h"

namespace ember::python {

namespace {

// One C++ Storage held by Python. The Python classes add the API; identity (one Python storage
// object per C++ storage while it is alive) is kept by a weak cache in storage.py keyed by key().
struct StorageRef {
  intrusive_ptr<Storage> s;

  uintptr_t key() const { return reinterpret_cast<uintptr_t>(s.get()); }
};

Device device_of(py::handle device) {
  return device.is_none() ? Device(DeviceType::CPU) : parse_device(device.ptr());
}

// Whether `sizes` / `strides` starting at `offset` (elements of `itemsize` bytes) fit in `nbytes`.
void check_fits(IntArrayRef sizes, IntArrayRef strides, int64_t offset, size_t itemsize,
                size_t nbytes) {
  EMBER_CHECK(sizes.size() == strides.size(), "mismatch in length of strides and shape");
  EMBER_CHECK(offset >= 0, "Tensor: invalid storage offset ", offset);
  int64_t last = offset;
  bool empty = false;
  for (size_t d = 0; d < sizes.size(); ++d) {
    EMBER_CHECK(sizes[d] >= 0, "Trying to create tensor with negative dimension ", sizes[d], ": ",
                sizes);
    if (sizes[d] == 0) empty = true;
    last += (sizes[d] - 1) * strides[d];
  }
  if (empty) return;
  const int64_t needed = (last + 1) * static_cast<int64_t>(itemsize);
  EMBER_CHECK(needed <= static_cast<int64_t>(nbytes), "setStorage: sizes ", sizes, ", strides ",
              strides, ", storage offset ", offset, ", and itemsize ", itemsize,
              " requiring a storage size of ", needed, " are out of bounds for storage of size ",
              nbytes);
}

}  // namespace

void init_storage(py::module_& m) {
  py::class_<StorageRef>(m, "_StorageImpl")
      .def("nbytes", [](const StorageRef& r) { return r.s->nbytes(); })
      .def_property_readonly("device", [](const StorageRef& r) {
        return py::reinterpret_steal<py::object>(device_object(r.s->device()));
      })
      .def("data_ptr", [](const StorageRef& r) { return reinterpret_cast<uintptr_t>(r.s->data()); })
      .def("key", &StorageRef::key)
      .def("clone", [](const StorageRef& r) {
        // A new storage with the same bytes (meta: the same size, no data), as _StorageBase.clone.
        auto out = Storage::allocate(r.s->nbytes(), r.s->device());
        if (r.s->data() && r.s->nbytes()) std::memcpy(out->data(), r.s->data(), r.s->nbytes());
        return StorageRef{out};
      })
      .def("to_bytes", [](const StorageRef& r) {
        EMBER_CHECK_KIND(ErrorKind::NotImplemented, !r.s->device().is_meta(),
                         "Cannot copy out of meta tensor; no data!");
        return py::bytes(static_cast<const char*>(r.s->data()), r.s->nbytes());
      })
      .def("get_byte", [](const StorageRef& r, int64_t i) {
        const auto n = static_cast<int64_t>(r.s->nbytes());
        EMBER_CHECK_INDEX(i >= -n && i < n, "index ", i, " out of range for storage of size ", n);
        EMBER_CHECK_KIND(ErrorKind::NotImplemented, r.s->data() != nullptr,
                         "Cannot copy out of meta tensor; no data!");
        return static_cast<const uint8_t*>(r.s->data())[i < 0 ? i + n : i];
      })
      .def_static("from_bytes", [](py::bytes data, py::handle device) {
        std::string_view view = data;
        auto s = Storage::allocate(view.size(), device_of(device));
        if (s->data() && !view.empty()) std::memcpy(s->data(), view.data(), view.size());
        return StorageRef{s};
      }, py::arg("data"), py::arg("device") = py::none())
      .def_static("new_empty", [](size_t nbytes, py::handle device) {
        return StorageRef{Storage::allocate(nbytes, device_of(device))};
      }, py::arg("nbytes"), py::arg("device") = py::none());

  m.def("_storage_impl", [](py::handle t) {
    EMBER_CHECK_TYPE(is_tensor(t.ptr()), "expected a Tensor, got ", Py_TYPE(t.ptr())->tp_name);
    const Tensor& x = unpack(t.ptr());
    EMBER_CHECK(x.impl()->storage(), "Cannot access storage of this tensor (it has none)");
    return StorageRef{x.impl()->storage()};
  });
  m.def("_is_parameter_flag", [](py::handle t) {
    // nn.Parameter's isinstance check (no __torch_function__: it runs on every isinstance).
    return is_tensor(t.ptr()) && unpack(t.ptr()).defined() && unpack(t.ptr()).is_parameter();
  });
  m.def("_storage_key", [](py::handle t) {
    return reinterpret_cast<uintptr_t>(unpack(t.ptr()).impl()->storage().get());
  });
  m.def("_set_storage", [](py::handle self, const StorageRef& storage, int64_t offset,
                           std::vector<int64_t> sizes, std::optional<std::vector<int64_t>> strides) {
    // Tensor.set_(storage, offset, size, stride): this tensor now views `storage`.
    Tensor& t = reinterpret_cast<PyTensor*>(self.ptr())->cdata;
    EMBER_CHECK(!(t.requires_grad() && t.is_leaf() && GradMode::is_enabled()),
                "set_ on a leaf Variable that requires grad is not allowed (use it under no_grad)");
    EMBER_CHECK(storage.s->device() == t.device(), "Expected a storage on device ",
                t.device(), " but got one on device ", storage.s->device());
    DimVector st = strides ? DimVector(strides->begin(), strides->end()) : contiguous_strides(sizes);
    check_fits(sizes, st, offset, t.element_size(), storage.s->nbytes());
    t.impl()->set_storage(storage.s);
    t.impl()->set_geometry(sizes, st, offset);
    t.impl()->bump_version();
    return py::reinterpret_borrow<py::object>(self);
  }, py::arg("self"), py::arg("storage"), py::arg("storage_offset"), py::arg("size"),
     py::arg("stride") = py::none());
  m.def("_set_from_tensor", [](py::handle self, py::handle source) {
    // Tensor.set_(source): this tensor views source's storage with source's geometry.
    Tensor& t = reinterpret_cast<PyTensor*>(self.ptr())->cdata;
    EMBER_CHECK_TYPE(is_tensor(source.ptr()), "set_(): argument 'source' must be Tensor, not ",
                     Py_TYPE(source.ptr())->tp_name);
    const Tensor& s = unpack(source.ptr());
    EMBER_CHECK(s.dtype() == t.dtype(), "Expected object of scalar type ", dtype_name(t.dtype()),
                " but got scalar type ", dtype_name(s.dtype()), " for argument 'source'");
    t.impl()->set_storage(s.impl()->storage());
    t.impl()->set_geometry(s.sizes(), s.strides(), s.storage_offset());
    t.impl()->bump_version();
    return py::reinterpret_borrow<py::object>(self);
  });
}

}  // namespace ember::python
