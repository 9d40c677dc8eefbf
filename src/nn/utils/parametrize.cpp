// The parametrized attribute and the cache of torch.nn.utils.parametrize (the registration is
// Python, as PyTorch's: python/ember/nn/utils/parametrize.py).
#include "ember/nn/utils/parametrize.h"

#include <map>
#include <mutex>
#include <utility>

#include "ember/error.h"

namespace ember::nn::utils::parametrize {

namespace {

// PyTorch keys its cache by (id(module), tensor_name); entries live until the outermost
// cached() ends.
std::mutex g_mutex;
int g_cache_depth = 0;
std::map<std::pair<const Module*, std::string>, Tensor> g_cache;

Tensor compute(Module& module, const std::string& name) {
  const auto dict = module.child("parametrizations");
  EMBER_CHECK_KIND(ErrorKind::Attribute, dict, "'", module.type_name(),
                   "' object has no attribute 'parametrizations'");
  return dict->child(name)->call({}).to_tensor();
}

}  // namespace

Tensor value(Module& module, const std::string& name) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_cache_depth == 0) {
      // fall through to compute without the lock
    } else {
      auto it = g_cache.find({&module, name});
      if (it != g_cache.end()) return it->second;
    }
  }
  Tensor t = compute(module, name);
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_cache_depth > 0) g_cache.emplace(std::make_pair(&module, name), t);
  return t;
}

void attach(Module& module, const std::string& name) {
  module.set_tensor_attribute_getter(name, [name](Module& m) { return value(m, name); });
}

bool is_parametrized(Module& module, const std::string& name) {
  std::shared_ptr<Module> dict;
  for (const auto& [n, c] : module.named_children())
    if (n == "parametrizations") dict = c;
  if (!dict) return false;
  if (name.empty()) return !dict->named_children().empty();
  for (const auto& [n, c] : dict->named_children())
    if (n == name) return true;
  return false;
}

void enter_cache() {
  std::lock_guard<std::mutex> lock(g_mutex);
  ++g_cache_depth;
}

void exit_cache() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_cache_depth > 0) --g_cache_depth;
  if (g_cache_depth == 0) g_cache.clear();
}

bool cache_enabled() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_cache_depth > 0;
}

Cached::Cached() { enter_cache(); }
Cached::~Cached() { exit_cache(); }

}  // namespace ember::nn::utils::parametrize
