// The state_dict hooks, extra state and `_version` of Python modules, over the C++ algorithm of
// nn/module_state.cpp.
//
// Note [Python state_dict hooks]
// PyTorch keeps a module's state_dict hooks in OrderedDicts on the module (_state_dict_pre_hooks,
// _state_dict_hooks, _load_state_dict_pre_hooks, _load_state_dict_post_hooks), and code reads
// and edits those dicts directly. Here too they are Python dicts in the module's __dict__
// (module.py), and they are the only record: the first time a module's dicts are made, it gets
// one C++ hook of each kind (install_state_dict_hooks) that runs whatever its dict then holds.
// The C++ algorithm so calls them at PyTorch's points, also for a module deep inside a C++
// tree, and a removed handle or a cleared dict simply leaves nothing to run. The post and
// load hooks see the state as Python objects (an OrderedDict with _metadata, lists for the key
// lists), and what they leave there — keys renamed, entries added, a dict returned by a
// _register_state_dict_hook — is what C++ carries on with.
//
// Note [Python extra state and versions]
// A Python subclass that defines get_extra_state (PyTorch's test: the class's method is not
// Module.get_extra_state) saves a "<prefix>_extra_state" entry, any Python object, which
// load_state_dict hands to set_extra_state; `type(self)._version` is the version in the
// metadata. The trampolines (PyModule, PyLayer) ask here.
#include <typeinfo>

#include "nn.h"

#include "ember/nn/module.h"

