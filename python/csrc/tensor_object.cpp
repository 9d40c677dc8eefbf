// ember._C.TensorBase: the Python tensor object, its metaclass, and how C++ tensors map to it.
//
// Note [Python object preservation]
// Each TensorImpl has at most one Python object, found through TensorImpl::pyobj(), so a tensor
// that comes back from C++ (a module's parameter, an optimizer's param, a graph's saved input)
// is the same Python object every time: `opt.param_groups[0]['params'][0] is model.weight`.
// Normally the Python object owns the impl (PyTensor::cdata) and the impl points back without
// owning. A Python subclass instance keeps its state in its Python object (__class__, __dict__:
// a wrapper's `elem`, `scale`), so that object must not die while C++ still holds the impl — the
// subclass would silently come back as a plain tensor. We do what PyTorch does: when the Python
// object's last reference goes (tp_dealloc) and C++ still holds the impl (use_count > 1), the
// object is resurrected and ownership flips: the impl owns the object (owns_pyobj) and the object
// drops its reference to the impl. When C++ hands the impl to Python again, wrap() flips it back.
// When the impl dies while owning its object, TensorImpl::pyobj_release_hook drops the object
// (under the GIL), and this time its dealloc really frees it. No reference cycle exists at any
// time, so nothing waits for the cyclic GC. The same holds for plain ember.Tensor objects (ids
// and attributes set on them survive too), as in PyTorch.
// While the impl owns the object, GC traversal reports nothing from it: the C++ owner is an
// external root, so the object's __dict__ stays alive (as THPVariable_subclass_traverse).
//
// TensorBase has its own __dict__ and __weakref__ slots, so that its Python subclasses (every
// tensor object is one: ember.Tensor, ember.nn.Parameter, user classes) store attributes at a
// fixed offset that the dealloc and traverse below can reach without CPython internals.
// Every Python subclass gets subclass_dealloc / subclass_traverse from the metaclass
// (_TensorMeta.__init__), which mimic CPython's subtype_dealloc / subtype_traverse with the
// preservation step first.
#include "common.h"

#include <structmember.h>
#include "autograd_python.h"
#include "ember/autograd/autograd.h"
#include "ember/ember.h"
#include "torch_function.h"

