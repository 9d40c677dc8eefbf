// The padding layers of issue 16: F.pad with the stored padding; PyTorch's reprs.
#include "ember/nn/modules/padding.h"

#include "ember/nn/functional.h"
#include "ember/nn/module_clone.h"
#include "module_util.h"

namespace ember::nn {

PadNd::PadNd(std::string type_name, size_t spatial, const IntOrTuple& padding_, std::string mode_,
             Number value_)
    : Module(type_name), padding(padding_.expand(2 * spatial)), mode(std::move(mode_)),
      value(value_), show_value_(mode == "constant" && type_name != "ZeroPad2d") {
  EMBER_CHECK_VALUE(padding.size() == 2 * spatial, this->type_name(), ": padding must be an int or a ",
                    "tuple of ", 2 * spatial, " ints, got ", detail::py_int_tuple(padding));
}

Tensor PadNd::forward(const Tensor& input) {
  if (mode == "constant") return functional::pad(input, padding, mode, value.value());
  return functional::pad(input, padding, mode);
}

Value PadNd::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"input"});
  return forward(inputs[0].to_tensor());
}

// ConstantPadNd prints "padding=(...), value=v"; ZeroPad2d and the others only the tuple.
std::string PadNd::extra_repr() const {
  if (show_value_)
    return "padding=" + detail::py_int_tuple(padding) + ", value=" + value.repr();
  return detail::py_int_tuple(padding);
}

}  // namespace ember::nn

namespace ember::nn {
namespace {
const bool registered = [] {
  register_cloneable<ReflectionPad1d>();
  register_cloneable<ReflectionPad2d>();
  register_cloneable<ReflectionPad3d>();
  register_cloneable<ReplicationPad1d>();
  register_cloneable<ReplicationPad2d>();
  register_cloneable<ReplicationPad3d>();
  register_cloneable<ZeroPad2d>();
  register_cloneable<ConstantPad1d>();
  register_cloneable<ConstantPad2d>();
  register_cloneable<ConstantPad3d>();
  return true;
}();
}  // namespace
}  // namespace ember::nn
