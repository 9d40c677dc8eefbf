// weight_norm / spectral_norm as PyTorch's torch/nn/utils/weight_norm.py and spectral_norm.py:
// the same registrations in the same order, a forward pre-hook that recomputes the weight, and
// removal that folds it back into a parameter. The weight is a tensor attribute of the module
// (Note [Tensor attributes]), so a layer's own forward reads it.
#include "ember/nn/utils/weight_norm.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <vector>

#include "ember/error.h"
#include "ember/grad_mode.h"
#include "ember/nn/functional_more.h"
#include "ember/nn/modules/conv.h"
#include "ember/ops/factory.h"
#include "ember/ops/linalg.h"
#include "ember/ops/nnutils.h"

namespace ember::nn::utils {

namespace {

// Parameter removal without the front end (PyTorch's `del module._parameters[name]`).
struct ParamSlots : Module {
  static bool erase(Module& m, const std::string& name) {
    auto& slots = (m.*(&ParamSlots::parameter_slots))();
    for (auto it = slots.begin(); it != slots.end(); ++it) {
      if (it->name == name) {
        slots.erase(it);
        return true;
      }
    }
    return false;
  }
  static bool erase_buffer(Module& m, const std::string& name) {
    auto& slots = (m.*(&ParamSlots::buffer_slots))();
    for (auto it = slots.begin(); it != slots.end(); ++it) {
      if (it->name == name) {
        slots.erase(it);
        return true;
      }
    }
    return false;
  }
};

// Which reparametrization hooks a module carries: PyTorch finds them among
// module._forward_pre_hooks by type; C++ hooks are std::functions, so they are recorded here.
// A module is matched by address and, when it is owned by a shared_ptr, by a weak_ptr too, so a
// later module at a freed address is not mistaken for it.
struct HookRecord {
  const Module* module;
  std::weak_ptr<const Module> owner;
  bool owned;
  std::string kind;  // "weight_norm" / "spectral_norm"
  std::string name;
  unsigned hook;
  int64_t dim;
  int64_t n_power_iterations = 0;
  double eps = 0;
};

std::mutex g_mutex;
std::vector<HookRecord> g_records;

bool alive(const HookRecord& r) { return !r.owned || !r.owner.expired(); }

HookRecord* find_record(const Module& m, const std::string& kind, const std::string& name) {
  std::erase_if(g_records, [](const HookRecord& r) { return !alive(r); });
  for (auto& r : g_records) {
    if (r.module == &m && r.kind == kind && r.name == name) return &r;
  }
  return nullptr;
}

void add_record(Module& m, const std::string& kind, const std::string& name, unsigned hook,
                int64_t dim, int64_t n_power_iterations = 0, double eps = 0) {
  std::weak_ptr<const Module> owner = m.weak_from_this();
  const bool owned = !owner.expired();
  g_records.push_back({&m, std::move(owner), owned, kind, name, hook, dim, n_power_iterations, eps});
}

void drop_record(const Module& m, unsigned hook) {
  std::erase_if(g_records, [&](const HookRecord& x) { return x.hook == hook && x.module == &m; });
}

// ---- weight_norm ----

Tensor compute_weight_norm(Module& m, const std::string& name, int64_t dim) {
  return _weight_norm(m.parameter(name + "_v"), m.parameter(name + "_g"), dim);
}

// ---- spectral_norm ----

Tensor reshape_weight_to_matrix(const Tensor& weight, int64_t dim) {
  Tensor w = weight;
  if (dim != 0) {
    std::vector<int64_t> perm{dim};
    for (int64_t d = 0; d < w.dim(); ++d)
      if (d != dim) perm.push_back(d);
    w = w.permute(perm);
  }
  const int64_t height = w.size(0);
  return w.reshape({height, -1});
}

Tensor compute_spectral_norm(Module& m, const std::string& name, int64_t dim,
                             int64_t n_power_iterations, double eps, bool do_power_iteration) {
  const Tensor weight = m.parameter(name + "_orig");
  Tensor u = m.buffer(name + "_u");
  Tensor v = m.buffer(name + "_v");
  const Tensor weight_mat = reshape_weight_to_matrix(weight, dim);
  if (do_power_iteration) {
    NoGradGuard no_grad;
    for (int64_t i = 0; i < n_power_iterations; ++i) {
      // In place, as torch's normalize(..., out=v): the buffers carry the iteration on.
      v.copy_(functional::normalize(matmul(weight_mat.t(), u), 2.0, 0, eps));
      u.copy_(functional::normalize(matmul(weight_mat, v), 2.0, 0, eps));
    }
    if (n_power_iterations > 0) {
      // Clones, so that a second forward's in-place update does not invalidate the first's graph.
      u = u.clone(MemoryFormat::Contiguous);
      v = v.clone(MemoryFormat::Contiguous);
    }
  }
  const Tensor sigma = matmul(u, matmul(weight_mat, v));
  return weight / sigma;
}

std::string repr_of(const Module& m) { return m.repr(); }

}  // namespace

Module& weight_norm(Module& module, const std::string& name, std::optional<int64_t> dim_opt) {
  std::lock_guard<std::mutex> lock(g_mutex);
  EMBER_CHECK(!find_record(module, "weight_norm", name),
              "Cannot register two weight_norm hooks on the same parameter ", name);
  const int64_t dim = dim_opt.value_or(-1);
  const Tensor weight = module.parameter(name);
  EMBER_CHECK_KIND(ErrorKind::Attribute, weight.defined(), "'NoneType' object has no attribute 'data'");
  ParamSlots::erase(module, name);
  module.register_parameter(name + "_g", norm_except_dim(weight, 2, dim).detach());
  module.register_parameter(name + "_v", weight.detach());
  module.set_tensor_attribute(name, compute_weight_norm(module, name, dim));
  const unsigned id = module.register_forward_pre_hook(
      [name, dim](Module& m, const std::vector<Value>&) -> std::optional<std::vector<Value>> {
        m.set_tensor_attribute(name, compute_weight_norm(m, name, dim));
        return std::nullopt;
      });
  add_record(module, "weight_norm", name, id, dim);
  return module;
}

Module& remove_weight_norm(Module& module, const std::string& name) {
  std::lock_guard<std::mutex> lock(g_mutex);
  HookRecord* r = find_record(module, "weight_norm", name);
  EMBER_CHECK_VALUE(r, "weight_norm of '", name, "' not found in ", repr_of(module));
  const unsigned id = r->hook;
  const int64_t dim = r->dim;
  const Tensor weight = compute_weight_norm(module, name, dim);
  module.remove_hook(id);
  module.remove_tensor_attribute(name);
  ParamSlots::erase(module, name + "_g");
  ParamSlots::erase(module, name + "_v");
  module.register_parameter(name, weight.detach());
  drop_record(module, id);
  return module;
}

Module& spectral_norm(Module& module, const std::string& name, int64_t n_power_iterations,
                      double eps, std::optional<int64_t> dim_opt) {
  std::lock_guard<std::mutex> lock(g_mutex);
  EMBER_CHECK(!find_record(module, "spectral_norm", name),
              "Cannot register two spectral_norm hooks on the same parameter ", name);
  EMBER_CHECK_VALUE(n_power_iterations > 0,
                    "Expected n_power_iterations to be positive, but got n_power_iterations=",
                    n_power_iterations);
  int64_t dim = 0;
  if (dim_opt) {
    dim = *dim_opt;
  } else if (dynamic_cast<ConvTranspose1d*>(&module) || dynamic_cast<ConvTranspose2d*>(&module) ||
             dynamic_cast<ConvTranspose3d*>(&module)) {
    dim = 1;
  }
  const Tensor weight = module.parameter(name);
  EMBER_CHECK_VALUE(weight.defined(), "`SpectralNorm` cannot be applied as parameter `", name,
                    "` is None");
  Tensor u, v;
  {
    NoGradGuard no_grad;
    const Tensor weight_mat = reshape_weight_to_matrix(weight, dim);
    const int64_t h = weight_mat.size(0), w = weight_mat.size(1);
    const TensorOptions opts = TensorOptions().dtype(weight.dtype()).device(weight.device());
    u = functional::normalize(empty({h}, opts).normal_(0, 1), 2.0, 0, eps);
    v = functional::normalize(empty({w}, opts).normal_(0, 1), 2.0, 0, eps);
  }
  ParamSlots::erase(module, name);
  module.register_parameter(name + "_orig", weight, weight.requires_grad());
  module.set_tensor_attribute(name, weight.detach());
  module.register_buffer(name + "_u", u);
  module.register_buffer(name + "_v", v);
  const unsigned id = module.register_forward_pre_hook(
      [name, dim, n_power_iterations, eps](Module& m, const std::vector<Value>&)
          -> std::optional<std::vector<Value>> {
        m.set_tensor_attribute(
            name, compute_spectral_norm(m, name, dim, n_power_iterations, eps, m.is_training()));
        return std::nullopt;
      });
  add_record(module, "spectral_norm", name, id, dim, n_power_iterations, eps);
  return module;
}

Module& remove_spectral_norm(Module& module, const std::string& name) {
  std::lock_guard<std::mutex> lock(g_mutex);
  HookRecord* r = find_record(module, "spectral_norm", name);
  EMBER_CHECK_VALUE(r, "spectral_norm of '", name, "' not found in ", repr_of(module));
  const HookRecord rec = *r;
  Tensor weight;
  {
    NoGradGuard no_grad;
    weight = compute_spectral_norm(module, name, rec.dim, rec.n_power_iterations, rec.eps, false);
  }
  module.remove_hook(rec.hook);
  module.remove_tensor_attribute(name);
  ParamSlots::erase_buffer(module, name + "_u");
  ParamSlots::erase_buffer(module, name + "_v");
  ParamSlots::erase(module, name + "_orig");
  module.register_parameter(name, weight.detach());
  drop_record(module, rec.hook);
  return module;
}

}  // namespace ember::nn::utils
