// State entries of the quantized modules (module_state.h).
#include "module_state.h"

#include "ember/ops/factory.h"

namespace ember::nn::quantized {

Value pop_entry(StateDict& sd, const std::string& key) {
  const Value* v = sd.find(key);
  EMBER_CHECK_KIND(ErrorKind::Key, v != nullptr, key);
  Value out = *v;
  sd.erase(key);
  return out;
}

Tensor pop_tensor(StateDict& sd, const std::string& key) {
  Value v = pop_entry(sd, key);
  EMBER_CHECK_TYPE(v.is_tensor(), "state_dict entry '", key, "' must be a Tensor, got ",
                   v.type_name());
  return v.to_tensor();
}

std::optional<Tensor> pop_optional_tensor(StateDict& sd, const std::string& key) {
  Value v = pop_entry(sd, key);
  if (v.is_none()) return std::nullopt;
  EMBER_CHECK_TYPE(v.is_tensor(), "state_dict entry '", key, "' must be a Tensor or None, got ",
                   v.type_name());
  return v.to_tensor();
}

namespace {
// Python's float(x) / int(x) of a state entry: a number, or a one-element tensor.
Scalar number_of(const Value& v, const std::string& key) {
  if (v.is_tensor()) {
    const Tensor& t = v.to_tensor();
    EMBER_CHECK_VALUE(t.numel() == 1, "only one element tensors can be converted to Python "
                      "scalars (state_dict entry '", key, "' has ", t.numel(), ")");
    return t.item();
  }
  EMBER_CHECK_TYPE(v.is_scalar(), "state_dict entry '", key, "' must be a number or a tensor, got ",
                   v.type_name());
  return v.to_scalar();
}
}  // namespace

double pop_scale(StateDict& sd, const std::string& key) {
  return number_of(pop_entry(sd, key), key).to<double>();
}

int64_t pop_zero_point(StateDict& sd, const std::string& key) {
  return number_of(pop_entry(sd, key), key).to<int64_t>();
}

void save_qparams(StateDict& sd, const std::string& prefix, double scale, int64_t zero_point) {
  sd.insert(prefix + "scale", scalar_tensor(scale, kFloat32));
  sd.insert(prefix + "zero_point", scalar_tensor(zero_point, kInt64));
}

}  // namespace ember::nn::quantized
