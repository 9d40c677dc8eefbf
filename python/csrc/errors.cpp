// C++ errors and warnings crossing into Python.
//
// Each ember::Error class (IndexError, ValueError, ...: error.h) carries the Python exception
// kind PyTorch raises for it, so the type and the message a user sees are PyTorch's. A Python exception raised inside a callback (a hook, a
// __torch_function__ handler, a Function.backward) travels through C++ frames as
// py::error_already_set and comes out as the same exception object. C++ warnings (ember::warn)
// become Python UserWarnings; with warnings turned into errors, the warning's exception
// propagates like any other.
#include "common.h"
#include "ember/warning.h"

namespace ember::python {

namespace {

// ember._C._LinAlgError (ember.linalg.LinAlgError), a RuntimeError like PyTorch's.
PyObject* linalg_error_type() {
  static PyObject* type = PyErr_NewException("ember._C._LinAlgError", PyExc_RuntimeError, nullptr);
  return type;
}

PyObject* exception_type(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::LinAlg: return linalg_error_type();
    case ErrorKind::Type: return PyExc_TypeError;
    case ErrorKind::Value: return PyExc_ValueError;
    case ErrorKind::Index: return PyExc_IndexError;
    case ErrorKind::Key: return PyExc_KeyError;
    case ErrorKind::NotImplemented: return PyExc_NotImplementedError;
    case ErrorKind::Attribute: return PyExc_AttributeError;
    case ErrorKind::Assertion: return PyExc_AssertionError;
    case ErrorKind::Runtime: break;
  }
  return PyExc_RuntimeError;
}

// Raises Python UserWarnings for ember::warn, on every thread that runs Python.
struct PythonWarningHandler : WarningHandler {
  void process(const std::string& message) override {
    py::gil_scoped_acquire gil;
    if (PyErr_WarnEx(PyExc_UserWarning, message.c_str(), 1) < 0) throw py::error_already_set();
  }
};
PythonWarningHandler g_warning_handler;

}  // namespace

void set_python_error_from_current_exception() {
  try {
    throw;
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Key) {
      // KeyError's str() is the repr of its argument; PyTorch raises it with the message.
      PyErr_SetObject(PyExc_KeyError, py::str(e.message()).ptr());
    } else {
      PyErr_SetString(exception_type(e.kind()), e.what());
    }
  } catch (const py::builtin_exception& e) {
    e.set_error();
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "unknown C++ exception");
  }
}

void init_errors(py::module_& m) {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::Key) {
        PyErr_SetObject(PyExc_KeyError, py::str(e.message()).ptr());
      } else {
        PyErr_SetString(exception_type(e.kind()), e.what());
      }
    }
  });
  set_warning_handler(&g_warning_handler);
  m.attr("_LinAlgError") = py::handle(linalg_error_type());
  m.def("_warn", [](const std::string& msg) { warn(msg); });  // tests: a C++ warning from Python
  // Note [Recording error texts] (ember/error.h): the texts of the errors made since the last
  // call, for the test suite's check that none names `torch.`.
  m.def("_set_error_recording", [](bool on) { detail::set_error_recording(on); });
  m.def("_take_recorded_errors", [] {
    // A text may quote a corrupt file's bytes: decode with replacement, never fail.
    py::list out;
    for (const std::string& t : detail::take_recorded_errors()) {
      py::object s = py::reinterpret_steal<py::object>(
          PyUnicode_DecodeUTF8(t.data(), static_cast<Py_ssize_t>(t.size()), "replace"));
      if (!s) throw py::error_already_set();
      out.append(s);
    }
    return out;
  });
}

}  // namespace ember::python
