// What the C++ layers share: Python's spelling of values in extra_repr, and Python's messages
// when a boxed forward gets the wrong number of inputs.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "ember/nn/module.h"
#include "ember/tensor.h"
#include "ember/value.h"

namespace ember::nn::detail {

/// repr() of a Python float: the shortest digits that round-trip, fixed notation for exponents
/// -4..15 ("0.5", "1.0", "0.0001"), else scientific with a two-digit exponent ("1e-05").
std::string py_float(double v);
/// "True" / "False".
inline const char* py_bool(bool b) { return b ? "True" : "False"; }
/// A Python tuple of ints: "(10,)", "(2, 3)", "()".
std::string py_int_tuple(const std::vector<int64_t>& v);

/// PyTorch's Module.__repr__ layout: "Name(extra)" when extra_repr is one line and no child
/// shows, else the extra lines and "(name): child" lines (None for an empty slot) indented by
/// two. Module::repr shows every child; a quantized module leaves out its packed parameters
/// (PyTorch's hide_packed_params_repr).
std::string format_repr(const std::string& type_name, const std::string& extra_repr,
                        const std::vector<std::pair<std::string, const Module*>>& children);

/// Whether `m` holds a parameter `name` that is not None (PyTorch's `self.bias is not None`).
bool has_defined_parameter(const Module& m, const std::string& name);

/// Checks a boxed forward's inputs against the parameter names of Python's forward, with
/// Python's TypeErrors: "Linear.forward() takes 2 positional arguments but 3 were given",
/// "MSELoss.forward() missing 1 required positional argument: 'target'".
void check_forward_inputs(const std::string& type_name, const std::vector<Value>& inputs,
                          std::initializer_list<const char*> names);

/// `t` when defined, else nullopt: a parameter or buffer registered as None.
inline std::optional<Tensor> optional_tensor(const Tensor& t) {
  return t.defined() ? std::optional<Tensor>(t) : std::nullopt;
}

}  // namespace ember::nn::detail
