// The backward engine (internal; the public entry points are in ember/autograd/autograd.h).
#pragma once

#include "ember/autograd/node.h"
#include "ember/dispatch.h"

namespace ember::autograd {

/// Runs the graph from `roots` (with their gradients `root_grads`). With `outputs` empty every
/// reachable node runs; otherwise only the nodes leading to `outputs`, whose incoming gradients
/// are returned in order (captured; not accumulated unless `accumulate_grad`).
tensor_list run_backward(const edge_list& roots, const tensor_list& root_grads, bool keep_graph,
                         bool create_graph, const edge_list& outputs, bool accumulate_grad);

/// While alive, gives user code the engine calls (hooks, a custom Function's backward) the
/// dispatch state of the code that called backward (Note [Backward and torch_function] in
/// engine.cpp). A no-op outside a backward.
class UserCodeScope {
 public:
  UserCodeScope();
  ~UserCodeScope();
  UserCodeScope(const UserCodeScope&) = delete;
  UserCodeScope& operator=(const UserCodeScope&) = delete;

 private:
  bool active_ = false;
  KeySet prev_;
};

/// Whether the running backward executes `fn` (always true outside a backward, and in one
/// that runs the whole graph).
bool task_needs(const Node* fn);

/// Marks `fn` as run by the running backward (CopySlices calls its inner node directly: the
/// nodes that node's gradients lead to were not walked when the backward started).
void add_to_current_exec_info(Node* fn);

}  // namespace ember::autograd
