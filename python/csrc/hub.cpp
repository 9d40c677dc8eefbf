// ember._C._hub: ember::hub (downloads, cache folder) bound for python/ember/hub.py. Text meant
// for stderr goes to Python's sys.stderr, so redirecting or capturing it works as with torch.hub;
// transfer errors become urllib's exceptions, as urlopen raises them in torch.hub.
#include <pybind11/stl.h>

#include "common.h"
#include "ember/hub.h"

namespace ember::python {

void init_hub(py::module_& parent) {
  py::module_ m = parent.def_submodule("_hub", "downloads and the hub cache (ember/hub.h)");
  hub::set_stderr_sink([](std::string_view text) {
    if (!Py_IsInitialized()) return;
    py::gil_scoped_acquire gil;
    try {
      py::object err = py::module_::import("sys").attr("stderr");
      if (err.is_none()) return;
      err.attr("write")(py::str(text.data(), text.size()));
      err.attr("flush")();
    } catch (py::error_already_set& e) {
      e.discard_as_unraisable("ember.hub: writing to sys.stderr");
    }
  });
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const hub::HttpError& e) {
      py::gil_scoped_acquire gil;
      py::object cls = py::module_::import("urllib.error").attr("HTTPError");
      py::object exc = cls(e.url(), e.code(), e.reason(), py::none(), py::none());
      PyErr_SetObject(cls.ptr(), exc.ptr());
    } catch (const hub::UrlError& e) {
      py::gil_scoped_acquire gil;
      py::object cls = py::module_::import("urllib.error").attr("URLError");
      PyErr_SetObject(cls.ptr(), cls(e.reason()).ptr());
    }
  });

  m.def("get_dir", &hub::get_dir);
  m.def("set_dir", &hub::set_dir);
  m.def("hash_prefix_of", &hub::hash_prefix_of);
  m.def("download_url_to_file",
        [](const std::string& url, const std::string& dst, std::optional<std::string> hash_prefix, bool progress) {
          py::gil_scoped_release nogil;
          hub::download_url_to_file(url, dst, hash_prefix, progress);
        });
  m.def("cached_file_for_url", [](const std::string& url, std::optional<std::string> model_dir, bool progress,
                                  bool check_hash, std::optional<std::string> file_name) {
    hub::UrlOptions o{model_dir, progress, check_hash, file_name};
    py::gil_scoped_release nogil;
    return hub::cached_file_for_url(url, o);
  });
}

}  // namespace ember::python
