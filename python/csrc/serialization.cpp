// ember.save / ember.load: Python objects to and from checkpoint trees (ember::serialization::
// Node), and the C++ reader and writer for the weights_only=False path, which runs Python's own
// pickle with ember's persistent ids (python/ember/serialization.py).
#include "common.h"

#include <algorithm>
#include <sstream>
#include <unordered_map>

#include "ember/nn/module.h"
#include "ember/serialization.h"
#include "ember/tensor_impl.h"
#include "serialization/zip.h"

namespace ember::python {
namespace {

namespace ser = ember::serialization;
using Kind = ser::Node::Kind;

// Raised (as ember.serialization._Unsupported) when an object has no tree form: the Python
// layer then pickles with Python's pickler, as torch.save always does.
PyObject* g_unsupported = nullptr;
PyObject* g_unpickling_error = nullptr;

py::object ordered_dict_type() {
  static py::object t = py::module_::import("collections").attr("OrderedDict");
  return t;
}
py::object size_type() {
  static py::object t = py::module_::import("ember").attr("Size");
  return t;
}

class ToNode {
 public:
  ser::NodePtr operator()(py::handle obj, int depth = 0) {
    if (depth > 1000) throw py::value_error("ember.save: object nesting is deeper than 1000");
    PyObject* o = obj.ptr();
    if (o == Py_None) return ser::Node::none();
    if (PyBool_Check(o)) return ser::Node::of(o == Py_True);
    if (PyLong_CheckExact(o)) {
      int overflow = 0;
      long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
      if (overflow) unsupported("an int outside 64 bits");
      return ser::Node::of(int64_t(v));
    }
    if (PyFloat_CheckExact(o)) return ser::Node::of(PyFloat_AS_DOUBLE(o));
    auto it = memo_.find(o);
    if (it != memo_.end()) return it->second;
    ser::NodePtr n;
    if (PyUnicode_CheckExact(o)) {
      Py_ssize_t len = 0;
      const char* s = PyUnicode_AsUTF8AndSize(o, &len);
      if (!s) {  // lone surrogates
        PyErr_Clear();
        unsupported("a str with surrogates");
      }
      std::string v(s, size_t(len));
      // CPython interns name-like strings (attribute names, literals such as 'version') and
      // has one empty string, so torch.save's memo sees them as one object: so does ours.
      bool name_like = std::all_of(v.begin(), v.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
      });
      if (name_like) {
        auto& slot = interned_[v];
        if (!slot) slot = ser::Node::of(v);
        n = slot;
      } else {
        n = ser::Node::of(std::move(v));
      }
    } else if (PyBytes_CheckExact(o)) {
      n = ser::Node::bytes(std::string(PyBytes_AS_STRING(o), size_t(PyBytes_GET_SIZE(o))));
    } else if (PyComplex_CheckExact(o)) {
      n = std::make_shared<ser::Node>();
      n->kind = Kind::Complex;
      n->real = PyComplex_RealAsDouble(o);
      n->imag = PyComplex_ImagAsDouble(o);
    } else if (is_tensor(o)) {
      const Tensor& t = unpack(o);
      // Subclasses (other than Parameter) carry Python state: Python's pickler handles them.
      py::handle cls = py::handle(reinterpret_cast<PyObject*>(Py_TYPE(o)));
      if (cls.ptr() != tensor_class() && !t.is_parameter()) unsupported("a tensor subclass");
      if (t.is_parameter() && std::string(Py_TYPE(o)->tp_name) != "Parameter") unsupported("a Parameter subclass");
      if (!t.device().is_meta() && t.impl()->storage()->data() == nullptr && t.numel() > 0) {
        unsupported("a tensor without data");
      }
      py::object d = py::reinterpret_borrow<py::object>(o).attr("__dict__");
      if (py::len(d) > (t.is_parameter() ? 1 : 0)) unsupported("a tensor with attributes");
      n = ser::Node::of(t);
    } else if (is_dtype(o)) {
      return ser::Node::of(unpack_dtype(o));
    } else if (is_device(o)) {
      n = ser::Node::of(parse_device(o));
    } else if (is_qscheme(o)) {
      n = std::make_shared<ser::Node>();
      n->kind = Kind::QScheme;
      n->qscheme = static_cast<QScheme>(unpack_qscheme(o));
      return n;
    } else if (PyTuple_Check(o) && Py_TYPE(o) == reinterpret_cast<PyTypeObject*>(size_type().ptr())) {
      n = std::make_shared<ser::Node>();
      n->kind = Kind::Size;
      memo_[o] = n;
      for (py::handle x : py::reinterpret_borrow<py::tuple>(o)) n->items.push_back((*this)(x, depth + 1));
      return n;
    } else if (PyTuple_CheckExact(o)) {
      n = ser::Node::tuple();
      for (py::handle x : py::reinterpret_borrow<py::tuple>(o)) n->items.push_back((*this)(x, depth + 1));
    } else if (PyList_CheckExact(o)) {
      n = ser::Node::list();
      memo_[o] = n;  // before the items: a list may contain itself
      hold_.push_back(py::reinterpret_borrow<py::object>(o));
      for (py::handle x : py::reinterpret_borrow<py::list>(o)) n->items.push_back((*this)(x, depth + 1));
      return n;
    } else if (PyDict_CheckExact(o) || Py_TYPE(o) == reinterpret_cast<PyTypeObject*>(ordered_dict_type().ptr())) {
      bool ordered = !PyDict_CheckExact(o);
      n = ser::Node::dict(ordered);
      memo_[o] = n;
      hold_.push_back(py::reinterpret_borrow<py::object>(o));
      py::dict d = py::reinterpret_borrow<py::dict>(o);
      for (auto kv : d) n->set((*this)(kv.first, depth + 1), (*this)(kv.second, depth + 1));
      if (ordered) {
        py::object attrs = py::reinterpret_borrow<py::object>(o).attr("__dict__");
        for (auto kv : py::reinterpret_borrow<py::dict>(attrs)) {
          if (py::str(kv.first).cast<std::string>() != "_metadata") unsupported("an OrderedDict with attributes");
          ser::NodePtr md = (*this)(kv.second, depth + 1);
          if (!md->is(Kind::Dict)) unsupported("a _metadata that is not a dict");
          n->metadata = md;
        }
      }
      return n;
    } else if (PyAnySet_CheckExact(o)) {
      n = std::make_shared<ser::Node>();
      n->kind = PyFrozenSet_CheckExact(o) ? Kind::FrozenSet : Kind::Set;
      for (py::handle x : py::reinterpret_borrow<py::iterable>(o)) n->items.push_back((*this)(x, depth + 1));
    } else {
      unsupported(std::string("an object of type ") + Py_TYPE(o)->tp_name);
    }
    memo_[o] = n;
    hold_.push_back(py::reinterpret_borrow<py::object>(o));
    return n;
  }