namespace ember::python {

Tensor legacy_new(const py::tuple& args, const py::dict& kwargs, ScalarType dtype,
                  Device expected, bool from_new);
void init_tensor_new(py::module_& m);
void init_storage(py::module_& m);

namespace {

struct PyTensorFull {
  PyTensor base;
  PyObject* dict;
  PyObject* weakreflist;
};

PyObject* g_tensor_cls = nullptr;     // ember.Tensor
PyObject* g_parameter_cls = nullptr;  // ember.nn.Parameter

PyTypeObject TensorMetaType = static_type_init();
PyTypeObject TensorBaseType = static_type_init();

PyObject** dict_slot(PyObject* self) { return &reinterpret_cast<PyTensorFull*>(self)->dict; }

// Drops the object's tensor, un-pointing the impl at it.
void clear_cdata(PyObject* self) {
  auto* pt = reinterpret_cast<PyTensor*>(self);
  if (pt->cdata.defined()) {
    TensorImpl* impl = pt->cdata.impl();
    if (impl->pyobj() == self) impl->set_pyobj(nullptr);
  }
  pt->cdata.~Tensor();
}

// The preservation step of Note [Python object preservation]: true when C++ still holds the impl,
// so the object lives on, owned by it.
bool try_preserve(PyObject* self) {
  auto* pt = reinterpret_cast<PyTensor*>(self);
  if (!pt->cdata.defined()) return false;
  TensorImpl* impl = pt->cdata.impl();
  if (impl->use_count() <= 1 || impl->pyobj() != self) return false;
  impl->set_owns_pyobj(true);
  Py_INCREF(self);  // 0 -> 1: the reference the impl now owns
  pt->cdata = Tensor();  // the impl survives: other C++ owners hold it
  return true;
}

void release_owned_pyobj(void* p) {
  if (!Py_IsInitialized()) return;  // interpreter gone: nothing left to free it into
  PyGILState_STATE gil = PyGILState_Ensure();
  Py_DECREF(static_cast<PyObject*>(p));
  PyGILState_Release(gil);
}

// Slots (__slots__ members) that heap subclasses between `type` and TensorBase add.
template <class F>
void for_each_slot(PyObject* self, F&& f) {
  for (PyTypeObject* t = Py_TYPE(self); t && t != &TensorBaseType; t = t->tp_base) {
    if (!(t->tp_flags & Py_TPFLAGS_HEAPTYPE) || !t->tp_members) continue;
    for (PyMemberDef* mp = t->tp_members; mp->name; ++mp) {
      if (mp->type == T_OBJECT_EX && !(mp->flags & READONLY))
        f(reinterpret_cast<PyObject**>(reinterpret_cast<char*>(self) + mp->offset));
    }
  }
}

int base_traverse(PyObject* self, visitproc visit, void* arg) {
  auto* pt = reinterpret_cast<PyTensor*>(self);
  // Owned by its impl, or shared with C++: C++ is an external root (see the Note).
  if (!pt->cdata.defined() || pt->cdata.use_count() > 1) return 0;
  Py_VISIT(*dict_slot(self));
  return traverse_autograd_state(pt->cdata, visit, arg);  // Note [Reference cycles through ...]
}

int subclass_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  auto* pt = reinterpret_cast<PyTensor*>(self);
  if (!pt->cdata.defined() || pt->cdata.use_count() > 1) return 0;
  int err = 0;
  for_each_slot(self, [&](PyObject** slot) {
    if (!err && *slot) err = visit(*slot, arg);
  });
  if (err) return err;
  Py_VISIT(*dict_slot(self));
  return traverse_autograd_state(pt->cdata, visit, arg);  // Note [Reference cycles through ...]
}

int base_clear(PyObject* self) {
  for_each_slot(self, [](PyObject** slot) { Py_CLEAR(*slot); });
  Py_CLEAR(*dict_slot(self));
  return 0;
}

// tp_clear, as the cyclic GC calls it on garbage it found: an object whose impl C++ still holds
// (or that its impl owns) is preserved when its last Python reference goes (see the Note), so
// its __dict__ and slots must survive; the C++ owner is a root the collector cannot see. Without
// this, a wrapper subclass's `elem` vanished when a collection ran during backward.
int gc_clear(PyObject* self) {
  auto* pt = reinterpret_cast<PyTensor*>(self);
  if (!pt->cdata.defined() || pt->cdata.use_count() > 1) return 0;
  return base_clear(self);
}

void finish_dealloc(PyObject* self) {
  auto* full = reinterpret_cast<PyTensorFull*>(self);
  if (full->weakreflist) PyObject_ClearWeakRefs(self);
  base_clear(self);
  clear_cdata(self);
  Py_TYPE(self)->tp_free(self);
}

void base_dealloc(PyObject* self) {
  if (try_preserve(self)) return;
  PyObject_GC_UnTrack(self);
  finish_dealloc(self);
}

void subclass_dealloc(PyObject* self) {
  if (try_preserve(self)) return;
  PyTypeObject* type = Py_TYPE(self);
  if (type->tp_finalize) {  // a __del__: it may resurrect the object
    if (PyObject_CallFinalizerFromDealloc(self) < 0) return;
  }
  PyObject_GC_UnTrack(self);
  finish_dealloc(self);
  Py_DECREF(type);  // heap-type instances own a reference to their type
}

PyObject* base_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  // PyTorch's legacy constructor (tensor_new.cpp): ember.Tensor(2, 3), ember.Tensor([1, 2]),
  // MySub(t) (an alias of t as a MySub), ...
  return guarded(
      [&]() -> PyObject* {
        py::tuple a = args ? py::reinterpret_borrow<py::tuple>(args) : py::tuple();
        py::dict k = kwargs ? py::reinterpret_borrow<py::dict>(kwargs) : py::dict();
        return wrap_as(type, legacy_new(a, k, default_dtype(), Device(DeviceType::CPU), false));
      },
      static_cast<PyObject*>(nullptr));
}

int meta_init(PyObject* cls, PyObject* args, PyObject* kwargs) {
  if (PyType_Type.tp_init(cls, args, kwargs) < 0) return -1;
  auto* type = reinterpret_cast<PyTypeObject*>(cls);
  type->tp_dealloc = subclass_dealloc;
  type->tp_traverse = subclass_traverse;
  type->tp_clear = gc_clear;
  return 0;
}

PyObject* tensor_repr(PyObject* self) {
  return guarded(
      [&]() -> PyObject* {
        const Tensor& t = unpack(self);
        if (t.impl()->subclass() && t.impl()->subclass()->is_wrapper()) {
          // A wrapper has no data to print (its payload is the subclass's): its class must
          // define __repr__; this one only describes it.
          std::string s = detail::str_cat("<", Py_TYPE(self)->tp_name, " wrapper tensor of size ",
                                          t.sizes(), ", dtype=", dtype_name(t.dtype()), ">");
          return PyUnicode_FromStringAndSize(s.data(), static_cast<Py_ssize_t>(s.size()));
        }
        std::string s = t.to_string();
        return PyUnicode_FromStringAndSize(s.data(), static_cast<Py_ssize_t>(s.size()));
      },
      static_cast<PyObject*>(nullptr));
}

