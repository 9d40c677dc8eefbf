// ember.optim: the C++ optimizers (SGD, Adam, AdamW) and LR schedulers, bound. Groups hold the
// very tensor handles given (so `opt.param_groups[0]['params'][0] is model.weight`: Note
// [Python object preservation]); ember/optim/optimizer.py wraps each group in a dict-like view
// whose reads and writes go to the C++ group's options (Note [Optimizer state layout]).
#include <pybind11/functional.h>

#include "nn.h"
#include "tensor_api.h"

#include "ember/optim/adam.h"
#include "ember/optim/adaptive.h"
#include "ember/optim/asgd_rprop.h"
#include "ember/optim/lbfgs.h"
#include "ember/optim/lr_scheduler.h"
#include "ember/optim/optimizer.h"
#include "ember/optim/schedulers.h"
#include "ember/optim/sgd.h"

namespace ember::python {

namespace {

// A Python lr lambda (LambdaLR keeps it, so state_dict can save a callable object's state).
struct PyLrLambda {
  py::object f;
  double operator()(int64_t epoch) const {
    py::gil_scoped_acquire gil;
    return f(epoch).cast<double>();
  }
};


using namespace ember::optim;

// PyTorch keeps betas (and Rprop's etas and step_sizes) as tuples; every other list option as
// a list.
py::object option_to_py(const std::string& key, const Value& v) {
  py::object o = value_to_py(v);
  if ((key == "betas" || key == "etas" || key == "step_sizes") && py::isinstance<py::list>(o))
    return py::tuple(o);
  return o;
}

py::dict dict_to_py(const ValueDict& d) {
  py::dict out;
  for (const auto& [k, v] : d) out[py::str(k)] = option_to_py(k, v);
  return out;
}

ValueDict dict_from_py(py::handle d, const char* skip = nullptr) {
  ValueDict out;
  for (auto item : py::reinterpret_borrow<py::dict>(d)) {
    auto key = py::cast<std::string>(item.first);
    if (skip && key == skip) continue;
    out.set(key, py_to_value(item.second, "option value"));
  }
  return out;
}

py::list tensors_to_py(const std::vector<Tensor>& ts) {
  py::list l;
  for (const auto& t : ts) l.append(py::reinterpret_steal<py::object>(wrap(t)));
  return l;
}

// PyTorch's Optimizer refuses a lone tensor (iterating it would give its rows), naming it as
// torch.typename does ("ember.FloatTensor").
void check_not_a_tensor(py::handle params) {
  if (!is_tensor(params.ptr())) return;
  const Tensor& t = unpack(params.ptr());
  EMBER_FAIL_KIND(ErrorKind::Type, "params argument given to the optimizer should be an iterable of "
                  "Tensors or dicts, but got ", type_string(t.dtype(), t.device()));
}

std::vector<Tensor> params_from_py(py::handle params) {
  std::vector<Tensor> out;
  check_not_a_tensor(params);
  for (auto p : params) {
    EMBER_CHECK_TYPE(is_tensor(p.ptr()), "optimizer can only optimize Tensors, but one of the "
                     "params is ", Py_TYPE(p.ptr())->tp_name);
    out.push_back(unpack(p.ptr()));
  }
  return out;
}

// One group from a dict {"params": ..., options...}: a single tensor is a one-tensor group.
ParamGroup group_from_py(py::handle d) {
  EMBER_CHECK_TYPE(py::isinstance<py::dict>(d), "param group must be a dict");
  py::object params = py::reinterpret_borrow<py::dict>(d)["params"];
  std::vector<Tensor> ps;
  if (is_tensor(params.ptr())) {
    ps.push_back(unpack(params.ptr()));
  } else {
    EMBER_CHECK_TYPE(!py::isinstance<py::set>(params),
                     "optimizer parameters need to be organized in ordered collections, but the "
                     "ordering of tensors in sets will change between runs. Please use a list "
                     "instead.");
    ps = params_from_py(params);
  }
  return ParamGroup(std::move(ps), dict_from_py(d, "params"));
}

std::vector<ParamGroup> groups_from_py(py::handle params) {
  check_not_a_tensor(params);
  py::list items = py::list(params.is_none() ? py::list() : py::reinterpret_borrow<py::object>(params));
  std::vector<ParamGroup> groups;
  if (items.size() > 0 && py::isinstance<py::dict>(items[0])) {
    for (auto d : items) groups.push_back(group_from_py(d));
  } else if (items.size() > 0) {
    groups.emplace_back(params_from_py(items));
  }
  return groups;
}

py::dict state_dict_to_py(const OptimizerStateDict& sd) {
  py::dict state;
  for (const auto& [i, s] : sd.state) state[py::int_(i)] = dict_to_py(s);
  py::list groups;
  for (const auto& g : sd.param_groups) {
    py::dict d;
    for (const auto& [k, v] : g) d[py::str(k)] = option_to_py(k, v);
    groups.append(d);
  }
  py::dict out;
  out["state"] = state;
  out["param_groups"] = groups;
  return out;
}

OptimizerStateDict state_dict_from_py(py::handle d) {
  OptimizerStateDict sd;
  auto dict = py::reinterpret_borrow<py::dict>(d);
  for (auto item : py::reinterpret_borrow<py::dict>(dict["state"])) {
    sd.state[py::cast<int64_t>(item.first)] = dict_from_py(item.second);
  }
  for (auto g : dict["param_groups"]) sd.param_groups.push_back(dict_from_py(g));
  return sd;
}

ParamGroup& group_at(Optimizer& opt, int64_t i) {
  auto& groups = opt.param_groups();
  EMBER_CHECK_INDEX(i >= 0 && i < static_cast<int64_t>(groups.size()), "list index out of range");
  return groups[static_cast<size_t>(i)];
}

void bind_optimizer_base(py::module_& m) {
  py::class_<Optimizer, std::shared_ptr<Optimizer>> cls(m, "Optimizer");
  cls.def("__repr__", &Optimizer::repr);
  cls.def("zero_grad", &Optimizer::zero_grad, py::arg("set_to_none") = true);
  cls.def("step", [](Optimizer& self, py::object closure) -> py::object {
    if (closure.is_none()) {
      self.step();
      return py::none();
    }
    py::object loss = py::none();
    self.step([&]() -> Tensor {
      loss = closure();
      return is_tensor(loss.ptr()) ? unpack(loss.ptr()) : Tensor();
    });
    return loss;
  }, py::arg("closure") = py::none());
  cls.def("add_param_group", [](Optimizer& self, py::handle group) {
    self.add_param_group(group_from_py(group));
  }, py::arg("param_group"));
  cls.def("state_dict", [](const Optimizer& self) { return state_dict_to_py(self.state_dict()); });
  cls.def("load_state_dict", [](Optimizer& self, py::handle sd) {
    self.load_state_dict(state_dict_from_py(sd));
  }, py::arg("state_dict"));
  cls.def_property_readonly("defaults", [](const Optimizer& self) {
    return dict_to_py(self.defaults());
  });
  cls.def_property_readonly("state", [](const Optimizer& self) {
    // Keyed by the parameters' Python objects, in group order, as PyTorch's.
    py::dict out;
    for (const auto& g : self.param_groups()) {
      for (const auto& p : g.params()) {
        auto it = self.state().find(p.impl());
        if (it == self.state().end() || it->second.empty()) continue;
        out[py::reinterpret_steal<py::object>(wrap(p))] = dict_to_py(it->second);
      }
    }
    return out;
  });
  cls.def_property("_step_count", &Optimizer::step_count, &Optimizer::set_step_count);

  // The group views of ember/optim/optimizer.py read and write through these.
  cls.def("_group_count", [](Optimizer& self) { return self.param_groups().size(); });
  cls.def("_group_keys", [](Optimizer& self, int64_t i) { return group_at(self, i).options().keys(); });
  cls.def("_group_params", [](Optimizer& self, int64_t i) {
    return tensors_to_py(group_at(self, i).params());
  });
  cls.def("_group_set_params", [](Optimizer& self, int64_t i, py::handle params) {
    group_at(self, i).params() =
        is_tensor(params.ptr()) ? std::vector<Tensor>{unpack(params.ptr())} : params_from_py(params);
  });
  cls.def("_group_get", [](Optimizer& self, int64_t i, const std::string& key) {
    return option_to_py(key, group_at(self, i).options().at(key));
  });
  cls.def("_group_set", [](Optimizer& self, int64_t i, const std::string& key, py::handle value) {
    group_at(self, i).options().set(key, py_to_value(value, "option value"));
  });
  cls.def("_group_del", [](Optimizer& self, int64_t i, const std::string& key) {
    EMBER_CHECK_KIND(ErrorKind::Key, group_at(self, i).options().erase(key), key);
  });
}

void bind_optimizers(py::module_& m) {
  const auto none = py::none();
  py::class_<SGD, Optimizer, std::shared_ptr<SGD>>(m, "SGD")
      .def(py::init([](py::handle params, std::optional<double> lr, double momentum,
                       double dampening, double weight_decay, bool nesterov, bool maximize,
                       py::object foreach, bool differentiable) {
             EMBER_CHECK_VALUE(foreach.is_none() || !foreach.cast<bool>(),
                               "foreach=True is not supported: ember runs the single-tensor "
                               "algorithm");
             EMBER_CHECK_VALUE(!differentiable, "differentiable=True is not supported");
             SGDOptions o{lr, momentum, dampening, weight_decay, nesterov, maximize};
             return std::make_shared<SGD>(groups_from_py(params), o);
           }),
           // lr=1e-3 by default, as PyTorch 2.2+ (the recipe relies on it); None: required.
           py::arg("params"), py::arg("lr") = 1e-3, py::arg("momentum") = 0.0,
           py::arg("dampening") = 0.0, py::arg("weight_decay") = 0.0, py::arg("nesterov") = false,
           py::kw_only(), py::arg("maximize") = false, py::arg("foreach") = none,
           py::arg("differentiable") = false);
  py::class_<Adam, Optimizer, std::shared_ptr<Adam>>(m, "Adam")
      .def(py::init([](py::handle params, double lr, std::array<double, 2> betas, double eps,
                       double weight_decay, bool amsgrad, py::object foreach, bool maximize,
                       bool capturable, bool differentiable, bool fused) {
             EMBER_CHECK_VALUE((foreach.is_none() || !foreach.cast<bool>()) && !capturable &&
                                   !differentiable && !fused,
                               "foreach, capturable, differentiable and fused are not supported: "
                               "ember runs the single-tensor algorithm");
             AdamOptions o{lr, betas, eps, weight_decay, amsgrad, maximize};
             return std::make_shared<Adam>(groups_from_py(params), o);
           }),
           py::arg("params"), py::arg("lr") = 1e-3,
           py::arg("betas") = std::array<double, 2>{0.9, 0.999}, py::arg("eps") = 1e-8,
           py::arg("weight_decay") = 0.0, py::arg("amsgrad") = false, py::kw_only(),
           py::arg("foreach") = none, py::arg("maximize") = false, py::arg("capturable") = false,
           py::arg("differentiable") = false, py::arg("fused") = false);
  py::class_<AdamW, Optimizer, std::shared_ptr<AdamW>>(m, "AdamW")
      .def(py::init([](py::handle params, double lr, std::array<double, 2> betas, double eps,
                       double weight_decay, bool amsgrad, bool maximize, py::object foreach,
                       bool capturable) {
             EMBER_CHECK_VALUE((foreach.is_none() || !foreach.cast<bool>()) && !capturable,
                               "foreach and capturable are not supported: ember runs the "
                               "single-tensor algorithm");
             AdamWOptions o{lr, betas, eps, weight_decay, amsgrad, maximize};
             return std::make_shared<AdamW>(groups_from_py(params), o);
           }),
           py::arg("params"), py::arg("lr") = 1e-3,
           py::arg("betas") = std::array<double, 2>{0.9, 0.999}, py::arg("eps") = 1e-8,
           py::arg("weight_decay") = 1e-2, py::arg("amsgrad") = false, py::kw_only(),
           py::arg("maximize") = false, py::arg("foreach") = none, py::arg("capturable") = false);
}

// foreach=None/True/False is kept in the group (ember runs the single-tensor algorithm).
std::optional<bool> foreach_flag(py::handle foreach) {
  if (foreach.is_none()) return std::nullopt;
  return foreach.cast<bool>();
}

void bind_adaptive(py::module_& m) {
  const auto none = py::none();
  using Pair = std::array<double, 2>;
  py::class_<RMSprop, Optimizer, std::shared_ptr<RMSprop>>(m, "RMSprop")
      .def(py::init([](py::handle params, double lr, double alpha, double eps, double weight_decay,
                       double momentum, bool centered, py::object foreach, bool maximize,
                       bool differentiable) {
             EMBER_CHECK_VALUE(!differentiable, "differentiable=True is not supported");
             RMSpropOptions o{lr, alpha, eps, weight_decay, momentum, centered, foreach_flag(foreach),
                              maximize};
             return std::make_shared<RMSprop>(groups_from_py(params), o);
           }),
           py::arg("params"), py::arg("lr") = 1e-2, py::arg("alpha") = 0.99, py::arg("eps") = 1e-8,
           py::arg("weight_decay") = 0.0, py::arg("momentum") = 0.0, py::arg("centered") = false,
           py::arg("foreach") = none, py::arg("maximize") = false,
           py::arg("differentiable") = false);
  py::class_<Adagrad, Optimizer, std::shared_ptr<Adagrad>>(m, "Adagrad")
      .def(py::init([](py::handle params, double lr, double lr_decay, double weight_decay,
                       double initial_accumulator_value, double eps, py::object foreach,
                       bool maximize) {
             AdagradOptions o{lr, lr_decay, weight_decay, initial_accumulator_value, eps,
                              foreach_flag(foreach), maximize};
             return std::make_shared<Adagrad>(groups_from_py(params), o);
           }),
           py::arg("params"), py::arg("lr") = 1e-2, py::arg("lr_decay") = 0.0,
           py::arg("weight_decay") = 0.0, py::arg("initial_accumulator_value") = 0.0,
           py::arg("eps") = 1e-10, py::arg("foreach") = none, py::kw_only(),
           py::arg("maximize") = false);
  py::class_<Adadelta, Optimizer, std::shared_ptr<Adadelta>>(m, "Adadelta")
      .def(py::init([](py::handle params, double lr, double rho, double eps, double weight_decay,
                       py::object foreach, bool maximize) {
             AdadeltaOptions o{lr, rho, eps, weight_decay, foreach_flag(foreach), maximize};
             return std::make_shared<Adadelta>(groups_from_py(params), o);
           }),
           py::arg("params"), py::arg("lr") = 1.0, py::arg("rho") = 0.9, py::arg("eps") = 1e-6,
           py::arg("weight_decay") = 0.0, py::arg("foreach") = none, py::kw_only(),
           py::arg("maximize") = false);
  py::class_<Adamax, Optimizer, std::shared_ptr<Adamax>>(m, "Adamax")
      .def(py::init([](py::handle params, double lr, Pair betas, double eps, double weight_decay,
                       py::object foreach, bool maximize) {
             AdamaxOptions o{lr, betas, eps, weight_decay, foreach_flag(foreach), maximize};
             return std::make_shared<Adamax>(groups_from_py(params), o);
           }),
           py::arg("params"), py::arg("lr") = 2e-3, py::arg("betas") = Pair{0.9, 0.999},
           py::arg("eps") = 1e-8, py::arg("weight_decay") = 0.0, py::arg("foreach") = none,
           py::kw_only(), py::arg("maximize") = false);
  py::class_<NAdam, Optimizer, std::shared_ptr<NAdam>>(m, "NAdam")
      .def(py::init([](py::handle params, double lr, Pair betas, double eps, double weight_decay,
                       double momentum_decay, py::object foreach) {
             NAdamOptions o{lr, betas, eps, weight_decay, momentum_decay, foreach_flag(foreach)};
             return std::make_shared<NAdam>(groups_from_py(params), o);
           }),
           py::arg("params"), py::arg("lr") = 2e-3, py::arg("betas") = Pair{0.9, 0.999},
           py::arg("eps") = 1e-8, py::arg("weight_decay") = 0.0, py::arg("momentum_decay") = 4e-3,
           py::arg("foreach") = none);
  py::class_<RAdam, Optimizer, std::shared_ptr<RAdam>>(m, "RAdam")
      .def(py::init([](py::handle params, double lr, Pair betas, double eps, double weight_decay,
                       py::object foreach) {
             RAdamOptions o{lr, betas, eps, weight_decay, foreach_flag(foreach)};
             return std::make_shared<RAdam>(groups_from_py(params), o);
           }),
           py::arg("params"), py::arg("lr") = 1e-3, py::arg("betas") = Pair{0.9, 0.999},
           py::arg("eps") = 1e-8, py::arg("weight_decay") = 0.0, py::arg("foreach") = none);
  py::class_<ASGD, Optimizer, std::shared_ptr<ASGD>>(m, "ASGD")
      .def(py::init([](py::handle params, double lr, double lambd, double alpha, double t0,
                       double weight_decay, py::object foreach, bool maximize) {
             ASGDOptions o{lr, lambd, alpha, t0, weight_decay, foreach_flag(foreach), maximize};
             return std::make_shared<ASGD>(groups_from_py(params), o);
           }),
           py::arg("params"), py::arg("lr") = 1e-2, py::arg("lambd") = 1e-4,
           py::arg("alpha") = 0.75, py::arg("t0") = 1e6, py::arg("weight_decay") = 0.0,
           py::arg("foreach") = none, py::arg("maximize") = false);
  py::class_<Rprop, Optimizer, std::shared_ptr<Rprop>>(m, "Rprop")
      .def(py::init([](py::handle params, double lr, Pair etas, Pair step_sizes,
                       py::object foreach, bool maximize) {
             RpropOptions o{lr, etas, step_sizes, foreach_flag(foreach), maximize};
             return std::make_shared<Rprop>(groups_from_py(params), o);
           }),
           py::arg("params"), py::arg("lr") = 1e-2, py::arg("etas") = Pair{0.5, 1.2},
           py::arg("step_sizes") = Pair{1e-6, 50}, py::arg("foreach") = none,
           py::arg("maximize") = false);
  // LBFGS: its step needs the closure, and runs it several times (LBFGS::step, not the base's).
  py::class_<LBFGS, Optimizer, std::shared_ptr<LBFGS>>(m, "LBFGS")
      .def(py::init([](py::handle params, double lr, int64_t max_iter, std::optional<int64_t> max_eval,
                       double tolerance_grad, double tolerance_change, int64_t history_size,
                       std::optional<std::string> line_search_fn) {
             LBFGSOptions o{lr, max_iter, max_eval, tolerance_grad, tolerance_change, history_size,
                            line_search_fn};
             return std::make_shared<LBFGS>(groups_from_py(params), o);
           }),
           py::arg("params"), py::arg("lr") = 1, py::arg("max_iter") = 20,
           py::arg("max_eval") = none, py::arg("tolerance_grad") = 1e-7,
           py::arg("tolerance_change") = 1e-9, py::arg("history_size") = 100,
           py::arg("line_search_fn") = none)
      .def("step", [](LBFGS& self, py::object closure) -> py::object {
        EMBER_CHECK_TYPE(!closure.is_none(), "'NoneType' object is not callable");
        py::object loss = py::none();
        bool first = true;
        self.step([&]() -> Tensor {
          py::object l = closure();
          if (first) loss = l;
          first = false;
          EMBER_CHECK_TYPE(is_tensor(l.ptr()), "float() argument must be a string or a real "
                           "number, not '", Py_TYPE(l.ptr())->tp_name, "'");
          return unpack(l.ptr());
        });
        return loss;
      }, py::arg("closure"));
}

PerGroup per_group(py::handle o) {
  if (PyFloat_Check(o.ptr()) || PyLong_Check(o.ptr())) return o.cast<double>();
  return o.cast<std::vector<double>>();
}

void bind_schedulers(py::module_& m) {
  const auto none = py::none();
  py::class_<LRScheduler, std::shared_ptr<LRScheduler>> base(m, "LRScheduler");
  base.def("step", [](LRScheduler& self, std::optional<int64_t> epoch) {
    if (epoch) self.step(*epoch);
    else self.step();
  }, py::arg("epoch") = none);
  base.def("get_last_lr", &LRScheduler::get_last_lr);
  base.def("get_lr", &LRScheduler::get_lr);
  base.def_property_readonly("last_epoch", &LRScheduler::last_epoch);
  base.def_property_readonly("base_lrs", &LRScheduler::base_lrs);
  base.def_property_readonly("optimizer", [](const LRScheduler& self) {
    return py::cast(&self.optimizer(), py::return_value_policy::reference);
  });
  base.def("state_dict", [](const LRScheduler& self) { return dict_to_py(self.state_dict()); });
  base.def("load_state_dict", [](LRScheduler& self, py::handle sd) {
    self.load_state_dict(dict_from_py(sd));
  }, py::arg("state_dict"));

  // Each scheduler keeps its optimizer alive (it holds it by reference).
  const auto keep = py::keep_alive<1, 2>();
  py::class_<StepLR, LRScheduler, std::shared_ptr<StepLR>>(m, "StepLR")
      .def(py::init<Optimizer&, int64_t, double, int64_t, bool>(), keep, py::arg("optimizer"),
           py::arg("step_size"), py::arg("gamma") = 0.1, py::arg("last_epoch") = -1,
           py::arg("verbose") = false);
  py::class_<MultiStepLR, LRScheduler, std::shared_ptr<MultiStepLR>>(m, "MultiStepLR")
      .def(py::init<Optimizer&, std::vector<int64_t>, double, int64_t, bool>(), keep,
           py::arg("optimizer"), py::arg("milestones"), py::arg("gamma") = 0.1,
           py::arg("last_epoch") = -1, py::arg("verbose") = false);
  py::class_<CosineAnnealingLR, LRScheduler, std::shared_ptr<CosineAnnealingLR>>(m, "CosineAnnealingLR")
      .def(py::init<Optimizer&, int64_t, double, int64_t, bool>(), keep, py::arg("optimizer"),
           py::arg("T_max"), py::arg("eta_min") = 0.0, py::arg("last_epoch") = -1,
           py::arg("verbose") = false);
  py::class_<LambdaLR, LRScheduler, std::shared_ptr<LambdaLR>>(m, "LambdaLR")
      .def(py::init([](Optimizer& opt, py::object lr_lambda, int64_t last_epoch, bool verbose) {
             auto one = [](py::object f) -> LambdaLR::LrLambda { return PyLrLambda{f}; };
             if (py::isinstance<py::list>(lr_lambda) || py::isinstance<py::tuple>(lr_lambda)) {
               std::vector<LambdaLR::LrLambda> fs;
               for (auto f : lr_lambda) fs.push_back(one(py::reinterpret_borrow<py::object>(f)));
               return std::make_shared<LambdaLR>(opt, fs, last_epoch, verbose);
             }
             return std::make_shared<LambdaLR>(opt, one(lr_lambda), last_epoch, verbose);
           }),
           keep, py::arg("optimizer"), py::arg("lr_lambda"), py::arg("last_epoch") = -1,
           py::arg("verbose") = false)
      // torch saves None for a function and a copy of the __dict__ of a callable object, last.
      .def("state_dict", [](const LambdaLR& self) {
        py::dict d = dict_to_py(self.state_dict());
        py::object function_type = py::module_::import("types").attr("FunctionType");
        py::list l;
        for (const auto& fn : self.lr_lambdas()) {
          const PyLrLambda* p = fn.target<PyLrLambda>();
          if (p && !py::isinstance(p->f, function_type) && py::hasattr(p->f, "__dict__")) {
            l.append(p->f.attr("__dict__").attr("copy")());
          } else {
            l.append(py::none());
          }
        }
        d["lr_lambdas"] = l;
        return d;
      })
      .def("load_state_dict", [](LambdaLR& self, py::dict sd) {
        py::dict rest;
        py::object saved = py::none();
        for (auto item : sd) {
          if (py::cast<std::string>(item.first) == "lr_lambdas") {
            saved = py::reinterpret_borrow<py::object>(item.second);
          } else {
            rest[item.first] = item.second;
          }
        }
        self.load_state_dict(dict_from_py(rest));
        if (saved.is_none()) return;
        size_t i = 0;
        for (auto entry : saved) {
          if (i < self.lr_lambdas().size() && !entry.is_none()) {
            if (const PyLrLambda* p = self.lr_lambdas()[i].target<PyLrLambda>()) {
              p->f.attr("__dict__").attr("update")(entry);
            }
          }
          ++i;
        }
      }, py::arg("state_dict"));
  py::class_<OneCycleLR, LRScheduler, std::shared_ptr<OneCycleLR>>(m, "OneCycleLR")
      .def(py::init([](Optimizer& opt, py::handle max_lr, std::optional<int64_t> total_steps,
                       std::optional<int64_t> epochs, std::optional<int64_t> steps_per_epoch,
                       double pct_start, std::string anneal_strategy, bool cycle_momentum,
                       py::handle base_momentum, py::handle max_momentum, double div_factor,
                       double final_div_factor, bool three_phase, int64_t last_epoch,
                       bool verbose) {
             OneCycleLROptions o;
             o.max_lr = per_group(max_lr);
             o.total_steps = total_steps;
             o.epochs = epochs;
             o.steps_per_epoch = steps_per_epoch;
             o.pct_start = pct_start;
             o.anneal_strategy = std::move(anneal_strategy);
             o.cycle_momentum = cycle_momentum;
             o.base_momentum = per_group(base_momentum);
             o.max_momentum = per_group(max_momentum);
             o.div_factor = div_factor;
             o.final_div_factor = final_div_factor;
             o.three_phase = three_phase;
             o.last_epoch = last_epoch;
             o.verbose = verbose;
             return std::make_shared<OneCycleLR>(opt, o);
           }),
           keep, py::arg("optimizer"), py::arg("max_lr"), py::arg("total_steps") = none,
           py::arg("epochs") = none, py::arg("steps_per_epoch") = none,
           py::arg("pct_start") = 0.3, py::arg("anneal_strategy") = "cos",
           py::arg("cycle_momentum") = true, py::arg("base_momentum") = 0.85,
           py::arg("max_momentum") = 0.95, py::arg("div_factor") = 25.0,
           py::arg("final_div_factor") = 1e4, py::arg("three_phase") = false,
           py::arg("last_epoch") = -1, py::arg("verbose") = false)
      .def_property_readonly("total_steps", &OneCycleLR::total_steps);
}

// A Python callable as a scheduler's lr_lambda (called with the GIL held).
std::function<double(int64_t)> py_lambda(py::object f) {
  return [f](int64_t epoch) {
    py::gil_scoped_acquire gil;
    return f(epoch).cast<double>();
  };
}

void bind_more_schedulers(py::module_& m) {
  const auto none = py::none();
  const auto keep = py::keep_alive<1, 2>();
  py::class_<ExponentialLR, LRScheduler, std::shared_ptr<ExponentialLR>>(m, "ExponentialLR")
      .def(py::init<Optimizer&, double, int64_t, bool>(), keep, py::arg("optimizer"),
           py::arg("gamma"), py::arg("last_epoch") = -1, py::arg("verbose") = false);
  py::class_<ConstantLR, LRScheduler, std::shared_ptr<ConstantLR>>(m, "ConstantLR")
      .def(py::init<Optimizer&, double, int64_t, int64_t, bool>(), keep, py::arg("optimizer"),
           py::arg("factor") = 1.0 / 3, py::arg("total_iters") = 5, py::arg("last_epoch") = -1,
           py::arg("verbose") = false);
  py::class_<LinearLR, LRScheduler, std::shared_ptr<LinearLR>>(m, "LinearLR")
      .def(py::init<Optimizer&, double, double, int64_t, int64_t, bool>(), keep,
           py::arg("optimizer"), py::arg("start_factor") = 1.0 / 3, py::arg("end_factor") = 1.0,
           py::arg("total_iters") = 5, py::arg("last_epoch") = -1, py::arg("verbose") = false);
  py::class_<PolynomialLR, LRScheduler, std::shared_ptr<PolynomialLR>>(m, "PolynomialLR")
      .def(py::init<Optimizer&, int64_t, double, int64_t, bool>(), keep, py::arg("optimizer"),
           py::arg("total_iters") = 5, py::arg("power") = 1.0, py::arg("last_epoch") = -1,
           py::arg("verbose") = false);
  py::class_<MultiplicativeLR, LRScheduler, std::shared_ptr<MultiplicativeLR>>(m, "MultiplicativeLR")
      .def(py::init([](Optimizer& opt, py::object lr_lambda, int64_t last_epoch, bool verbose) {
             if (py::isinstance<py::list>(lr_lambda) || py::isinstance<py::tuple>(lr_lambda)) {
               std::vector<MultiplicativeLR::LrLambda> fs;
               for (auto f : lr_lambda) fs.push_back(py_lambda(py::reinterpret_borrow<py::object>(f)));
               return std::make_shared<MultiplicativeLR>(opt, fs, last_epoch, verbose);
             }
             return std::make_shared<MultiplicativeLR>(opt, py_lambda(lr_lambda), last_epoch, verbose);
           }),
           keep, py::arg("optimizer"), py::arg("lr_lambda"), py::arg("last_epoch") = -1,
           py::arg("verbose") = false)
      // torch saves the lambdas as None (plain functions are not saved), last.
      .def("state_dict", [](const MultiplicativeLR& self) {
        py::dict d = dict_to_py(self.state_dict());
        py::list l;
        for (size_t i = 0; i < self.lambda_count(); ++i) l.append(py::none());
        d["lr_lambdas"] = l;
        return d;
      })
      .def("load_state_dict", [](MultiplicativeLR& self, py::dict sd) {
        py::dict rest;
        for (auto item : sd)
          if (py::cast<std::string>(item.first) != "lr_lambdas") rest[item.first] = item.second;
        self.load_state_dict(dict_from_py(rest));
      }, py::arg("state_dict"));
  py::class_<CosineAnnealingWarmRestarts, LRScheduler, std::shared_ptr<CosineAnnealingWarmRestarts>>(
      m, "CosineAnnealingWarmRestarts")
      .def(py::init<Optimizer&, int64_t, int64_t, double, int64_t, bool>(), keep,
           py::arg("optimizer"), py::arg("T_0"), py::arg("T_mult") = 1, py::arg("eta_min") = 0.0,
           py::arg("last_epoch") = -1, py::arg("verbose") = false)
      .def("step", [](CosineAnnealingWarmRestarts& self, py::object epoch) {
        if (epoch.is_none()) self.step();
        else if (PyLong_Check(epoch.ptr())) self.step(epoch.cast<int64_t>());
        else self.step(epoch.cast<double>());
      }, py::arg("epoch") = none)
      .def_property_readonly("T_cur", [](const CosineAnnealingWarmRestarts& self) {
        return self.state_dict().at("T_cur");
      })
      .def_property_readonly("T_i", &CosineAnnealingWarmRestarts::T_i);

  py::class_<CyclicLR, LRScheduler, std::shared_ptr<CyclicLR>>(m, "CyclicLR")
      .def(py::init([](Optimizer& opt, py::handle base_lr, py::handle max_lr, double step_size_up,
                       std::optional<double> step_size_down, std::string mode, double gamma,
                       py::object scale_fn, std::string scale_mode, bool cycle_momentum,
                       py::handle base_momentum, py::handle max_momentum, int64_t last_epoch,
                       bool verbose) {
             CyclicLROptions o;
             o.base_lr = per_group(base_lr);
             o.max_lr = per_group(max_lr);
             o.step_size_up = step_size_up;
             o.step_size_down = step_size_down;
             o.mode = std::move(mode);
             o.gamma = gamma;
             if (!scale_fn.is_none()) {
               o.scale_fn = [scale_fn](double x) {
                 py::gil_scoped_acquire gil;
                 // torch passes the cycle or the iteration as an int
                 return scale_fn(py::int_(static_cast<int64_t>(x))).cast<double>();
               };
             }
             o.scale_mode = std::move(scale_mode);
             o.cycle_momentum = cycle_momentum;
             o.base_momentum = per_group(base_momentum);
             o.max_momentum = per_group(max_momentum);
             o.last_epoch = last_epoch;
             o.verbose = verbose;
             return std::make_shared<CyclicLR>(opt, o);
           }),
           keep, py::arg("optimizer"), py::arg("base_lr"), py::arg("max_lr"),
           py::arg("step_size_up") = 2000, py::arg("step_size_down") = none,
           py::arg("mode") = "triangular", py::arg("gamma") = 1.0, py::arg("scale_fn") = none,
           py::arg("scale_mode") = "cycle", py::arg("cycle_momentum") = true,
           py::arg("base_momentum") = 0.8, py::arg("max_momentum") = 0.9,
           py::arg("last_epoch") = -1, py::arg("verbose") = false);

  // SequentialLR / ChainedScheduler: torch's state_dict adds "_schedulers", each scheduler's own
  // state_dict() (through its Python object, so that MultiplicativeLR's lr_lambdas come along).
  auto schedulers_from_py = [](py::handle list) {
    std::vector<std::shared_ptr<LRScheduler>> out;
    for (auto s : list) out.push_back(s.cast<std::shared_ptr<LRScheduler>>());
    return out;
  };
  auto nested_state = [](const LRScheduler& self,
                         const std::vector<std::shared_ptr<LRScheduler>>& subs) {
    py::dict d = dict_to_py(self.state_dict());
    py::list l;
    for (const auto& s : subs) l.append(py::cast(s).attr("state_dict")());
    d["_schedulers"] = l;
    return d;
  };
  auto load_nested = [](LRScheduler& self, const std::vector<std::shared_ptr<LRScheduler>>& subs,
                        py::dict sd) {
    py::dict rest;
    for (auto item : sd)
      if (py::cast<std::string>(item.first) != "_schedulers") rest[item.first] = item.second;
    if (sd.contains("_schedulers")) {
      py::list l = sd["_schedulers"];
      EMBER_CHECK_VALUE(l.size() == subs.size(), "expected the state of ", subs.size(),
                        " schedulers, got ", l.size());
      for (size_t i = 0; i < subs.size(); ++i) py::cast(subs[i]).attr("load_state_dict")(l[i]);
    }
    self.load_state_dict(dict_from_py(rest));
  };
  py::class_<SequentialLR, LRScheduler, std::shared_ptr<SequentialLR>>(m, "SequentialLR")
      .def(py::init([=](Optimizer& opt, py::list schedulers, std::vector<int64_t> milestones,
                        int64_t last_epoch, bool verbose) {
             return std::make_shared<SequentialLR>(opt, schedulers_from_py(schedulers),
                                                   std::move(milestones), last_epoch, verbose);
           }),
           keep, py::keep_alive<1, 3>(), py::arg("optimizer"), py::arg("schedulers"),
           py::arg("milestones"), py::arg("last_epoch") = -1, py::arg("verbose") = false)
      .def("step", [](SequentialLR& self) { self.step(); })
      .def_property_readonly("_schedulers", [](const SequentialLR& self) {
        py::list l;
        for (const auto& s : self.schedulers()) l.append(py::cast(s));
        return l;
      })
      .def("state_dict", [=](const SequentialLR& self) { return nested_state(self, self.schedulers()); })
      .def("load_state_dict", [=](SequentialLR& self, py::dict sd) {
        load_nested(self, self.schedulers(), sd);
      }, py::arg("state_dict"));
  py::class_<ChainedScheduler, LRScheduler, std::shared_ptr<ChainedScheduler>>(m, "ChainedScheduler")
      .def(py::init([=](py::list schedulers) {
             return std::make_shared<ChainedScheduler>(schedulers_from_py(schedulers));
           }),
           py::keep_alive<1, 2>(), py::arg("schedulers"))
      .def("step", [](ChainedScheduler& self) { self.step(); })
      .def_property_readonly("_schedulers", [](const ChainedScheduler& self) {
        py::list l;
        for (const auto& s : self.schedulers()) l.append(py::cast(s));
        return l;
      })
      .def("state_dict", [=](const ChainedScheduler& self) {
        return nested_state(self, self.schedulers());
      })
      .def("load_state_dict", [=](ChainedScheduler& self, py::dict sd) {
        load_nested(self, self.schedulers(), sd);
      }, py::arg("state_dict"));

  py::class_<ReduceLROnPlateau, std::shared_ptr<ReduceLROnPlateau>>(m, "ReduceLROnPlateau")
      .def(py::init([](Optimizer& opt, std::string mode, double factor, int64_t patience,
                       double threshold, std::string threshold_mode, int64_t cooldown,
                       py::handle min_lr, double eps, bool verbose) {
             ReduceLROnPlateauOptions o;
             o.mode = std::move(mode);
             o.factor = factor;
             o.patience = patience;
             o.threshold = threshold;
             o.threshold_mode = std::move(threshold_mode);
             o.cooldown = cooldown;
             o.min_lr = per_group(min_lr);
             o.eps = eps;
             o.verbose = verbose;
             return std::make_shared<ReduceLROnPlateau>(opt, o);
           }),
           keep, py::arg("optimizer"), py::arg("mode") = "min", py::arg("factor") = 0.1,
           py::arg("patience") = 10, py::arg("threshold") = 1e-4, py::arg("threshold_mode") = "rel",
           py::arg("cooldown") = 0, py::arg("min_lr") = 0, py::arg("eps") = 1e-8,
           py::arg("verbose") = false)
      .def("step", [](ReduceLROnPlateau& self, py::handle metrics, std::optional<int64_t> epoch) {
        // float(metrics), as torch: a number or a one-element tensor.
        self.step(py::float_(py::reinterpret_borrow<py::object>(metrics)).cast<double>(), epoch);
      }, py::arg("metrics"), py::arg("epoch") = none)
      .def("is_better", &ReduceLROnPlateau::is_better, py::arg("a"), py::arg("best"))
      .def_property_readonly("in_cooldown", &ReduceLROnPlateau::in_cooldown)
      .def_property_readonly("last_epoch", &ReduceLROnPlateau::last_epoch)
      .def_property_readonly("best", &ReduceLROnPlateau::best)
      .def_property_readonly("num_bad_epochs", &ReduceLROnPlateau::num_bad_epochs)
      .def_property_readonly("_last_lr", [](const ReduceLROnPlateau& self) -> py::object {
        if (self.last_lr().empty()) throw py::attribute_error("'ReduceLROnPlateau' object has no attribute '_last_lr'");
        return py::cast(self.last_lr());
      })
      .def_property_readonly("optimizer", [](const ReduceLROnPlateau& self) {
        return py::cast(&self.optimizer(), py::return_value_policy::reference);
      })
      .def("state_dict", [](const ReduceLROnPlateau& self) { return dict_to_py(self.state_dict()); })
      .def("load_state_dict", [](ReduceLROnPlateau& self, py::handle sd) {
        self.load_state_dict(dict_from_py(sd));
      }, py::arg("state_dict"));
}

}  // namespace

void init_optim(py::module_& m) {
  py::module_ optim = m.def_submodule("_optim", "ember::optim");
  bind_optimizer_base(optim);
  bind_optimizers(optim);
  bind_adaptive(optim);
  bind_schedulers(optim);
  bind_more_schedulers(optim);
}

}  // namespace ember::python
