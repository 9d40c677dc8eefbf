// The non-template half of user Functions (include/ember/autograd/function.h): wrapping
// forward's outputs, the context's saved tensors, and checking what backward returns.
#include "ember/autograd/function.h"

#include <cstdlib>

#include "autograd_meta.h"
#include "ember/ops/factory.h"
#include "ember/ops/view.h"
#include "ember/warning.h"
#include "engine.h"
#include "functions.h"

namespace ember::autograd {

namespace detail {
std::string demangled_short_name(const char* mangled) {
  int status = 0;
  char* d = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = status == 0 && d ? d : mangled;
  std::free(d);
  // Drop namespaces (outside template arguments): ns::LinearFunction -> LinearFunction.
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '<') ++depth;
    if (name[i] == '>') --depth;
    if (depth == 0 && name.compare(i, 2, "::") == 0) start = i + 2;
  }
  return name.substr(start);
}
}  // namespace detail

// ---- AutogradContext ----

void AutogradContext::save_for_backward(tensor_list to_save) { to_save_ = std::move(to_save); }

tensor_list AutogradContext::get_saved_variables() const {
  auto node = node_.lock();
  tensor_list out;
  out.reserve(saved_.size());
  for (const auto& s : saved_) out.push_back(s.unpack(node));
  return out;
}

void AutogradContext::mark_dirty(const tensor_list& inputs) {
  for (const auto& t : inputs)
    if (t.defined()) dirty_.insert(t.impl());
}

void AutogradContext::mark_non_differentiable(const tensor_list& outputs) {
  for (const auto& t : outputs)
    if (t.defined()) non_differentiable_.insert(t.impl());
}

bool AutogradContext::needs_input_grad(size_t i) const {
  EMBER_CHECK_INDEX(i < arg_to_edge_.size(), "needs_input_grad: index ", i,
                    " is out of range for a function with ", arg_to_edge_.size(), " arguments");
  auto node = node_.lock();
  return node && arg_to_edge_[i] >= 0 &&
         node->should_compute_output(static_cast<size_t>(arg_to_edge_[i]));
}

// ---- FunctionNodeBase ----

void FunctionNodeBase::set_inputs(std::vector<bool> is_tensor_arg, const tensor_list& tensors,
                                  bool executable) {
  ctx.node_ = weak_from_this();
  int edge = 0;
  for (bool is_tensor : is_tensor_arg) ctx.arg_to_edge_.push_back(is_tensor ? edge++ : -1);
  is_tensor_arg_ = std::move(is_tensor_arg);
  edge_list edges;
  for (const auto& t : tensors) edges.push_back(executable && t.defined() ? gradient_edge(t) : Edge());
  set_next_edges(std::move(edges));
}

namespace {
// A new view of `t` covering all of it (what an input returned as-is becomes, so that the output
// can carry the Function's history without changing the input's).
Tensor alias_view(const Tensor& t) {
  NoGradGuard no_grad;
  return t.as_strided(t.sizes(), t.strides(), t.storage_offset());
}
}  // namespace

