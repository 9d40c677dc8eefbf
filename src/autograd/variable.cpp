// A tensor's autograd state: requires_grad, grad, grad_fn, history of views and in-place ops,
// tensor hooks. The Tensor methods of the autograd section of tensor.h are defined here.
#include <atomic>

#include "autograd_meta.h"
#include "ember/autograd/autograd.h"
#include "ember/grad_mode.h"
#include "ember/ops/copy.h"
#include "functions.h"

namespace ember::autograd {

AutogradMeta& materialize_meta(const Tensor& t) {
  EMBER_CHECK(t.defined(), "autograd: the tensor is undefined");
  if (auto* m = get_meta(t)) return *m;
  auto m = std::make_unique<AutogradMeta>();
  AutogradMeta* raw = m.get();
  t.impl()->set_autograd_meta(std::move(m));
  return *raw;
}

// Note [Views and in-place writes]
// A view shares its base's memory, so an in-place write through either changes both. After a
// recorded write on a view, the base's history becomes CopySlices (rebase_history) and the
// view's history must be re-derived from it; after a write on the base (or another view), this
// view's old grad_fn is stale too. Both are detected the same way, as in PyTorch: the view
// remembers the version its grad_fn was made at (attr_version_), and a mismatch regenerates the
// grad_fn as AsStridedBackward0 over the base's current history.
namespace {
void regenerate_view_grad_fn(const Tensor& view, AutogradMeta& m) {
  Tensor base(view.impl()->view_base());
  auto fn = std::make_shared<AsStridedBackward0>(TensorGeometry(base), TensorGeometry(view));
  fn->set_next_edges({gradient_edge(base)});
  fn->add_input_metadata(view);
  m.grad_fn_ = std::move(fn);
  m.output_nr_ = 0;
  m.attr_version_ = view.version();
}
}  // namespace

const std::shared_ptr<Node>& grad_fn_of(const Tensor& t) {
  static const std::shared_ptr<Node> kNone;
  AutogradMeta* m = get_meta(t);
  if (!m) return kNone;
  if (m->grad_fn_ && t.impl()->is_view() && m->attr_version_ != t.version()) {
    regenerate_view_grad_fn(t, *m);
  }
  return m->grad_fn_;
}

void set_history(const Tensor& t, const std::shared_ptr<Node>& fn, uint32_t output_nr) {
  AutogradMeta& m = materialize_meta(t);
  m.grad_fn_ = fn;
  m.output_nr_ = output_nr;
  m.attr_version_ = t.version();
  t.impl()->refresh_autograd_key();
}

std::shared_ptr<Node> grad_accumulator(const Tensor& t) {
  AutogradMeta& m = materialize_meta(t);
  if (auto acc = m.grad_accumulator_.lock()) return acc;
  auto acc = std::make_shared<AccumulateGrad>(t);
  acc->add_input_metadata(t);
  m.grad_accumulator_ = acc;
  return acc;
}

Edge gradient_edge(const Tensor& t) {
  if (const auto& fn = grad_fn_of(t)) return Edge(fn, get_meta(t)->output_nr_);
  AutogradMeta* m = get_meta(t);
  if (m && m->requires_grad_) return Edge(grad_accumulator(t), 0);
  return Edge();
}

edge_list collect_next_edges(ArrayRef<Tensor> ts) {
  edge_list edges;
  edges.reserve(ts.size());
  for (const auto& t : ts) edges.push_back(t.defined() ? gradient_edge(t) : Edge());
  return edges;
}

void set_view_creation(const Tensor& view, CreationMeta meta, const std::string& creator) {
  AutogradMeta& m = materialize_meta(view);
  m.view_meta_set_ = true;
  m.creation_meta_ = meta;
  m.creator_name_ = creator;
}

namespace {
// The creation kinds that forbid recorded in-place writes (PyTorch's handle_view_on_rebase).
void handle_view_on_rebase(const Tensor& view) {
  const AutogradMeta* m = get_meta(view);
  CreationMeta cm = m && m->view_meta_set_ ? m->creation_meta_ : CreationMeta::Default;
  if (cm == CreationMeta::Default && view.impl()->view_made_without_grad()) {
    cm = CreationMeta::NoGradMode;
  }
  switch (cm) {
    case CreationMeta::Default: return;
    case CreationMeta::NoGradMode:
      EMBER_FAIL("A view was created in no_grad mode and is being modified inplace with grad mode "
                 "enabled. Given that this use case is ambiguous and error-prone, it is forbidden. "
                 "You can clarify your code by moving both the view and the inplace either both "
                 "inside the no_grad block (if you don't want the inplace to be tracked) or both "
                 "outside (if you want the inplace to be tracked).");
    case CreationMeta::MultiOutputNode:
      EMBER_FAIL("Output ", view.output_nr(), " of ", m->creator_name_,
                 " is a view and is being modified inplace. This view is the output of a function "
                 "that returns multiple views. Such functions do not allow the output views to be "
                 "modified inplace. You should replace the inplace operation by an out-of-place "
                 "one.");
    case CreationMeta::InCustomFunction:
      EMBER_FAIL("Output ", view.output_nr(), " of ", m->creator_name_,
                 " is a view and is being modified inplace. This view was created inside a custom "
                 "Function (or because an input was returned as-is) and the autograd logic to "
                 "handle view+inplace would override the custom backward associated with the "
                 "custom Function, leading to incorrect gradients. This behavior is forbidden. You "
                 "can fix this by cloning the output of the custom Function.");
  }
}
}  // namespace

void check_inplace(const Tensor& self) {
  // PyTorch's order: the view's creation kind, then view of a leaf, then leaf.
  if (self.impl()->is_view()) {
    handle_view_on_rebase(self);
    Tensor base(self.impl()->view_base());
    if (self.requires_grad() && base.is_leaf()) {
      EMBER_FAIL("a view of a leaf Variable that requires grad is being used in an in-place "
                 "operation.");
    }
  }
  if (self.is_leaf() && get_meta(self) && get_meta(self)->requires_grad_) {
    EMBER_FAIL("a leaf Variable that requires grad is being used in an in-place operation.");
  }
}

void rebase_history(const Tensor& self, const std::shared_ptr<Node>& fn) {
  if (self.impl()->is_view()) {
    handle_view_on_rebase(self);
    Tensor base(self.impl()->view_base());
    auto copy_slices = std::make_shared<CopySlices>(base, self, fn);
    set_history(base, copy_slices, 0);
    // The view's history: AsStridedBackward0 over the base's new one (grad_fn_of regenerates
    // it because the view's recorded version is now stale).
    regenerate_view_grad_fn(self, materialize_meta(self));
    self.impl()->refresh_autograd_key();
    return;
  }
  set_history(self, fn, 0);
}

}  // namespace ember::autograd