 private:
  [[noreturn]] static void unsupported(const std::string& what) {
    PyErr_SetString(g_unsupported, what.c_str());
    throw py::error_already_set();
  }
  std::unordered_map<PyObject*, ser::NodePtr> memo_;
  std::unordered_map<std::string, ser::NodePtr> interned_;
  std::vector<py::object> hold_;  // keeps memo keys alive
};

class ToPython {
 public:
  py::object operator()(const ser::NodePtr& n, int depth = 0) {
    if (depth > 1000) throw py::value_error("ember.load: object nesting is deeper than 1000");
    auto it = memo_.find(n.get());
    if (it != memo_.end()) return it->second;
    py::object out;
    switch (n->kind) {
      case Kind::None: return py::none();
      case Kind::Bool: return py::bool_(n->boolean);
      case Kind::Int: return py::int_(n->integer);
      case Kind::Float: return py::float_(n->real);
      case Kind::Complex:
        out = py::reinterpret_steal<py::object>(PyComplex_FromDoubles(n->real, n->imag));
        break;
      case Kind::String: {
        PyObject* s = PyUnicode_DecodeUTF8(n->str.data(), Py_ssize_t(n->str.size()), "surrogatepass");
        if (!s) throw py::error_already_set();
        out = py::reinterpret_steal<py::object>(s);
        break;
      }
      case Kind::Bytes: out = py::bytes(n->str); break;
      case Kind::Tensor: out = py::reinterpret_steal<py::object>(wrap(n->tensor)); break;
      case Kind::List: {
        py::list l;
        memo_[n.get()] = l;
        for (const auto& x : n->items) l.append((*this)(x, depth + 1));
        return l;
      }
      case Kind::Tuple: {
        py::tuple t(n->items.size());
        for (size_t i = 0; i < n->items.size(); ++i) t[i] = (*this)(n->items[i], depth + 1);
        out = t;
        break;
      }
      case Kind::Size: {
        py::tuple t(n->items.size());
        for (size_t i = 0; i < n->items.size(); ++i) t[i] = (*this)(n->items[i], depth + 1);
        out = size_type()(t);
        break;
      }
      case Kind::Dict: {
        py::object d = n->ordered ? ordered_dict_type()() : py::dict();
        memo_[n.get()] = d;
        for (const auto& [k, v] : n->entries) d[(*this)(k, depth + 1)] = (*this)(v, depth + 1);
        if (n->metadata) d.attr("_metadata") = (*this)(n->metadata, depth + 1);
        return d;
      }
      case Kind::Set:
      case Kind::FrozenSet: {
        py::list items;
        for (const auto& x : n->items) items.append((*this)(x, depth + 1));
        out = n->kind == Kind::Set ? py::object(py::set(items)) : py::module_::import("builtins").attr("frozenset")(items);
        break;
      }
      case Kind::DType: return py::reinterpret_steal<py::object>(dtype_object(n->dtype));
      case Kind::QScheme:
        return py::reinterpret_steal<py::object>(qscheme_object(int64_t(n->qscheme)));
      case Kind::Device:
        if (n->str.rfind("cuda", 0) == 0) raise_no_cuda();
        out = py::reinterpret_steal<py::object>(device_object(n->device));
        break;
      case Kind::Storage:
      case Kind::Global:
        throw py::type_error(std::string("ember.load: a bare ") + n->type_name() +
                             " cannot be returned by weights_only loading");
    }
    memo_[n.get()] = out;
    return out;
  }