namespace ember::python {

namespace {

// module.py's _IncompatibleKeys and Module.get_extra_state (set at import; kept for the
// process's life, so never released after the interpreter is gone).
PyObject* g_incompatible_keys = nullptr;
PyObject* g_base_get_extra_state = nullptr;

// The module whose state_dict() Python called (StateDictRoot): only its _register_state_dict_hook
// hooks may replace the result, as in PyTorch, where a child's returned dict is dropped.
thread_local const nn::Module* t_state_dict_root = nullptr;

py::handle object_of(const void* self, const std::type_info& type) {
  return py::detail::get_object_handle(self, py::detail::get_type_info(type));
}

// The module's hook dict `name` with its hooks as a list (empty when it has none).
py::list hooks_of(py::handle self, const char* name) {
  py::object dict = py::getattr(self, "__dict__", py::none());
  if (dict.is_none()) return py::list();
  py::object hooks = dict.attr("get")(name);
  if (hooks.is_none()) return py::list();
  return py::list(hooks.attr("values")());
}

py::list str_list(const std::vector<std::string>& v) {
  py::list l;
  for (const auto& s : v) l.append(py::str(s));
  return l;
}

py::dict metadata_to_py(const nn::LocalMetadata& md) {
  py::dict d;
  for (const auto& [k, v] : md) d[py::str(k)] = value_to_py(v);
  return d;
}

// The metadata key of a module's prefix ("lin." -> "lin", "" -> "").
std::string metadata_key(const std::string& prefix) {
  return prefix.empty() ? prefix : prefix.substr(0, prefix.size() - 1);
}

void run_state_dict_pre_hooks(nn::Module& m, const std::string& prefix, bool keep_vars) {
  py::gil_scoped_acquire gil;
  py::object self = module_to_py(m.shared_from_this());
  for (auto hook : hooks_of(self, "_state_dict_pre_hooks")) hook(self, prefix, keep_vars);
}

void run_state_dict_post_hooks(nn::Module& m, nn::StateDict& destination, const std::string& prefix,
                               nn::LocalMetadata& local_metadata) {
  py::gil_scoped_acquire gil;
  py::object self = module_to_py(m.shared_from_this());
  py::list hooks = hooks_of(self, "_state_dict_hooks");
  if (hooks.empty()) return;
  py::object dest = state_dict_to_py(destination);
  // The hooks get the dict that destination._metadata holds for this module, as in PyTorch.
  py::dict local = metadata_to_py(local_metadata);
  if (py::hasattr(dest, "_metadata")) dest.attr("_metadata")[py::str(metadata_key(prefix))] = local;
  for (auto hook : hooks) {
    py::object result = hook(self, dest, prefix, local);
    if (py::bool_(py::getattr(hook, "_from_public_api", py::bool_(false)))) {
      if (!result.is_none()) {
        PyErr_SetString(PyExc_RuntimeError, "state_dict post-hook must return None");
        throw py::error_already_set();
      }
    } else if (!result.is_none() && (!t_state_dict_root || t_state_dict_root == &m)) {
      dest = result;  // the root's _register_state_dict_hook may return a new state_dict
    }
  }
  auto metadata = std::move(destination.metadata);
  destination = state_dict_from_py(dest);
  if (!destination.metadata) destination.metadata = std::move(metadata);
  local_metadata = metadata_from_py(local);
}

void run_load_pre_hooks(nn::Module& m, nn::StateDict& state_dict, const std::string& prefix,
                        nn::LocalMetadata& local_metadata, bool strict,
                        std::vector<std::string>& missing_keys,
                        std::vector<std::string>& unexpected_keys,
                        std::vector<std::string>& error_msgs) {
  py::gil_scoped_acquire gil;
  py::object self = module_to_py(m.shared_from_this());
  py::list hooks = hooks_of(self, "_load_state_dict_pre_hooks");
  if (hooks.empty()) return;
  py::object sd = state_dict_to_py(state_dict);
  py::dict md = metadata_to_py(local_metadata);
  py::list missing = str_list(missing_keys), unexpected = str_list(unexpected_keys),
           errors = str_list(error_msgs);
  // Each is a _WrappedHook (module.py) that passes the module first when registered so.
  for (auto hook : hooks) hook(sd, prefix, md, strict, missing, unexpected, errors);
  auto metadata = std::move(state_dict.metadata);
  state_dict = state_dict_from_py(sd);
  state_dict.metadata = std::move(metadata);
  local_metadata = metadata_from_py(md);
  missing_keys = py::cast<std::vector<std::string>>(missing);
  unexpected_keys = py::cast<std::vector<std::string>>(unexpected);
  error_msgs = py::cast<std::vector<std::string>>(errors);
}

void run_load_post_hooks(nn::Module& m, nn::IncompatibleKeys& keys) {
  py::gil_scoped_acquire gil;
  py::object self = module_to_py(m.shared_from_this());
  py::list hooks = hooks_of(self, "_load_state_dict_post_hooks");
  if (hooks.empty()) return;
  py::list missing = str_list(keys.missing_keys), unexpected = str_list(keys.unexpected_keys);
  py::object incompatible = py::handle(g_incompatible_keys)(missing, unexpected);
  for (auto hook : hooks) {
    py::object out = hook(self, incompatible);
    if (!out.is_none()) {
      // PyTorch's assert, text and all (its missing spaces too).
      PyErr_SetString(PyExc_AssertionError,
                      "Hooks registered with ``register_load_state_dict_post_hook`` are not"
                      "expected to return new values, if incompatible_keys need to be modified,"
                      "it should be done inplace.");
      throw py::error_already_set();
    }
  }
  // The hooks may have edited the lists in place (clearing them suppresses the strict error).
  keys.missing_keys = py::cast<std::vector<std::string>>(missing);
  keys.unexpected_keys = py::cast<std::vector<std::string>>(unexpected);
}

}  // namespace

StateDictRoot::StateDictRoot(const nn::Module* root) : previous_(t_state_dict_root) {
  t_state_dict_root = root;
}
StateDictRoot::~StateDictRoot() { t_state_dict_root = previous_; }

bool py_has_extra_state(const void* self, const std::type_info& type) {
  py::gil_scoped_acquire gil;
  py::handle obj = object_of(self, type);
  if (!obj || !g_base_get_extra_state) return false;
  py::object method = py::getattr(py::type::handle_of(obj), "get_extra_state", py::none());
  return !method.is_none() && method.ptr() != g_base_get_extra_state;
}

Value py_get_extra_state(const void* self, const std::type_info& type) {
  py::gil_scoped_acquire gil;
  py::handle obj = object_of(self, type);
  py::object state = obj.attr("get_extra_state")();
  Value v;
  if (!try_py_to_value(state, v)) v = opaque_py_value(state);
  return v;
}

void py_set_extra_state(const void* self, const std::type_info& type, const Value& state) {
  py::gil_scoped_acquire gil;
  object_of(self, type).attr("set_extra_state")(value_to_py(state));
}

std::optional<int64_t> py_version(const void* self, const std::type_info& type) {
  py::gil_scoped_acquire gil;
  py::handle obj = object_of(self, type);
  if (!obj) return std::nullopt;
  // The first class in the MRO that sets _version decides; a bound C++ class (whose _version
  // attribute only mirrors its C++ version()) leaves it to C++.
  for (auto cls : py::type::handle_of(obj).attr("__mro__")) {
    py::object own = cls.attr("__dict__").attr("get")("_version");
    const auto* info = py::detail::get_type_info(reinterpret_cast<PyTypeObject*>(cls.ptr()));
    if (info && reinterpret_cast<PyObject*>(info->type) == cls.ptr()) return std::nullopt;
    if (own.is_none()) continue;
    if (!py::isinstance<py::int_>(own) || py::isinstance<py::bool_>(own)) return std::nullopt;
    return py::cast<int64_t>(own);
  }
  return std::nullopt;
}

void init_nn_module_state_hooks(py::module_& m) {
  m.def("_set_state_dict_support", [](py::object incompatible_keys, py::object base_get_extra_state) {
    g_incompatible_keys = incompatible_keys.release().ptr();
    g_base_get_extra_state = base_get_extra_state.release().ptr();
  });
  // Once per module, when module.py first makes its hook dicts (Note [Python state_dict hooks]).
  m.def("_install_state_dict_hooks", [](nn::Module& self) {
    if (self.has_state_dict_pre_hook(&run_state_dict_pre_hooks)) return;  // already
    self.register_state_dict_pre_hook(&run_state_dict_pre_hooks);
    self.register_state_dict_post_hook(&run_state_dict_post_hooks);
    self.register_load_state_dict_pre_hook(&run_load_pre_hooks);
    self.register_load_state_dict_post_hook(&run_load_post_hooks);
  });
}

}  // namespace ember::python