namespace ember {

using autograd::AutogradMeta;
using autograd::get_meta;
using autograd::materialize_meta;

Tensor& Tensor::requires_grad_(bool requires_grad) {
  if (requires_grad) {
    EMBER_CHECK(is_floating(dtype()) || ember::is_complex(dtype()), "only Tensors of floating point dtype can require gradients");
  } else {
    EMBER_CHECK(is_leaf(),
                "you can only change requires_grad flags of leaf variables. If you want to use a "
                "computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach().");
  }
  if (is_leaf()) {
    if (!requires_grad && !get_meta(*this)) return *this;
    materialize_meta(*this).requires_grad_ = requires_grad;
    impl_->refresh_autograd_key();
  }
  return *this;
}

Tensor Tensor::grad() const {
  const AutogradMeta* m = get_meta(*this);
  return m ? m->grad_ : Tensor();
}

void Tensor::set_grad(const Tensor& grad) const {
  if (grad.defined()) {
    EMBER_CHECK(grad.dtype() == dtype(), "assigned grad has data of a different type");
    EMBER_CHECK(grad.device() == device(), "assigned grad has data located on a different device");
    EMBER_CHECK(grad.sizes() == sizes(), "assigned grad has data of a different size");
  }
  materialize_meta(*this).grad_ = grad;
}

std::shared_ptr<autograd::Node> Tensor::grad_fn() const { return autograd::grad_fn_of(*this); }

bool Tensor::is_leaf() const { return autograd::grad_fn_of(*this) == nullptr; }

uint32_t Tensor::output_nr() const {
  const AutogradMeta* m = get_meta(*this);
  return m ? m->output_nr_ : 0;
}

void Tensor::retain_grad() const {
  EMBER_CHECK(requires_grad(), "can't retain_grad on Tensor that has requires_grad=False");
  if (is_leaf()) return;  // leaves keep .grad anyway
  AutogradMeta& m = materialize_meta(*this);
  if (m.retains_grad_) return;
  if (!m.alive_) m.alive_ = std::make_shared<int>(0);
  std::weak_ptr<int> alive = m.alive_;
  AutogradMeta* target = &m;
  grad_fn()->set_retains_grad_hook(output_nr(), [alive, target](const Tensor& g) {
    if (alive.expired() || !g.defined()) return;
    NoGradGuard no_grad;
    // The first gradient is copied (the engine may keep using its buffer); later ones add.
    target->grad_ =
        target->grad_.defined() ? target->grad_ + g : g.clone(MemoryFormat::Contiguous);
  });
  m.retains_grad_ = true;
}

bool Tensor::retains_grad() const {
  const AutogradMeta* m = get_meta(*this);
  return m && m->retains_grad_;
}

void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph,
                      const std::vector<Tensor>& inputs) const {
  autograd::backward({*this}, gradient.defined() ? autograd::tensor_list{gradient}
                                                 : autograd::tensor_list{},
                     retain_graph, create_graph, inputs);
}

