// Binding helpers of the observer / fake-quantize classes (quantization_observers.cpp,
// quantization_fake_quantize.cpp): torch's Python signatures (keyword names, defaults, Python's
// TypeError texts), the trampoline of Python subclasses, and torch's AssertionErrors.
#pragma once

#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "nn.h"
#include "nn_cnn.h"

#include "ember/nn/module_clone.h"
#include "ember/quantization/fake_quantize.h"
#include "ember/quantization/observer.h"

namespace ember::python {

/// One parameter of a Python signature: its name and default (a null object: required).
struct Param {
  const char* name;
  py::object default_value;
};

/// Binds (args, kwargs) to `params` as Python does for `<qualname>(...)`; keywords not in
/// `params` go to `extra` when given (a `**kwargs` parameter), else TypeError.
std::vector<py::object> bind_args(const std::string& qualname, const py::args& args,
                                  const py::kwargs& kwargs, const std::vector<Param>& params,
                                  py::dict* extra = nullptr);

/// Python's truth value.
bool truthy(py::handle o);
std::optional<int64_t> opt_int(py::handle o);
QScheme to_qscheme(py::handle o);
py::object qscheme_to_py(QScheme q);
/// `float(o)` as torch's code would see it (a Python number).
double to_double(py::handle o);

/// Raises Python's AssertionError with `msg` (torch's `assert cond, msg`).
[[noreturn]] void raise_assertion(const std::string& msg);

/// The Python object of a C++ module currently bound (the trampoline's `self`), or None.
template <class Base>
py::handle self_of(const Base* m) {
  return py::detail::get_object_handle(m, py::detail::get_type_info(typeid(Base)));
}

/// A Python subclass's forward override called on boxed inputs (nullopt: none).
template <class Base>
std::optional<Value> python_override(const Base* self, const std::vector<Value>& inputs) {
  py::gil_scoped_acquire gil;
  py::function f = py::get_override(self, "forward");
  if (!f) return std::nullopt;
  py::tuple args(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) args[i] = value_to_py(inputs[i]);
  return py_to_value(f(*args), "forward result");
}

/// A Python subclass's calculate_qparams override (nullopt: none).
template <class Base>
std::optional<std::pair<Tensor, Tensor>> python_qparams(const Base* self) {
  py::gil_scoped_acquire gil;
  py::function f = py::get_override(self, "calculate_qparams");
  if (!f) return std::nullopt;
  py::object r = f();
  EMBER_CHECK_TYPE(py::isinstance<py::tuple>(r) && py::len(r) == 2,
                   "calculate_qparams() must return (scale, zero_point), got ", py::repr(r).cast<std::string>());
  auto t = r.cast<py::tuple>();
  return std::make_pair(t[0].cast<Tensor>(), t[1].cast<Tensor>());
}

/// The trampoline of Python subclasses of the observer and fake-quantize classes (Note
/// [Trampolines for C++ layers]): forward, extra_repr and calculate_qparams may be overridden
/// in Python, and C++ callers (FakeQuantize, prepare's hooks, observed_qparams) reach the
/// overrides. ObserverBase's own pure virtuals are answered by the Python methods.
template <class Base>
class PyObs : public Base {
 public:
  using Base::Base;

  Value forward(const std::vector<Value>& inputs) override {
    (void)cloneable_;
    if (auto r = python_override(static_cast<const Base*>(this), inputs)) return *r;
    return Base::forward(inputs);
  }

  std::string extra_repr() const override { PYBIND11_OVERRIDE(std::string, Base, extra_repr, ); }

  std::pair<Tensor, Tensor> calculate_qparams() override {
    if (auto r = python_qparams(static_cast<const Base*>(this))) return *r;
    if constexpr (std::is_abstract_v<Base>) {
      EMBER_FAIL_KIND(ErrorKind::NotImplemented, this->type_name(), " does not define calculate_qparams");
    } else {
      return Base::calculate_qparams();
    }
  }

  Tensor observe(const Tensor& x) override {
    if constexpr (std::is_abstract_v<Base>) {
      py::gil_scoped_acquire gil;
      py::function f = py::get_override(static_cast<const Base*>(this), "forward");
      EMBER_CHECK_NOT_IMPLEMENTED(static_cast<bool>(f), this->type_name(), " does not define forward");
      return f(x).template cast<Tensor>();
    } else {
      return Base::observe(x);
    }
  }

  QScheme qscheme() const override {
    // A Python observer of one's own keeps qscheme as a plain attribute.
    py::gil_scoped_acquire gil;
    py::handle self = self_of<Base>(this);
    if (self) {
      py::object d = py::getattr(self, "__dict__", py::none());
      if (!d.is_none() && d.contains("qscheme")) return to_qscheme(d["qscheme"]);
    }
    return Base::qscheme();
  }

  int64_t ch_axis() const override {
    // A Python observer of one's own keeps ch_axis as a plain attribute.
    py::gil_scoped_acquire gil;
    py::handle self = self_of<Base>(this);
    if (self) {
      py::object d = py::getattr(self, "__dict__", py::none());
      if (!d.is_none() && d.contains("ch_axis")) return d["ch_axis"].template cast<int64_t>();
    }
    return Base::ch_axis();
  }

 private:
  static inline const bool cloneable_ = (nn::register_cloneable<PyObs<Base>, Base>(), true);
};

/// The trampoline of Python subclasses of the fake-quantize classes (as PyObs).
template <class Base>
class PyFQ : public Base {
 public:
  using Base::Base;

  Value forward(const std::vector<Value>& inputs) override {
    (void)cloneable_;
    if (auto r = python_override(static_cast<const Base*>(this), inputs)) return *r;
    return Base::forward(inputs);
  }

  std::string extra_repr() const override { PYBIND11_OVERRIDE(std::string, Base, extra_repr, ); }

  std::pair<Tensor, Tensor> calculate_qparams() override {
    if (auto r = python_qparams(static_cast<const Base*>(this))) return *r;
    if constexpr (std::is_abstract_v<Base>) {
      EMBER_FAIL_KIND(ErrorKind::NotImplemented, this->type_name(), " does not define calculate_qparams");
    } else {
      return Base::calculate_qparams();
    }
  }

 private:
  static inline const bool cloneable_ = (nn::register_cloneable<PyFQ<Base>, Base>(), true);
};

/// __init__'s body: T, or PyObs<T> for a Python subclass (its repr then shows the subclass's
/// name, as torch's).
template <class T, class... Args>
void construct_obs(py::detail::value_and_holder& v_h, Args&&... args) {
  if (is_subclass_instance(v_h)) {
    auto* m = new PyObs<T>(std::forward<Args>(args)...);
    m->set_type_name(instance_class_name(v_h));
    v_h.value_ptr() = m;
  } else if constexpr (!std::is_abstract_v<T>) {
    v_h.value_ptr() = new T(std::forward<Args>(args)...);
  }
}

template <class T, class... Args>
void construct_fq(py::detail::value_and_holder& v_h, Args&&... args) {
  if (is_subclass_instance(v_h)) {
    auto* m = new PyFQ<T>(std::forward<Args>(args)...);
    m->set_type_name(instance_class_name(v_h));
    v_h.value_ptr() = m;
  } else if constexpr (!std::is_abstract_v<T>) {
    v_h.value_ptr() = new T(std::forward<Args>(args)...);
  }
}

void init_quantization_observers(py::module_& qm);
void init_quantization_fake_quantize(py::module_& qm);

}  // namespace ember::python