 private:
  std::unordered_map<const ser::Node*, py::object> memo_;
};

// The map_location the Python layer normalised: None, or a callable location -> device.
ser::LoadOptions load_options(py::object map_location, py::object map_storage, bool mmap) {
  ser::LoadOptions o;
  o.mmap = mmap;
  if (!map_storage.is_none()) {
    // map_storage(uint8 tensor over the storage, location) -> uint8 tensor or None.
    o.map_storage = [map_storage](const intrusive_ptr<Storage>& s,
                                  const std::string& loc) -> intrusive_ptr<Storage> {
      py::gil_scoped_acquire g;
      auto impl = make_intrusive<TensorImpl>(s, kUInt8, std::vector<int64_t>{int64_t(s->nbytes())},
                                             std::vector<int64_t>{1}, 0);
      py::object t = py::reinterpret_steal<py::object>(wrap(Tensor(std::move(impl))));
      py::object r = map_storage(t, loc);
      if (r.is_none()) return nullptr;
      EMBER_CHECK_TYPE(is_tensor(r.ptr()), "map_location must return a storage or None");
      return unpack(r.ptr()).impl()->storage();
    };
  }
  if (!map_location.is_none()) {
    o.map_location = [map_location](const std::string& loc) -> Device {
      py::gil_scoped_acquire g;
      py::object d = map_location(loc);
      return parse_device(d.ptr());
    };
  }
  return o;
}

template <class F>
auto translating(F&& f) {
  try {
    return f();
  } catch (const ser::UnpicklingError& e) {
    PyErr_SetString(g_unpickling_error, e.what());
    throw py::error_already_set();
  }
}

}  // namespace

