// ember::quantization's workflow (prepare / convert / ..., quantize.h) and the quantized
// modules' from_float, bound for ember/ao/quantization/quantize.py: Python's dicts and sets keyed
// by Python classes become the C++ lookups (Note [Module classes across the front end]), so a
// user's Python class works as a key or a target; Python hooks travel with swapped modules.
#include "nn.h"
#include "quantization.h"

#include "ember/nn/quantized.h"
#include "ember/quantization/quantize.h"

namespace ember::python {

namespace {

namespace q = ember::quantization;
namespace nnq = ember::nn::quantized;

py::object py_of(nn::Module& m) { return module_to_py(m.shared_from_this()); }

py::object class_of(nn::Module& m) {
  return py::reinterpret_borrow<py::object>(py::type::handle_of(py_of(m)));
}

/// A Python mapping {float class: target class} as a lookup whose converter calls
/// `target.<method>(module)` (from_float, or from_observed for custom modules).
q::MappingLookup lookup_from_py(py::object mapping, const char* method) {
  if (mapping.is_none()) return nullptr;
  py::dict table = py::dict(mapping);  // a snapshot, as torch iterates the dict it was given
  return [table, method](nn::Module& m) -> std::optional<q::Converter> {
    py::gil_scoped_acquire gil;
    py::object cls = class_of(m);
    if (!table.contains(cls)) return std::nullopt;
    py::object target = table[cls];
    return q::Converter([target, method](nn::Module& mod) -> std::shared_ptr<nn::Module> {
      py::gil_scoped_acquire gil2;
      return module_from_py(target.attr(method)(py_of(mod)));
    });
  };
}

/// A Python collection of classes as a class set (None → null: the default).
q::ModuleClassSet set_from_py(py::object classes) {
  if (classes.is_none()) return nullptr;
  py::set s = py::set(classes);
  return [s](nn::Module& m) {
    py::gil_scoped_acquire gil;
    return s.contains(class_of(m));
  };
}

/// torch's qconfig_dict: keys are classes or names, values QConfigs or None.
q::QConfigDict qconfig_dict_from_py(py::object d) {
  q::QConfigDict out;
  if (d.is_none()) return out;
  py::dict by_class;
  for (auto item : py::dict(d)) {
    if (py::isinstance<py::str>(item.first)) {
      out.by_name[item.first.cast<std::string>()] = qconfig_from_py(item.second);
    } else {
      by_class[item.first] = item.second;
    }
  }
  if (py::len(by_class) > 0) {
    // Converted once, so each module of a class shares one QConfig.
    auto converted = std::make_shared<std::vector<std::pair<py::object, q::QConfigPtr>>>();
    for (auto item : by_class) {
      converted->emplace_back(py::reinterpret_borrow<py::object>(item.first),
                              qconfig_from_py(item.second));
    }
    out.by_class = [converted](nn::Module& m) -> std::optional<q::QConfigPtr> {
      py::gil_scoped_acquire gil;
      py::object cls = class_of(m);
      for (const auto& [k, v] : *converted)
        if (k.is(cls)) return v;
      return std::nullopt;
    };
  }
  return out;
}

q::PrepareCustomConfig prepare_custom_from_py(py::object d) {
  q::PrepareCustomConfig out;
  if (d.is_none()) return out;
  py::dict dict(d);
  if (dict.contains("float_to_observed_custom_module_class")) {
    out.float_to_observed =
        lookup_from_py(dict["float_to_observed_custom_module_class"], "from_float");
  }
  if (dict.contains("non_traceable_module_name")) {
    for (auto n : py::iterable(dict["non_traceable_module_name"]))
      out.non_traceable_module_name.push_back(n.cast<std::string>());
  }
  if (dict.contains("non_traceable_module_class")) {
    out.non_traceable_module_class = set_from_py(dict["non_traceable_module_class"]);
  }
  return out;
}

q::ConvertCustomConfig convert_custom_from_py(py::object d) {
  q::ConvertCustomConfig out;
  if (d.is_none()) return out;
  py::dict dict(d);
  if (dict.contains("observed_to_quantized_custom_module_class")) {
    out.observed_to_quantized =
        lookup_from_py(dict["observed_to_quantized_custom_module_class"], "from_observed");
  }
  return out;
}

/// torch's DEFAULT_MODULE_TO_ACT_POST_PROCESS: {class: observer factory}, for modules in
/// training mode.
q::SpecialActPostProcess special_from_py(py::object table) {
  if (table.is_none() || py::len(table) == 0) return nullptr;
  py::dict d = py::dict(table);
  return [d](nn::Module& m) -> q::ModuleFactory {
    if (!m.is_training()) return nullptr;
    py::gil_scoped_acquire gil;
    py::object cls = class_of(m);
    if (!d.contains(cls)) return nullptr;
    py::object factory = d[cls];
    return [factory]() -> std::shared_ptr<nn::Module> {
      py::gil_scoped_acquire gil2;
      return module_from_py(factory());
    };
  };
}

std::shared_ptr<nn::Module> as_module(py::handle obj, const char* fn) {
  EMBER_CHECK_TYPE(py::isinstance<nn::Module>(obj), fn, "(): expected an ember.nn.Module, got ",
                   Py_TYPE(obj.ptr())->tp_name);
  return module_from_py(obj);
}

// swap_module's front-end part: the Python hooks (ember/ao/quantization/quantize.py).
void copy_python_hooks(nn::Module& from, nn::Module& to) {
  if (!from.front_end_hooks()) return;
  py::gil_scoped_acquire gil;
  py::module_::import("ember.ao.quantization.quantize")
      .attr("_copy_front_end_hooks")(py_of(from), py_of(to));
}

std::string python_class_repr(const nn::Module& m) {
  py::gil_scoped_acquire gil;
  return py::str(class_of(const_cast<nn::Module&>(m)));
}

// A Python observer's quant_min / quant_max (torch reads them as attributes).
std::optional<std::pair<int64_t, int64_t>> python_quant_range(nn::Module& m) {
  py::gil_scoped_acquire gil;
  py::object obj = py_of(m);
  if (!py::hasattr(obj, "quant_min") || !py::hasattr(obj, "quant_max")) return std::nullopt;
  return std::make_pair(obj.attr("quant_min").cast<int64_t>(),
                        obj.attr("quant_max").cast<int64_t>());
}

template <class T>
void bind_from_float(const char* doc) {
  py::type cls = py::type::of<T>();
  cls.attr("from_float") = py::staticmethod(py::cpp_function(
      [](py::handle mod) { return T::from_float(*as_module(mod, "from_float")); }, py::arg("mod"),
      doc));
}

}  // namespace

void init_quantization_workflow(py::module_& m) {
  py::module_ w = m.def_submodule("_qworkflow", "ember::quantization (prepare / convert)");
  q::set_front_end_hook_copy(&copy_python_hooks);
  q::set_module_class_repr(&python_class_repr);
  q::set_front_end_quant_range(&python_quant_range);

  const char* ff = "The quantized module of an observed float (or QAT) module.";
  bind_from_float<nnq::Quantize>(ff);
  // DeQuantize.from_float ignores its argument (torch's accepts anything, None included).
  py::type::of<nnq::DeQuantize>().attr("from_float") = py::staticmethod(py::cpp_function(
      [](py::handle) { return std::make_shared<nnq::DeQuantize>(); }, py::arg("mod"), ff));
  bind_from_float<nnq::Conv1d>(ff);
  bind_from_float<nnq::Conv2d>(ff);
  bind_from_float<nnq::ConvReLU1d>(ff);
  bind_from_float<nnq::ConvReLU2d>(ff);
  bind_from_float<nnq::Linear>(ff);
  bind_from_float<nnq::LinearReLU>(ff);
  bind_from_float<nnq::dynamic::Linear>(ff);
  bind_from_float<nnq::ReLU6>(ff);
  bind_from_float<nnq::Hardswish>(ff);
  bind_from_float<nnq::Dropout>(ff);
  bind_from_float<nnq::BatchNorm2d>(ff);
  bind_from_float<nnq::BNReLU2d>(ff);
  bind_from_float<nnq::QFunctional>(ff);

  // Note [C++ hooks seen from Python]: Python's `_forward_hooks` / `_forward_pre_hooks` list a
  // module's C++ hooks beside its Python ones (python/ember/nn/modules/_native_hooks.py). For
  // each C++ hook in running order: (observer key, 0) for prepare's observer hooks (Python
  // shows torch's function), else (0, id) and a callable running the hook. nn::Module hands its
  // C++ hooks out only by taking them (take_forward_hooks, as fuse_modules moves them); they
  // are registered again at once in the same order, so other hooks get new ids.
  w.def("_native_forward_hooks", [](py::handle module, bool pre) {
    auto m = as_module(module, "_forward_hooks");
    py::list out;
    if (pre) {
      for (auto& hook : m->take_forward_pre_hooks()) {
        const auto* observer = hook.target<q::ObserverPreHook>();
        py::object fn = py::none();
        if (!observer) {
          fn = py::cpp_function([hook](py::handle self, py::tuple args) -> py::object {
            auto mod = as_module(self, "forward pre-hook");
            std::vector<Value> inputs;
            for (py::handle a : args) inputs.push_back(py_to_value(a, "hook input"));
            auto replaced = hook(*mod, inputs);
            if (!replaced) return py::none();
            py::tuple result(replaced->size());
            for (size_t i = 0; i < replaced->size(); ++i) result[i] = value_to_py((*replaced)[i]);
            return result;
          });
        }
        const unsigned key = observer ? observer->key : 0;
        const unsigned id = m->register_forward_pre_hook(std::move(hook));
        out.append(py::make_tuple(key, key ? 0 : id, fn));
      }
    } else {
      for (auto& hook : m->take_forward_hooks()) {
        const auto* observer = hook.target<q::ObserverHook>();
        py::object fn = py::none();
        if (!observer) {
          fn = py::cpp_function(
              [hook](py::handle self, py::tuple args, py::object output) -> py::object {
                auto mod = as_module(self, "forward hook");
                std::vector<Value> inputs;
                for (py::handle a : args) inputs.push_back(py_to_value(a, "hook input"));
                auto replaced = hook(*mod, inputs, py_to_value(output, "forward result"));
                return replaced ? value_to_py(*replaced) : py::none();
              });
        }
        const unsigned key = observer ? observer->key : 0;
        const unsigned id = m->register_forward_hook(std::move(hook));
        out.append(py::make_tuple(key, key ? 0 : id, fn));
      }
    }
    return out;
  });
  // Removes a C++ hook: an observer hook by its key, another by its id.
  w.def("_remove_native_hook", [](py::handle module, bool pre, unsigned key, unsigned id) {
    auto m = as_module(module, "_forward_hooks");
    if (!key) {
      m->remove_hook(id);
    } else if (pre) {
      for (auto& hook : m->take_forward_pre_hooks()) {
        const auto* observer = hook.target<q::ObserverPreHook>();
        if (!observer || observer->key != key) m->register_forward_pre_hook(std::move(hook));
      }
    } else {
      for (auto& hook : m->take_forward_hooks()) {
        const auto* observer = hook.target<q::ObserverHook>();
        if (!observer || observer->key != key) m->register_forward_hook(std::move(hook));
      }
    }
  });

  w.def("propagate_qconfig_",
        [](py::handle module, py::object qconfig_dict, py::object custom) {
          q::propagate_qconfig_(*as_module(module, "propagate_qconfig_"),
                                qconfig_dict_from_py(qconfig_dict), prepare_custom_from_py(custom));
        });
  w.def("add_observer_", [](py::handle module, py::object propagation_list,
                            py::object non_leaf, py::object custom_mapping, py::object special) {
    q::add_observer_(*as_module(module, "add_observer_"), set_from_py(propagation_list),
                     set_from_py(non_leaf), lookup_from_py(custom_mapping, "from_float"),
                     special_from_py(special));
  });
  w.def("prepare", [](py::handle model, bool inplace, py::object allow_list,
                      py::object non_leaf, py::object custom, py::object special) {
    return module_to_py(q::prepare(as_module(model, "prepare"), inplace, set_from_py(allow_list),
                                   set_from_py(non_leaf), prepare_custom_from_py(custom),
                                   special_from_py(special)));
  });
  w.def("convert", [](py::handle module, py::object mapping, bool inplace, bool remove_qconfig,
                      bool is_reference, py::object custom) {
    return module_to_py(q::convert(as_module(module, "convert"),
                                   lookup_from_py(mapping, "from_float"), inplace, remove_qconfig,
                                   is_reference, convert_custom_from_py(custom)));
  });
  w.def("swap_module", [](py::handle mod, py::object mapping, py::object custom) {
    return module_to_py(q::swap_module(as_module(mod, "swap_module"),
                                       lookup_from_py(mapping, "from_float"),
                                       lookup_from_py(custom, "from_observed")));
  });
  w.def("add_quant_dequant", [](py::handle module) {
    return module_to_py(q::add_quant_dequant(as_module(module, "add_quant_dequant")));
  });
  w.def("is_activation_post_process", [](py::handle m) {
    return py::isinstance<nn::Module>(m) &&
           q::is_activation_post_process(m.cast<nn::Module&>());
  });
}

}  // namespace ember::python
