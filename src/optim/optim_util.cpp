#include "optim_util.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "ember/error.h"
#include "ember/print.h"
#include "ember/half.h"
#include "ember/ops/factory.h"

namespace ember::optim::detail {

std::string py_float(double v) { return py_float_repr(v); }

std::string py_str(const Value& v) {
  if (v.is_none()) return "None";
  if (v.is_bool()) return v.to_bool() ? "True" : "False";
  if (v.is_int()) return std::to_string(v.to_int());
  if (v.is_double()) return py_float(v.to_double());
  if (v.is_string()) return v.to_string_value();
  if (v.is_double_list()) {  // betas: a tuple in PyTorch
    const auto& l = v.to_double_list();
    std::string s = "(";
    for (size_t i = 0; i < l.size(); ++i) s += (i ? ", " : "") + py_float(l[i]);
    return s + (l.size() == 1 ? ",)" : ")");
  }
  if (v.is_int_list()) {
    const auto& l = v.to_int_list();
    std::string s = "[";
    for (size_t i = 0; i < l.size(); ++i) s += (i ? ", " : "") + std::to_string(l[i]);
    return s + "]";
  }
  if (v.is_tensor()) return v.to_tensor().defined() ? v.to_tensor().to_string() : "None";
  return std::string("<") + v.type_name() + ">";
}

Value number(double v) {
  if (v == 0 && !std::signbit(v)) return Value(int64_t{0});
  return Value(v);
}

Value optional_bool(const std::optional<bool>& b) { return b ? Value(*b) : Value(); }

Tensor cpu_scalar(double v) { return scalar_tensor(v, TensorOptions(kFloat32).device(kCPU)); }

void check_lr(double lr) { EMBER_CHECK_VALUE(0.0 <= lr, "Invalid learning rate: ", py_float(lr)); }

void check_weight_decay(double wd) {
  EMBER_CHECK_VALUE(0.0 <= wd, "Invalid weight_decay value: ", py_float(wd));
}

double option_double(const ValueDict& options, const char* name) {
  const Value& v = options.at(name);
  EMBER_CHECK_TYPE(v.is_double() || v.is_int(), "param group option '", name,
                   "' must be a float, but got ", v.type_name());
  return v.to_double();
}

bool option_bool(const ValueDict& options, const char* name) {
  const Value& v = options.at(name);
  EMBER_CHECK_TYPE(v.is_bool(), "param group option '", name, "' must be a bool, but got ",
                   v.type_name());
  return v.to_bool();
}

std::array<double, 2> option_pair(const ValueDict& options, const char* name) {
  const Value& v = options.at(name);
  std::vector<double> l;
  if (v.is_double_list())
    l = v.to_double_list();
  else if (v.is_int_list())
    l.assign(v.to_int_list().begin(), v.to_int_list().end());
  else
    EMBER_FAIL_KIND(ErrorKind::Type, "param group option '", name,
                    "' must be a pair of floats, but got ", v.type_name());
  EMBER_CHECK_TYPE(l.size() == 2, "param group option '", name,
                   "' must be a pair of floats, but got ", l.size(), " values");
  return {l[0], l[1]};
}

void check_single_tensor_flag(const ValueDict& options, const char* name, const char* optimizer) {
  const Value* v = options.find(name);
  if (v == nullptr || v->is_none() || (v->is_bool() && !v->to_bool())) return;
  EMBER_CHECK_TYPE(v->is_bool(), "param group option '", name, "' must be a bool or None, but got ",
                   v->type_name());
  EMBER_FAIL_KIND(ErrorKind::NotImplemented, optimizer, ": ", name,
                  "=True is not supported: ember runs torch's single-tensor (for-loop) algorithm");
}

double alpha_for(const Tensor& t, double alpha) {
  // Scalar -> scalar_t as c10 converts it: double to float, then to the 16-bit type.
  if (t.dtype() == kBFloat16) return static_cast<float>(BFloat16(static_cast<float>(alpha)));
  if (t.dtype() == kFloat16) return static_cast<float>(Half(static_cast<float>(alpha)));
  return alpha;
}

ScalarType opmath_dtype(ScalarType dtype) {
  return dtype == kBFloat16 || dtype == kFloat16 ? kFloat32 : dtype;
}

std::vector<double> to_double_list(const Value& v, const char* what) {
  if (v.is_double_list()) return v.to_double_list();
  if (v.is_int_list()) return {v.to_int_list().begin(), v.to_int_list().end()};
  EMBER_FAIL_KIND(ErrorKind::Type, what, " must be a list of floats, but got ", v.type_name());
}

std::vector<double> group_lrs(const Optimizer& opt) {
  std::vector<double> lrs;
  for (const ParamGroup& g : opt.param_groups()) lrs.push_back(g.lr());
  return lrs;
}

int64_t int_value(const Value& v, const char* key) {
  EMBER_CHECK_TYPE(v.is_int(), "state_dict['", key, "'] must be an int, but got ", v.type_name());
  return v.to_int();
}
double double_value(const Value& v, const char* key) {
  EMBER_CHECK_TYPE(v.is_double() || v.is_int(), "state_dict['", key, "'] must be a float, but got ",
                   v.type_name());
  return v.to_double();
}
bool bool_value(const Value& v, const char* key) {
  EMBER_CHECK_TYPE(v.is_bool(), "state_dict['", key, "'] must be a bool, but got ", v.type_name());
  return v.to_bool();
}

}  // namespace ember::optim::detail