void init_serialization(py::module_& m) {
  py::module_ s = m.def_submodule("_serialization", "ember.save / ember.load in C++");
  g_unsupported = PyErr_NewException("ember._C._serialization._Unsupported", PyExc_TypeError, nullptr);
  s.attr("_Unsupported") = py::handle(g_unsupported);
  g_unpickling_error = py::module_::import("pickle").attr("UnpicklingError").ptr();
  Py_INCREF(g_unpickling_error);

  s.def("save", [](py::handle obj, py::object target, int protocol, std::string archive_name,
                   bool atomic) {
    ser::NodePtr node = ToNode()(obj);
    ser::SaveOptions o;
    o.pickle_protocol = protocol;
    o.atomic = atomic;
    o.archive_name = std::move(archive_name);
    if (py::isinstance<py::str>(target)) {
      std::string path = target.cast<std::string>();
      py::gil_scoped_release nogil;
      ser::save(node, path, o);
      return py::object(py::none());
    }
    std::ostringstream out;
    {
      py::gil_scoped_release nogil;
      ser::save(node, out, o);
    }
    return py::object(py::bytes(std::move(out).str()));
  }, py::arg("obj"), py::arg("target"), py::arg("protocol") = 2, py::arg("archive_name") = "",
     py::arg("atomic") = true);

  s.def("save_pickled", [](const std::string& pkl, py::list storages, py::object target,
                           std::string archive_name) {
    // storages: [(key, uint8 tensor over the whole storage)]
    ser::StorageRecords recs;
    for (py::handle item : storages) {
      auto pair = item.cast<py::tuple>();
      const Tensor& t = unpack(pair[1].ptr());
      recs.emplace_back(pair[0].cast<std::string>(), t.impl()->storage());
    }
    ser::SaveOptions o;
    o.archive_name = std::move(archive_name);
    if (py::isinstance<py::str>(target)) {
      std::string path = target.cast<std::string>();
      py::gil_scoped_release nogil;
      ser::save_pickled(pkl, recs, path, o);
      return py::object(py::none());
    }
    std::ostringstream out;
    {
      py::gil_scoped_release nogil;
      ser::save_pickled(pkl, recs, out, o);
    }
    return py::object(py::bytes(std::move(out).str()));
  });

  s.def("load", [](py::object source, py::object map_location, bool mmap, py::object map_storage) {
    ser::LoadOptions o = load_options(map_location, map_storage, mmap);
    ser::NodePtr node = translating([&] {
      if (py::isinstance<py::str>(source)) {
        std::string path = source.cast<std::string>();
        py::gil_scoped_release nogil;
        return ser::load(path, o);
      }
      std::string bytes = source.cast<std::string>();
      py::gil_scoped_release nogil;
      return ser::load_bytes(std::move(bytes), o);
    });
    return ToPython()(node);
  }, py::arg("source"), py::arg("map_location") = py::none(), py::arg("mmap") = false,
     py::arg("map_storage") = py::none());

  // The reader behind weights_only=False: records by name, storages as uint8 tensors.
  using ser::detail::ByteSource;
  using ser::detail::ZipReader;
  py::class_<ZipReader, std::shared_ptr<ZipReader>>(s, "ZipReader")
      .def(py::init([](py::object source, bool mmap) {
             if (py::isinstance<py::str>(source)) {
               return std::make_shared<ZipReader>(ByteSource::open_file(source.cast<std::string>(), mmap));
             }
             return std::make_shared<ZipReader>(ByteSource::from_buffer(source.cast<std::string>()));
           }), py::arg("source"), py::arg("mmap") = false)
      .def("names", [](const ZipReader& r) {
        std::vector<std::string> names;
        for (const auto& e : r.entries()) names.push_back(e.name);
        return names;
      })
      .def("has", [](const ZipReader& r, const std::string& name) { return r.find(name) != nullptr; })
      .def("read", [](const ZipReader& r, const std::string& name) { return py::bytes(r.read(name)); })
      .def("storage", [](const ZipReader& r, const std::string& name, int64_t nbytes, py::object device,
                         bool mmap) {
        const auto& e = r.entry(name);
        EMBER_CHECK(e.size == uint64_t(nbytes), "storage record '", name, "' holds ", e.size,
                    " bytes but the checkpoint describes ", nbytes);
        Device dev = device.is_none() ? kCPU : parse_device(device.ptr());
        intrusive_ptr<Storage> st;
        if (dev.is_meta()) {
          st = Storage::allocate(size_t(nbytes), kMeta);
        } else if (mmap && r.source()->is_mapped() && e.method == 0) {
          auto keep = r.source();
          st = Storage::wrap(const_cast<uint8_t*>(keep->data()) + e.data_offset, size_t(nbytes),
                             [keep](void*) {});
        } else {
          st = Storage::allocate(size_t(nbytes), kCPU);
          if (nbytes) {
            py::gil_scoped_release nogil;
            r.read_into(e, st->data(), /*check_crc=*/false);  // as ember::load (LoadOptions)
          }
        }
        auto impl = make_intrusive<TensorImpl>(st, kUInt8, std::vector<int64_t>{nbytes},
                                               std::vector<int64_t>{1}, 0);
        return py::reinterpret_steal<py::object>(wrap(Tensor(std::move(impl))));
      }, py::arg("name"), py::arg("nbytes"), py::arg("device") = py::none(), py::arg("mmap") = false);
  s.def("_is_zip", [](py::bytes head) { return ser::is_zip_file(head.cast<std::string>()); });
}

}  // namespace ember::python
