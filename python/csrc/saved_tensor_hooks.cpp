// The engine's debugging and memory switches from Python:
// - torch.autograd.graph.saved_tensors_hooks: a pair of Python callables as one
//   autograd::SavedTensorHooks (Note [Saved tensor hooks] in ember/autograd/saved_tensor_hooks.h).
//   What pack returns is kept as a Python object; the graph may free it on any thread, so its
//   deleter takes the GIL.
// - anomaly mode (Note [Anomaly mode] in ember/autograd/anomaly_mode.h): the flags, and the
//   capture that records the Python traceback of each node's forward.
#include "autograd_python.h"
#include "ember/autograd/anomaly_mode.h"
#include "ember/autograd/saved_tensor_hooks.h"

namespace ember::python {

namespace {

class PythonSavedTensorHooks final : public autograd::SavedTensorHooks {
 public:
  PythonSavedTensorHooks(py::object pack, py::object unpack)
      : pack_(std::move(pack)), unpack_(std::move(unpack)) {}
  ~PythonSavedTensorHooks() override {
    py::gil_scoped_acquire gil;
    pack_ = py::object();
    unpack_ = py::object();
  }

  std::shared_ptr<void> pack(const Tensor& t) override {
    py::gil_scoped_acquire gil;
    py::object packed = pack_(py::reinterpret_steal<py::object>(wrap(t)));
    return std::shared_ptr<void>(new py::object(std::move(packed)), [](void* p) {
      py::gil_scoped_acquire gil;
      delete static_cast<py::object*>(p);
    });
  }

  Tensor unpack(const std::shared_ptr<void>& packed) override {
    py::gil_scoped_acquire gil;
    py::object got = unpack_(*static_cast<py::object*>(packed.get()));
    EMBER_CHECK_TYPE(is_tensor(got.ptr()), "Output of saved tensor unpack_hook expected to be a Tensor ",
                     "but got result of type ", Py_TYPE(got.ptr())->tp_name);
    return got.cast<Tensor>();
  }

 private:
  py::object pack_, unpack_;
};

}  // namespace

std::shared_ptr<autograd::SavedTensorHooks> make_python_saved_tensor_hooks(py::object pack,
                                                                           py::object unpack) {
  return std::make_shared<PythonSavedTensorHooks>(std::move(pack), std::move(unpack));
}

void init_saved_tensor_hooks(py::module_& m) {
  m.def("_push_saved_tensors_default_hooks", [](py::object pack, py::object unpack) {
    autograd::push_saved_tensor_hooks(make_python_saved_tensor_hooks(std::move(pack), std::move(unpack)));
  });
  m.def("_pop_saved_tensors_default_hooks", [] { autograd::pop_saved_tensor_hooks(); });
  // PyTorch's private API: ember.autograd.graph.disable_saved_tensors_hooks restores the
  // previous message itself.
  m.def("_saved_tensors_hooks_get_disabled_error_message",
        [] { return autograd::saved_tensors_hooks_disabled_message(); });
  m.def("_saved_tensors_hooks_disable",
        [](std::string message) { autograd::disable_saved_tensors_hooks(std::move(message)); });
  m.def("_saved_tensors_hooks_enable", [] { autograd::enable_saved_tensors_hooks(); });

  m.def("is_anomaly_enabled", [] { return autograd::AnomalyMode::is_enabled(); });
  m.def("is_anomaly_check_nan_enabled", [] { return autograd::AnomalyMode::should_check_nan(); });
  m.def("set_anomaly_enabled", [](bool enabled, bool check_nan) {
    autograd::AnomalyMode::set_enabled(enabled, check_nan);
  }, py::arg("enabled"), py::arg("check_nan") = true);
  autograd::set_forward_trace_capture([]() -> std::string {
    if (!Py_IsInitialized()) return {};
    py::gil_scoped_acquire gil;
    try {
      py::object frames = py::module_::import("traceback").attr("format_stack")();
      return py::str("").attr("join")(frames).cast<std::string>();
    } catch (py::error_already_set&) {
      return {};
    }
  });
}

}  // namespace ember::python
