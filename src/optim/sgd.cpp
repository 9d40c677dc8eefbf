#include "ember/optim/sgd.h"

#include <cmath>

#include "ember/ops/copy.h"
#include "optim_util.h"

namespace ember::optim {

namespace {

// PyTorch's defaults for momentum, dampening and weight_decay are the int 0; a zero is kept an
// int so that state_dict() and repr print what torch prints for an untouched option.
Value number(double v) {
  if (v == 0 && !std::signbit(v)) return Value(int64_t{0});
  return Value(v);
}

// A loaded or existing momentum buffer must fit its parameter, or the step would fail half way.
void check_buffer(const Tensor& param, const ValueDict& state) {
  const Value* buf = state.find("momentum_buffer");
  if (buf == nullptr || buf->is_none()) return;
  EMBER_CHECK_TYPE(buf->is_tensor(),
                   "SGD: a parameter's 'momentum_buffer' must be a Tensor or None, but got ",
                   buf->type_name());
  const Tensor& b = buf->to_tensor();
  if (!b.defined()) return;
  EMBER_CHECK(b.sizes() == param.sizes(), "SGD: a parameter's momentum_buffer has shape ",
              size_str(b.sizes()), " but the parameter has shape ", size_str(param.sizes()));
  EMBER_CHECK(b.device() == param.device(), "SGD: a parameter's momentum_buffer is on ", b.device(),
              " but the parameter is on ", param.device());
}

}  // namespace

ValueDict SGDOptions::to_dict() const {
  ValueDict d;
  if (lr) d.set("lr", *lr);
  d.set("momentum", number(momentum));
  d.set("dampening", number(dampening));
  d.set("weight_decay", number(weight_decay));
  d.set("nesterov", nesterov);
  d.set("maximize", maximize);
  d.set("foreach", Value());
  d.set("differentiable", false);
  return d;
}

SGDOptions SGDOptions::from_dict(const ValueDict& d) {
  SGDOptions o;
  o.lr = detail::option_double(d, "lr");
  o.momentum = detail::option_double(d, "momentum");
  o.dampening = detail::option_double(d, "dampening");
  o.weight_decay = detail::option_double(d, "weight_decay");
  o.nesterov = detail::option_bool(d, "nesterov");
  o.maximize = detail::option_bool(d, "maximize");
  detail::check_single_tensor_flag(d, "foreach", "SGD");
  detail::check_single_tensor_flag(d, "differentiable", "SGD");
  return o;
}

ValueDict SGD::checked_defaults(const SGDOptions& o) {
  using detail::py_float;
  EMBER_CHECK_VALUE(!(o.lr && *o.lr < 0.0), "Invalid learning rate: ", py_float(o.lr.value_or(0)));
  EMBER_CHECK_VALUE(!(o.momentum < 0.0), "Invalid momentum value: ", py_float(o.momentum));
  EMBER_CHECK_VALUE(!(o.weight_decay < 0.0),
                    "Invalid weight_decay value: ", py_float(o.weight_decay));
  EMBER_CHECK_VALUE(!(o.nesterov && (o.momentum <= 0 || o.dampening != 0)),
                    "Nesterov momentum requires a momentum and zero dampening");
  return o.to_dict();
}

SGD::SGD(std::vector<Tensor> params, const SGDOptions& defaults)
    : SGD(single_group(std::move(params)), defaults) {}

SGD::SGD(std::vector<ParamGroup> groups, const SGDOptions& defaults)
    : Optimizer(checked_defaults(defaults), {"lr"}) {
  init_param_groups(std::move(groups));
}

void SGD::check_options(const ValueDict& options) const { SGDOptions::from_dict(options); }

void SGD::check_state(const ParamGroup&, const Tensor& param, const ValueDict& state) const {
  check_buffer(param, state);
}

ValueDict SGD::load_param_state(const Tensor& param, const ValueDict& saved) const {
  ValueDict st = Optimizer::load_param_state(param, saved);
  check_buffer(param, st);
  return st;
}

void SGD::update(ParamGroup& group) {
  const SGDOptions o = SGDOptions::from_dict(group.options());
  const double lr = *o.lr;
  for (Tensor& p : group.params()) {
    const Tensor grad = p.grad();
    if (!grad.defined()) continue;
    ValueDict& st = state(p);
    const Value* saved = st.find("momentum_buffer");
    Tensor buf = saved && saved->is_tensor() ? saved->to_tensor() : Tensor();

    // alpha_for: see Note [16-bit parameters] (optim_util.h).
    Tensor d_p = o.maximize ? grad.neg() : grad;
    if (o.weight_decay != 0) d_p = d_p.add(p, detail::alpha_for(p, o.weight_decay));
    if (o.momentum != 0) {
      if (!buf.defined()) {
        buf = d_p.clone();
      } else {
        buf.mul_(o.momentum).add_(d_p, detail::alpha_for(p, 1 - o.dampening));
      }
      d_p = o.nesterov ? d_p.add(buf, detail::alpha_for(p, o.momentum)) : buf;
    }
    p.add_(d_p, detail::alpha_for(p, -lr));
    // PyTorch records the buffer for every parameter that had a gradient: None without momentum.
    st.set("momentum_buffer", buf.defined() ? Value(buf) : Value());
  }
}

}  // namespace ember::optim
