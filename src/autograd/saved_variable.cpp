#include "ember/autograd/saved_variable.h"

#include "../dispatch/layers.h"
#include "autograd_meta.h"
#include "ember/grad_mode.h"
#include "ember/ops/copy.h"

namespace ember::autograd {

std::string legacy_type_name(const Tensor& t) {
  const char* name = "Float";
  switch (t.dtype()) {
    case ScalarType::Float32: name = "Float"; break;
    case ScalarType::Float64: name = "Double"; break;
    case ScalarType::Float16: name = "Half"; break;
    case ScalarType::BFloat16: name = "BFloat16"; break;
    case ScalarType::Int64: name = "Long"; break;
    case ScalarType::Int32: name = "Int"; break;
    case ScalarType::Int16: name = "Short"; break;
    case ScalarType::Int8: name = "Char"; break;
    case ScalarType::UInt8: name = "Byte"; break;
    case ScalarType::Bool: name = "Bool"; break;
    case ScalarType::QUInt8: name = "QUInt8"; break;
    case ScalarType::QInt8: name = "QInt8"; break;
    case ScalarType::QInt32: name = "QInt32"; break;
    case ScalarType::ComplexFloat: name = "ComplexFloat"; break;
    case ScalarType::ComplexDouble: name = "ComplexDouble"; break;
    case ScalarType::QUInt4x2: name = "QUInt4x2"; break;
    case ScalarType::QUInt2x4: name = "QUInt2x4"; break;
    case ScalarType::Undefined: name = "Undefined"; break;
  }
  return std::string("ember.") + name + "Tensor";
}

namespace {
// The token every SavedVariable holding `t` shares (what swap_tensors counts).
std::shared_ptr<int> saved_token_of(const Tensor& t) {
  AutogradMeta& m = materialize_meta(t);
  if (!m.saved_token_) m.saved_token_ = std::make_shared<int>(0);
  return m.saved_token_;
}
}  // namespace

SavedVariable::SavedVariable(const Tensor& t, bool is_output) {
  if (!t.defined()) return;
  default_constructed_ = false;
  saved_version_ = t.version();
  requires_grad_ = t.requires_grad();
  is_output_ = is_output && !t.is_leaf();
  if (auto hooks = current_saved_tensor_hooks(); hooks && !t.impl()->is_wrapped_number()) {
    // Note [Saved tensor hooks]: keep what pack returns, and the history to re-attach.
    if (is_output_) output_nr_ = t.output_nr();
    pack_with(std::move(hooks), t, t);
    return;
  }
  if (is_output_) {
    // Keep the data without history: the node saving its own output must not own itself.
    output_nr_ = t.output_nr();
    // With a dispatch handler in play the copy is an aten::detach it sees, and a wrapper
    // subclass's comes back a wrapper (Note [Detach through the dispatch layer]).
    data_ = dispatch::detach_through_dispatch_layer(t);
    if (!data_.defined() || data_.is_same(t)) data_ = t.variable_data();
    data_.impl()->set_version_counter(t.impl()->version_counter());
  } else {
    data_ = t;
    if (t.requires_grad()) token_ = saved_token_of(t);
  }
}

void SavedVariable::pack_with(std::shared_ptr<SavedTensorHooks> hooks, const Tensor& t,
                              const Tensor& packed_arg) {
  if (!is_output_) {
    if (const auto& fn = grad_fn_of(t)) {
      grad_fn_ = fn;
      output_nr_ = t.output_nr();
    } else if (requires_grad_) {
      grad_accumulator_ = grad_accumulator(t);
    }
    if (requires_grad_) token_ = saved_token_of(t);
  }
  const uint32_t version = packed_arg.version();
  NoGradGuard no_grad;
  packed_ = hooks->pack(packed_arg);
  EMBER_CHECK(packed_arg.version() == version,
              "A saved tensor pack hook is modifying its input in place. Tensors provided as input "
              "to pack hook can not be modified by in-place operations as this can lead to "
              "unexpected side-effects. Please open an issue if you need to perform in-place "
              "operations on the input to a pack hook.");
  hooks_ = std::move(hooks);
}

void SavedVariable::register_hooks(std::shared_ptr<SavedTensorHooks> hooks) {
  EMBER_CHECK(hooks != nullptr, "register_hooks: expected a pair of hooks, got null");
  EMBER_CHECK(!hooks_, "Calling register_hooks on a saved tensor whose hooks have already been set. "
              "Hint: only one pair of hooks is allowed at a time.");
  EMBER_CHECK(!default_constructed_,
              "Calling register_hooks on a saved tensor with value None is forbidden");
  EMBER_CHECK(data_.defined(),
              "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate "
              "values of the graph are freed when you call .backward() or autograd.grad(). Specify "
              "retain_graph=True if you need to backward through the graph a second time or if you "
              "need to access saved variables after calling backward.");
  // As PyTorch: pack sees a saved input detached (the original stays the caller's), a saved
  // output as kept (already without history). Only what pack returned is kept from now on.
  const Tensor data = std::move(data_);
  data_ = Tensor();
  try {
    pack_with(std::move(hooks), data, is_output_ ? data : data.detach());
  } catch (...) {
    data_ = data;  // a failing pack hook leaves the saved tensor as it was
    packed_.reset();
    throw;
  }
}

void SavedVariable::release() {
  data_ = Tensor();
  token_.reset();
  packed_.reset();
  hooks_.reset();
  grad_fn_.reset();
}

Tensor SavedVariable::unpack_hooked(const std::shared_ptr<Node>& owner) const {
  const Tensor got = hooks_->unpack(packed_);
  EMBER_CHECK_TYPE(got.defined(), "Output of saved tensor unpack_hook expected to be a Tensor but got "
                   "an undefined tensor");
  // A new tensor over the unpacked data, given the saved tensor's history (PyTorch's
  // make_variable): the hook's tensor itself is left as it was.
  Tensor out = got.variable_data();
  if (!requires_grad_) return out;
  if (is_output_) {
    set_history(out, owner, output_nr_);
  } else if (grad_fn_) {
    set_history(out, grad_fn_, output_nr_);
  } else if (auto acc = grad_accumulator_.lock()) {
    // A saved leaf: gradients through the unpacked tensor reach the leaf's AccumulateGrad.
    AutogradMeta& m = materialize_meta(out);
    m.requires_grad_ = true;
    m.grad_accumulator_ = acc;
    out.impl()->refresh_autograd_key();
  } else {
    EMBER_FAIL("No grad accumulator for a saved leaf");
  }
  return out;
}

Tensor SavedVariable::unpack(const std::shared_ptr<Node>& owner) const {
  if (default_constructed_) return Tensor();
  if (hooks_) return unpack_hooked(owner);
  EMBER_CHECK(data_.defined(),
              "Trying to backward through the graph a second time (or directly access saved "
              "tensors after they have already been freed). Saved intermediate values of the graph "
              "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True "
              "if you need to backward through the graph a second time or if you need to access "
              "saved tensors after calling backward.");
  const uint32_t current = data_.version();
  if (current != saved_version_) {
    std::string which;
    if (is_output_) {
      which = ", which is output " + std::to_string(output_nr_) + " of " + owner->name() + ",";
    } else if (const auto& fn = grad_fn_of(data_)) {
      // As PyTorch: the tensor's history now (the in-place op that bumped it, typically).
      which = ", which is output " + std::to_string(data_.output_nr()) + " of " + fn->name() + ",";
    }
    EMBER_FAIL("one of the variables needed for gradient computation has been modified by an "
               "inplace operation: [", legacy_type_name(data_), " ", data_.sizes(), "]", which,
               " is at version ", current, "; expected version ", saved_version_,
               " instead. Hint: enable anomaly detection to find the operation that failed to "
               "compute its gradient, with ember.autograd.set_detect_anomaly(True).");
  }
  if (!is_output_) return data_;
  // A saved output comes back as a new tensor (PyTorch's make_variable): through the dispatch
  // layer when a handler is in play, so it sees the detach and a wrapper stays a wrapper.
  Tensor out = dispatch::detach_through_dispatch_layer(data_);
  if (!requires_grad_ || !GradMode::is_enabled()) return out.defined() ? out : data_;
  // Double backward through a saved output: give it its history back.
  if (!out.defined() || out.is_same(data_)) out = data_.variable_data();
  out.impl()->set_version_counter(data_.impl()->version_counter());
  set_history(out, owner, output_nr_);
  return out;
}

}  // namespace ember::autograd