PyGetSetDef base_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

}  // namespace

PyTypeObject* tensor_base_type() { return &TensorBaseType; }
PyObject* tensor_class() { return g_tensor_cls; }

void set_tensor_classes(PyObject* tensor_cls, PyObject* parameter_cls) {
  if (tensor_cls) {
    Py_XDECREF(g_tensor_cls);
    Py_INCREF(tensor_cls);
    g_tensor_cls = tensor_cls;
  }
  if (parameter_cls) {
    Py_XDECREF(g_parameter_cls);
    Py_INCREF(parameter_cls);
    g_parameter_cls = parameter_cls;
  }
}

PyObject* wrap_as(PyTypeObject* cls, Tensor t) {
  EMBER_ASSERT(t.defined());
  EMBER_CHECK(t.impl()->pyobj() == nullptr, "wrap_as: this tensor already has a Python object");
  PyObject* obj = cls->tp_alloc(cls, 0);
  if (!obj) throw py::error_already_set();
  auto* full = reinterpret_cast<PyTensorFull*>(obj);
  full->dict = nullptr;
  full->weakreflist = nullptr;
  t.impl()->set_pyobj(obj);
  t.impl()->set_owns_pyobj(false);
  new (&full->base.cdata) Tensor(std::move(t));
  try {
    attach_python_subclass(cls, full->base.cdata);  // Note [Python subclasses in C++ calls]
  } catch (...) {
    Py_DECREF(obj);
    throw;
  }
  return obj;
}

PyObject* wrap(Tensor t) {
  if (!t.defined()) Py_RETURN_NONE;
  TensorImpl* impl = t.impl();
  if (auto* obj = static_cast<PyObject*>(impl->pyobj())) {
    if (impl->owns_pyobj()) {
      // Back from C++ only: the object owns the impl again, and the reference the impl held
      // becomes the caller's.
      impl->set_owns_pyobj(false);
      reinterpret_cast<PyTensor*>(obj)->cdata = std::move(t);
      return obj;
    }
    Py_INCREF(obj);
    return obj;
  }
  PyObject* cls = t.is_parameter() && g_parameter_cls ? g_parameter_cls : g_tensor_cls;
  if (!cls) cls = reinterpret_cast<PyObject*>(&TensorBaseType);
  return wrap_as(reinterpret_cast<PyTypeObject*>(cls), std::move(t));
}

void init_tensor_object(py::module_& m) {
  TensorImpl::set_pyobj_release_hook(release_owned_pyobj);

  TensorMetaType.tp_name = "ember._C._TensorMeta";
  TensorMetaType.tp_basicsize = PyType_Type.tp_basicsize;
  TensorMetaType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC;
  TensorMetaType.tp_base = &PyType_Type;
  TensorMetaType.tp_init = meta_init;
  TensorMetaType.tp_traverse = PyType_Type.tp_traverse;
  TensorMetaType.tp_clear = PyType_Type.tp_clear;
  TensorMetaType.tp_doc = "Metaclass of ember tensors: installs the preserving dealloc.";
  if (PyType_Ready(&TensorMetaType) < 0) throw py::error_already_set();

  Py_SET_TYPE(&TensorBaseType, &TensorMetaType);
  TensorBaseType.tp_name = "ember._C.TensorBase";
  TensorBaseType.tp_basicsize = sizeof(PyTensorFull);
  TensorBaseType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC;
  TensorBaseType.tp_dealloc = base_dealloc;
  TensorBaseType.tp_traverse = base_traverse;
  TensorBaseType.tp_clear = gc_clear;
  TensorBaseType.tp_new = base_new;
  TensorBaseType.tp_repr = tensor_repr;
  TensorBaseType.tp_dictoffset = offsetof(PyTensorFull, dict);
  TensorBaseType.tp_weaklistoffset = offsetof(PyTensorFull, weakreflist);
  TensorBaseType.tp_getset = base_getset;
  TensorBaseType.tp_doc = "The C part of ember.Tensor.";
  if (PyType_Ready(&TensorBaseType) < 0) throw py::error_already_set();

  Py_INCREF(&TensorMetaType);
  m.add_object("_TensorMeta", reinterpret_cast<PyObject*>(&TensorMetaType));
  Py_INCREF(&TensorBaseType);
  m.add_object("TensorBase", reinterpret_cast<PyObject*>(&TensorBaseType));
  init_storage(m);
  m.def("_set_tensor_classes", [](py::object tensor_cls, py::object parameter_cls) {
    set_tensor_classes(tensor_cls.is_none() ? nullptr : tensor_cls.ptr(),
                       parameter_cls.is_none() ? nullptr : parameter_cls.ptr());
  });
}

}  // namespace ember::python