Tensor& Tensor::detach_() {
  EMBER_CHECK(!is_view(),
              "Can't detach views in-place. Use detach() instead. If you are using "
              "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as "
              "True, gradients are views of DDP buckets, and hence detach_() cannot be called on "
              "these gradients. To fix this error, please refer to the Optimizer.zero_grad() "
              "function in torch/optim/optimizer.py as the solution.");
  if (AutogradMeta* m = get_meta(*this)) {
    m->grad_fn_.reset();
    m->requires_grad_ = false;
    m->output_nr_ = 0;
    impl_->refresh_autograd_key();
  }
  return *this;
}

Tensor Tensor::variable_data() const {
  auto impl = make_intrusive<TensorImpl>(impl_->storage(), dtype(), sizes(), strides(),
                                         storage_offset());
  impl->set_quantizer(impl_->quantizer());
  return Tensor(std::move(impl));
}

bool Tensor::is_parameter() const {
  const AutogradMeta* m = get_meta(*this);
  return m && m->is_parameter_;
}

void Tensor::set_data(const Tensor& new_data) const {
  EMBER_CHECK(new_data.defined(), "set_data: the new data is undefined");
  EMBER_CHECK(device().type == new_data.device().type,
              "Attempted to call `variable.set_data(tensor)`, but `variable` and `tensor` have "
              "incompatible tensor type.");
  if (AutogradMeta* m = get_meta(*this)) {
    // Its AccumulateGrad validates gradients against the old dtype / shape: make a new one.
    if (new_data.dtype() != dtype() || new_data.device() != device() ||
        new_data.sizes() != sizes()) {
      m->grad_accumulator_.reset();
    }
  }
  impl_->shallow_copy_from(*new_data.impl());
}

unsigned Tensor::register_hook(std::function<Tensor(const Tensor&)> hook) const {
  EMBER_CHECK(requires_grad(),
              "cannot register a hook on a tensor that doesn't require gradient");
  const unsigned id = autograd::next_hook_id();
  if (const auto& fn = grad_fn()) {
    fn->add_tensor_pre_hook(output_nr(), std::move(hook), id);
  } else {
    materialize_meta(*this).leaf_hooks_.push_back({0, id, std::move(hook)});
  }
  return id;
}

unsigned Tensor::register_post_accumulate_grad_hook(std::function<void(const Tensor&)> hook) const {
  EMBER_CHECK(is_leaf(), "post accumulate grad hooks cannot be registered on non-leaf tensors");
  EMBER_CHECK(requires_grad(),
              "cannot register a hook on a tensor that doesn't require gradient");
  const unsigned id = autograd::next_hook_id();
  materialize_meta(*this).post_acc_hooks_.emplace_back(id, std::move(hook));
  return id;
}

void Tensor::remove_hook(unsigned id) const {
  if (AutogradMeta* m = get_meta(*this)) {
    std::erase_if(m->leaf_hooks_, [id](const auto& h) { return h.id == id; });
    std::erase_if(m->post_acc_hooks_, [id](const auto& h) { return h.first == id; });
    if (m->grad_fn_) m->grad_fn_->remove_tensor_pre_hook(id);
  }
}

}  // namespace ember
