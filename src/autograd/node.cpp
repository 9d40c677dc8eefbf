#include <atomic>

#include "autograd_meta.h"
#include "ember/autograd/anomaly_mode.h"
#include "engine.h"

namespace ember::autograd {

namespace {
std::atomic<uint64_t> g_next_sequence_nr{0};
std::atomic<unsigned> g_next_hook_id{1};
}  // namespace

unsigned next_hook_id() { return g_next_hook_id.fetch_add(1, std::memory_order_relaxed); }

Node::Node()
    : sequence_nr_(g_next_sequence_nr.fetch_add(1, std::memory_order_relaxed)),
      forward_trace_(capture_forward_trace()) {}
Node::Node(edge_list next_edges) : Node() { next_edges_ = std::move(next_edges); }

uint32_t Node::add_input_metadata(const Tensor& t) {
  if (!t.defined()) return add_input_metadata(InputMetadata{});
  return add_input_metadata(InputMetadata{t.sizes().vec(), t.dtype(), t.device()});
}
uint32_t Node::add_input_metadata(InputMetadata m) {
  input_metadata_.push_back(std::move(m));
  return static_cast<uint32_t>(input_metadata_.size() - 1);
}

bool Node::should_compute_output(size_t i) const {
  if (i >= next_edges_.size() || !next_edges_[i].is_valid()) return false;
  return task_needs(next_edges_[i].function.get());
}

void Node::add_tensor_pre_hook(uint32_t input_nr, TensorPreHook hook, unsigned id) {
  tensor_pre_hooks_.push_back({input_nr, id, std::move(hook)});
}
bool Node::remove_tensor_pre_hook(unsigned id) {
  return std::erase_if(tensor_pre_hooks_, [id](const auto& h) { return h.id == id; }) > 0;
}
void Node::set_retains_grad_hook(uint32_t input_nr, std::function<void(const Tensor&)> hook) {
  std::erase_if(retains_grad_hooks_, [input_nr](const auto& h) { return h.first == input_nr; });
  retains_grad_hooks_.emplace_back(input_nr, std::move(hook));
}
unsigned Node::register_prehook(NodePreHook hook) {
  const unsigned id = next_hook_id();
  pre_hooks_.emplace_back(id, std::move(hook));
  return id;
}
unsigned Node::register_hook(NodePostHook hook) {
  const unsigned id = next_hook_id();
  post_hooks_.emplace_back(id, std::move(hook));
  return id;
}
bool Node::remove_hook(unsigned id) {
  auto match = [id](const auto& h) { return h.first == id; };
  return std::erase_if(pre_hooks_, match) + std::erase_if(post_hooks_, match) > 0;
}

}  // namespace ember::autograd
