// Module conversion: _apply and its routes (extension-spec § 2), with the three ways a parameter
// can take the converted value — swap (identity and every handle kept, behind
// set_swap_module_params_on_conversion), set-data (identity kept), or a new Parameter (behind
// set_overwrite_module_params_on_conversion, or when the devices are incompatible).
#include "ember/dispatch.h"
#include "ember/grad_mode.h"
#include "ember/nn/module.h"

#include "module_depth.h"
#include "ember/ops/factory.h"
#include "ember/swap_tensors.h"

namespace ember::nn {

namespace {
// PyTorch's _has_compatible_shallow_copy_type for ember's devices: cpu with cpu, meta with meta.
bool should_set_data(const Tensor& t, const Tensor& t2) {
  return t.device().type == t2.device().type && !get_overwrite_module_params_on_conversion();
}
}  // namespace

Module& Module::_apply(const TensorFn& fn, bool recurse) {
  detail::ModuleDepthGuard depth;
  if (recurse) {
    for (const auto& c : children()) c->_apply(fn);
  }
  for (Slot& slot : parameters_) {
    if (!slot.value.defined()) continue;
    const Tensor param = slot.value;
    Tensor p2;
    {
      NoGradGuard no_grad;
      p2 = fn(param);
    }
    // PyTorch also swaps when p2 is a *traceable* wrapper subclass (one with
    // __tensor_flatten__); ember's C++ subclasses declare no such protocol, so only the flag
    // decides (the recipe's MyQuantizedLinearWeight, which has none, behaves as in PyTorch).
    const bool swap = get_swap_module_params_on_conversion();
    const Tensor g = param.grad();
    Tensor out;
    if (swap) {
      if (g.defined()) param.set_grad(Tensor());
      Tensor new_param = Parameter(p2, param.requires_grad());
      try {
        utils::swap_tensors(param, new_param);
      } catch (const Error& e) {
        if (g.defined()) param.set_grad(g);
        EMBER_FAIL("_apply(): Couldn't swap ", type_name(), ".", slot.name, " (caused by: ",
                   e.what(), ")");
      }
      out = param;
    } else if (should_set_data(param, p2)) {
      param.set_data(p2);
      out = param;
    } else {
      out = Parameter(p2, param.requires_grad());
      slot.value = out;
    }
    if (!g.defined()) continue;
    Tensor g2;
    {
      NoGradGuard no_grad;
      g2 = fn(g);
    }
    if (swap) {
      if (g.requires_grad() != g2.requires_grad()) g2.requires_grad_(g.requires_grad());
      try {
        utils::swap_tensors(g, g2);
      } catch (const Error& e) {
        EMBER_FAIL("_apply(): Couldn't swap ", type_name(), ".", slot.name, ".grad (caused by: ",
                   e.what(), ")");
      }
      out.set_grad(g);
    } else if (should_set_data(g, g2)) {
      Tensor grad = out.grad();
      if (grad.defined()) {
        grad.set_data(g2);
      } else {
        out.set_grad(g2);
      }
    } else {
      if (g.requires_grad()) g2.requires_grad_(true);
      out.set_grad(g2);
    }
  }
  for (Slot& slot : buffers_) {
    if (slot.value.defined()) slot.value = fn(slot.value);
  }
  return *this;
}

namespace {
std::string ember_dtype(ScalarType t) { return std::string("ember.") + dtype_name(t); }

// Moving a meta module with to() cannot copy data: say what to use instead.
Module& with_meta_hint(Module& m, const Module::TensorFn& fn) {
  try {
    return m._apply(fn);
  } catch (const Error& e) {
    if (std::string(e.what()) == "Cannot copy out of meta tensor; no data!") {
      EMBER_FAIL_KIND(ErrorKind::NotImplemented,
                      "Cannot copy out of meta tensor; no data! Please use "
                      "ember.nn.Module.to_empty() instead of ember.nn.Module.to() when moving "
                      "module from meta to a different device.");
    }
    throw;
  }
}

void check_floating(ScalarType dtype) {
  EMBER_CHECK_TYPE(is_floating(dtype),
                   "nn.Module.to only accepts floating point or complex dtypes, but got desired "
                   "dtype=", ember_dtype(dtype));
}
}  // namespace

Module& Module::to(ScalarType dtype) {
  check_floating(dtype);
  return to_floating(dtype);
}

Module& Module::to(Device device) {
  return with_meta_hint(*this, [device](const Tensor& t) { return t.to(device); });
}

Module& Module::to(Device device, ScalarType dtype) {
  check_floating(dtype);
  return with_meta_hint(*this, [device, dtype](const Tensor& t) {
    return t.is_floating_point() ? t.to(device, dtype) : t.to(device);
  });
}

Module& Module::to(const Tensor& other) { return to(other.device(), other.dtype()); }

Module& Module::to(std::optional<Device> device, std::optional<ScalarType> dtype,
                   std::optional<MemoryFormat> memory_format) {
  if (dtype) check_floating(*dtype);
  return with_meta_hint(*this, [=](const Tensor& t) {
    const ScalarType to_dtype = dtype && t.is_floating_point() ? *dtype : t.dtype();
    const std::optional<MemoryFormat> format =
        t.dim() == 4 || t.dim() == 5 ? memory_format : std::nullopt;
    return t.to(device.value_or(t.device()), to_dtype, false, format);
  });
}

Module& Module::to_floating(ScalarType dtype) {
  return _apply([dtype](const Tensor& t) { return t.is_floating_point() ? t.to(dtype) : t; });
}

Module& Module::to_empty(Device device, bool recurse) {
  return _apply([device](const Tensor& t) { return empty_like(t, TensorOptions(t.dtype()).device(device)); },
                recurse);
}

}  // namespace ember::nn