tensor_list FunctionNodeBase::wrap_outputs(const tensor_list& inputs, tensor_list outputs,
                                           bool executable) {
  std::unordered_set<const TensorImpl*> input_set;
  for (const auto& t : inputs)
    if (t.defined()) input_set.insert(t.impl());
  for (const TensorImpl* d : ctx.dirty_) {
    if (!input_set.count(d)) {
      EMBER_WARN("Only input Tensors should be given to ctx.mark_dirty(). If a Tensor is not an "
                 "input, there is no need to pass it to mark_dirty().");
    }
  }
  auto self = shared_from_this();
  for (auto& out : outputs) {
    if (!out.defined()) {
      if (executable) add_input_metadata(out);
      continue;
    }
    const bool is_input = input_set.count(out.impl()) > 0;
    const bool is_modified = ctx.dirty_.count(out.impl()) > 0;
    const bool is_differentiable =
        !ctx.non_differentiable_.count(out.impl()) && (is_floating(out.dtype()) || is_complex(out.dtype()));
    if (!executable) {
      if (is_input && !is_modified) out = alias_view(out);
      continue;
    }
    if (is_modified && is_input) {
      EMBER_CHECK(!(out.is_leaf() && get_meta(out) && get_meta(out)->requires_grad_),
                  "a leaf Variable that requires grad has been used in an in-place operation.");
    } else if (is_input) {
      out = alias_view(out);
    }
    const uint32_t nr = add_input_metadata(out);
    if (!is_differentiable) continue;
    if (is_modified && is_input) {
      EMBER_CHECK(!out.is_view() || nr == 0,
                  "mark_dirty: an input that is a view can only be modified in place as the "
                  "Function's first output");
      if (out.is_view()) {
        rebase_history(out, self);
      } else {
        set_history(out, self, nr);
      }
      continue;
    }
    set_history(out, self, nr);
    // Views made in forward (and inputs returned as-is) refuse in-place writes: autograd's
    // view handling would bypass this Function's backward.
    if (out.is_view()) set_view_creation(out, CreationMeta::InCustomFunction, name());
  }
  return outputs;
}

void FunctionNodeBase::save_variables(const tensor_list& outputs) {
  ctx.saved_.clear();
  for (const auto& t : ctx.to_save_) {
    if (!t.defined()) {
      ctx.saved_.emplace_back();
      continue;
    }
    bool is_output = false;
    for (const auto& o : outputs) is_output |= o.defined() && o.is_same(t);
    ctx.saved_.emplace_back(t, is_output);
  }
  ctx.to_save_.clear();
}

void FunctionNodeBase::release_variables() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& s : ctx.saved_) s.release();
}

tensor_list FunctionNodeBase::apply(tensor_list&& grads) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (ctx.materialize_grads_) {
    for (size_t i = 0; i < grads.size(); ++i) {
      if (grads[i].defined()) continue;
      const InputMetadata& md = input_metadata(i);
      grads[i] = zeros(md.shape, TensorOptions(md.dtype).device(md.device));
    }
  }
  bool grads_require_grad = false;
  for (const auto& g : grads) grads_require_grad |= g.defined() && g.requires_grad();
  tensor_list outs;
  UserCodeScope user;  // the backward is user code (Note [Backward and torch_function])
  if (once_differentiable()) {
    NoGradGuard no_grad;
    outs = call_backward(grads);
  } else {
    outs = call_backward(grads);
  }
  const size_t expected = is_tensor_arg_.size();
  if (outs.size() > expected) {
    bool extras_undefined = true;
    for (size_t i = expected; i < outs.size(); ++i) extras_undefined &= !outs[i].defined();
    if (extras_undefined) outs.resize(expected);
  }
  EMBER_CHECK(outs.size() == expected, "function ", name(),
              " returned an incorrect number of gradients (expected ", expected, ", got ",
              outs.size(), ")");
  tensor_list results;
  for (size_t i = 0; i < expected; ++i) {
    if (is_tensor_arg_[i]) {
      results.push_back(std::move(outs[i]));
    } else {
      EMBER_CHECK(!outs[i].defined(), "function ", name(),
                  " returned a gradient different that is defined at position ", i + 1,
                  ", but the corresponding forward input was not a Variable");
    }
  }
  if (once_differentiable() && GradMode::is_enabled() && grads_require_grad) {
    // Differentiating these gradients must fail loudly rather than silently give zeros.
    auto error = std::make_shared<DelayedError>(
        "trying to differentiate twice a function that was marked with @once_differentiable", 0);
    error->set_next_edges(collect_next_edges(grads));
    for (auto& r : results) {
      if (!r.defined() || !(is_floating(r.dtype()) || is_complex(r.dtype()))) continue;
      Tensor alias = r.variable_data();
      set_history(alias, error, error->add_input_metadata(alias));
      r = alias;
    }
  }
  return results;
}

}  // namespace ember::autograd
