// Non-reentrant activation checkpointing over saved-tensor hooks (Note [Non-reentrant
// checkpoint] in include/ember/utils/checkpoint.h).
#include "ember/utils/checkpoint.h"

#include <vector>

#include "ember/autograd/saved_tensor_hooks.h"
#include "ember/error.h"
#include "ember/generator.h"
#include "ember/grad_mode.h"

namespace ember::utils {

namespace {

struct CheckpointState;

// What the graph keeps for each saved tensor: a placeholder that knows its slot. When the graph
// frees it, the slot's recomputed tensor goes too (PyTorch keys its storage weakly by holder).
struct Holder {
  std::weak_ptr<CheckpointState> state;
  size_t slot = 0;
  ~Holder();
};

struct CheckpointState {
  CheckpointFn fn;
  autograd::tensor_list inputs;
  bool preserve_rng_state = true;
  Tensor fwd_rng_state;
  std::vector<std::weak_ptr<Holder>> holders;  // in save order
  std::vector<Tensor> storage;                 // recomputed tensors, by slot
  size_t filled = 0;

  void recompute();
};

Holder::~Holder() {
  if (auto s = state.lock(); s && s->storage[slot].defined()) {
    s->storage[slot] = Tensor();
    --s->filled;
  }
}

// The recomputation's own saves fill the placeholders, in order; nothing else is kept.
class FillingHooks final : public autograd::SavedTensorHooks {
 public:
  explicit FillingHooks(CheckpointState& s) : s_(s) {}
  std::shared_ptr<void> pack(const Tensor& inner) override {
    const size_t slot = count_++;
    EMBER_CHECK(slot < s_.holders.size(), "checkpoint: the recomputation saved more tensors than the ",
                "forward did (", s_.holders.size(), "); the checkpointed function must do the same work ",
                "when it runs again from the same RNG state");
    if (!s_.holders[slot].expired() && !s_.storage[slot].defined()) {
      s_.storage[slot] = inner.detach();  // not the recomputation's graph
      ++s_.filled;
    }
    return nullptr;
  }
  Tensor unpack(const std::shared_ptr<void>&) override {
    EMBER_FAIL("You are calling backwards on a tensor that is never exposed. Please open an issue.");
  }

 private:
  CheckpointState& s_;
  size_t count_ = 0;
};

void CheckpointState::recompute() {
  Tensor outer_rng;
  if (preserve_rng_state) {
    outer_rng = get_rng_state();
    set_rng_state(fwd_rng_state);
  }
  struct RestoreRng {
    const Tensor& state;
    ~RestoreRng() {
      if (state.defined()) set_rng_state(state);
    }
  } restore{outer_rng};
  AutoGradMode enable_grad(true);
  autograd::SavedTensorsHooksGuard fill(std::make_shared<FillingHooks>(*this));
  (void)fn(inputs);
}

class PlaceholderHooks final : public autograd::SavedTensorHooks {
 public:
  explicit PlaceholderHooks(std::shared_ptr<CheckpointState> s) : s_(std::move(s)) {}
  std::shared_ptr<void> pack(const Tensor&) override {
    auto holder = std::make_shared<Holder>();
    holder->state = s_;
    holder->slot = s_->holders.size();
    s_->holders.push_back(holder);
    s_->storage.emplace_back();
    return holder;
  }
  Tensor unpack(const std::shared_ptr<void>& packed) override {
    const auto* holder = static_cast<const Holder*>(packed.get());
    if (s_->filled == 0) s_->recompute();
    const Tensor& t = s_->storage[holder->slot];
    EMBER_CHECK(t.defined(), "Attempt to retrieve a tensor saved by autograd multiple times without ",
                "checkpoint recomputation being triggered in between, this is not currently supported.");
    return t;
  }

 private:
  std::shared_ptr<CheckpointState> s_;
};

}  // namespace

autograd::tensor_list checkpoint(const CheckpointFn& fn, const autograd::tensor_list& inputs,
                                 bool preserve_rng_state) {
  EMBER_CHECK(static_cast<bool>(fn), "checkpoint: expected a function, got an empty one");
  auto state = std::make_shared<CheckpointState>();
  state->fn = fn;
  state->inputs = inputs;
  state->preserve_rng_state = preserve_rng_state;
  if (preserve_rng_state) state->fwd_rng_state = get_rng_state();
  autograd::SavedTensorsHooksGuard placeholders(std::make_shared<PlaceholderHooks>(state));
  return fn(inputs);
}

}  // namespace ember::utils
