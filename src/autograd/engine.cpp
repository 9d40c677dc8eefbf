// The backward engine: a topological walk over the graph from the roots, one node at a time,
// on the calling thread (ember has only CPU devices, so PyTorch's per-device worker threads have
// nothing to overlap here).
//
// Note [Engine order]
// A node runs once every edge into it has delivered its gradient (dependency counting over the
// part of the graph reachable from the roots). Among ready nodes, the most recently created
// runs first, as in PyTorch, so hooks fire in the same order.
//
// Note [Backward and torch_function]
// PyTorch's backward formulas are C++, so no __torch_function__ handler or TorchFunctionMode
// sees the ops they call; torch_dispatch handlers do (they sit below autograd). ember's rules
// call ops through the dispatcher like any C++ code, so the engine runs its own work (the
// nodes' formulas, validation, accumulation) with the function layer excluded, and hands the
// caller's state back to the user code it calls: tensor and node hooks, a custom Function's
// backward (UserCodeScope), which PyTorch runs as Python that handlers see.
#include "engine.h"

#include "ember/ops/complex.h"

#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "autograd_meta.h"
#include "ember/autograd/anomaly_mode.h"
#include "ember/autograd/autograd.h"
#include "ember/ops/factory.h"
#include "ember/ops/math.h"
#include "ember/ops/reduce.h"
#include "ember/warning.h"
#include "functions.h"
#include "record.h"

namespace ember::autograd {

namespace {

struct ExecInfo {
  bool needed = false;
  std::vector<std::pair<uint32_t, size_t>> captures;  // (input_nr, index in captured)
  bool should_execute() const { return needed || !captures.empty(); }
};

struct GraphTask {
  KeySet caller_excluded;  // the dispatch state user code gets back (UserCodeScope)
  bool keep_graph = false;
  bool create_graph = false;
  std::unordered_map<Node*, int> dependencies;
  std::unordered_map<Node*, ExecInfo> exec_info;  // empty: run every reachable node
  std::unordered_map<Node*, tensor_list> buffers;
  tensor_list captured;
};

thread_local GraphTask* t_task = nullptr;

struct CurrentTask {
  explicit CurrentTask(GraphTask* t) : prev(std::exchange(t_task, t)) {}
  ~CurrentTask() { t_task = prev; }
  GraphTask* prev;
};

}  // namespace

UserCodeScope::UserCodeScope() {
  if (!t_task) return;
  active_ = true;
  prev_ = dispatch::local_state().excluded;
  dispatch::local_state().excluded = t_task->caller_excluded;
}
UserCodeScope::~UserCodeScope() {
  if (active_) dispatch::local_state().excluded = prev_;
}

namespace {

bool is_expandable_to(IntArrayRef shape, IntArrayRef desired) {
  if (shape.size() > desired.size()) return false;
  for (size_t i = 0; i < shape.size(); ++i) {
    const int64_t s = shape[shape.size() - 1 - i], d = desired[desired.size() - 1 - i];
    if (s != d && s != 1) return false;
  }
  return true;
}

// Note [Validating gradients]
// What a node returns for input i must fit the forward input: the engine sums a gradient of a
// broadcast shape down to the input's shape (the one place un-broadcasting happens, so rules
// for broadcasting ops just return grad-shaped results), casts another floating dtype to the
// input's, and refuses anything else with both shapes.
void validate_outputs(const Node& fn, tensor_list& grads) {
  const edge_list& edges = fn.next_edges();
  EMBER_CHECK(grads.size() == edges.size(), "invalid number of gradients - expected ",
              edges.size(), ", but got ", grads.size());
  for (size_t i = 0; i < grads.size(); ++i) {
    Tensor& g = grads[i];
    if (!edges[i].is_valid()) {
      g = Tensor();
      continue;
    }
    if (!g.defined()) continue;
    const InputMetadata& md = edges[i].function->input_metadata(edges[i].input_nr);
    if (g.sizes() != IntArrayRef(md.shape)) {
      EMBER_CHECK(is_expandable_to(md.shape, g.sizes()), "Function ", fn.name(),
                  " returned an invalid gradient at index ", i, " - got ", g.sizes(),
                  " but expected shape compatible with ", IntArrayRef(md.shape));
      g = sum_to(g, md.shape);
    }
    // A complex gradient for a real input keeps its real part (PyTorch's validate_outputs: the
    // imaginary part is the derivative along a direction the real input cannot move in).
    if (is_complex(g.dtype()) && !is_complex(md.dtype)) g = real(g);
    if (g.dtype() != md.dtype) g = g.to(md.dtype);
    EMBER_CHECK(g.device() == md.device, "Function ", fn.name(),
                " returned an invalid gradient at index ", i, " - expected device ", md.device,
                " but got ", g.device());
  }
}

// Tensor hooks on a node's incoming gradients (and, for AccumulateGrad, its leaf's hooks).
void call_tensor_pre_hooks(Node& fn, tensor_list& inputs) {
  auto run = [&](const Node::TensorHookEntry& h) {
    Tensor& g = inputs[h.input_nr];
    if (!g.defined()) return;
    UserCodeScope user;
    Tensor replaced = h.fn(g);
    if (replaced.defined()) g = std::move(replaced);
  };
  for (const auto& h : fn.tensor_pre_hooks()) run(h);
  if (auto* acc = dynamic_cast<AccumulateGrad*>(&fn)) {
    if (AutogradMeta* m = get_meta(acc->variable())) {
      const auto hooks = m->leaf_hooks_;  // a hook may register or remove hooks
      for (const auto& h : hooks) run(h);
    }
  }
  for (const auto& [nr, hook] : fn.retains_grad_hooks()) {
    if (inputs[nr].defined()) hook(inputs[nr]);
  }
}

// Note [Anomaly mode]: a NaN in a gradient the node produced is an error.
void check_nan_outputs(const Node& fn, const tensor_list& outputs) {
  NoGradGuard no_grad;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& g = outputs[i];
    if (!g.defined() || g.is_meta() || !(is_floating(g.dtype()) || is_complex(g.dtype()))) continue;
    EMBER_CHECK(!isnan(g).any().item<bool>(), "Function '", fn.name(), "' returned nan values in its ", i,
                "th output.");
  }
}

// Note [Anomaly mode]: where the failing node's forward ran, before its error propagates.
void warn_forward_trace(const Node& fn) {
  const auto& trace = fn.forward_trace();
  if (!trace) {
    EMBER_WARN("Error detected in ", fn.name(), ". No forward pass information available. Enable detect ",
               "anomaly during forward pass for more information.");
  } else if (trace->empty()) {
    EMBER_WARN("Error detected in ", fn.name(), ". Its forward ran from C++, where ember records no ",
               "traceback.");
  } else {
    EMBER_WARN("Error detected in ", fn.name(), ". Traceback of forward call that caused the error:\n", *trace);
  }
}

tensor_list call_function_unchecked(GraphTask& task, Node& fn, tensor_list&& inputs);

tensor_list call_function(GraphTask& task, Node& fn, tensor_list&& inputs) {
  if (!AnomalyMode::is_enabled()) return call_function_unchecked(task, fn, std::move(inputs));
  try {
    tensor_list outputs = call_function_unchecked(task, fn, std::move(inputs));
    if (AnomalyMode::should_check_nan()) check_nan_outputs(fn, outputs);
    return outputs;
  } catch (...) {
    warn_forward_trace(fn);
    throw;
  }
}

tensor_list call_function_unchecked(GraphTask& task, Node& fn, tensor_list&& inputs) {
  if (!fn.pre_hooks().empty()) {
    UserCodeScope user;
    for (const auto& [id, hook] : fn.pre_hooks()) {
      tensor_list replaced = hook(inputs);
      if (!replaced.empty()) inputs = std::move(replaced);
    }
  }
  tensor_list saved_inputs;
  if (!fn.post_hooks().empty()) saved_inputs = inputs;
  tensor_list outputs;
  {
    AutoGradMode mode(task.create_graph);
    outputs = fn.apply(std::move(inputs));
  }
  validate_outputs(fn, outputs);
  UserCodeScope user;
  for (const auto& [id, hook] : fn.post_hooks()) {
    tensor_list replaced = hook(outputs, saved_inputs);
    if (!replaced.empty()) outputs = std::move(replaced);
  }
  return outputs;
}

void compute_dependencies(GraphTask& task, Node* root) {
  std::vector<Node*> stack{root};
  std::unordered_set<Node*> seen{root};
  while (!stack.empty()) {
    Node* fn = stack.back();
    stack.pop_back();
    for (const auto& e : fn->next_edges()) {
      Node* next = e.function.get();
      if (!next) continue;
      ++task.dependencies[next];
      if (seen.insert(next).second) stack.push_back(next);
    }
  }
}

// Marks the nodes on a path from the root to an output (PyTorch's init_to_execute).
void init_to_execute(GraphTask& task, Node* root, const edge_list& outputs, bool accumulate_grad) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    Node* fn = outputs[i].function.get();
    ExecInfo& info = task.exec_info[fn];
    if (accumulate_grad && dynamic_cast<AccumulateGrad*>(fn)) {
      info.needed = true;
    } else {
      info.captures.emplace_back(outputs[i].input_nr, i);
    }
  }
  // Iterative post-order DFS: a node is needed when any child should execute.
  struct Frame {
    Node* fn;
    size_t next = 0;
  };
  std::vector<Frame> stack{{root}};
  std::unordered_set<Node*> visited{root};
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next < f.fn->next_edges().size()) {
      Node* child = f.fn->next_edge(f.next++).function.get();
      if (child && visited.insert(child).second) stack.push_back({child});
      continue;
    }
    Node* fn = f.fn;
    stack.pop_back();
    bool needed = false;
    for (const auto& e : fn->next_edges()) {
      if (!e.function) continue;
      auto it = task.exec_info.find(e.function.get());
      if (it != task.exec_info.end() && it->second.should_execute()) needed = true;
    }
    if (needed) task.exec_info[fn].needed = true;
  }
}

}  // namespace

bool task_needs(const Node* fn) {
  if (!t_task || t_task->exec_info.empty()) return true;
  auto it = t_task->exec_info.find(const_cast<Node*>(fn));
  return it != t_task->exec_info.end() && it->second.should_execute();
}

void add_to_current_exec_info(Node* fn) {
  if (t_task && !t_task->exec_info.empty()) t_task->exec_info[fn].needed = true;
}

tensor_list run_backward(const edge_list& roots, const tensor_list& root_grads, bool keep_graph,
                         bool create_graph, const edge_list& outputs, bool accumulate_grad) {
  auto graph_root = std::make_shared<GraphRoot>(roots, root_grads);
  GraphTask task;
  task.caller_excluded = dispatch::local_state().excluded;
  dispatch::ExcludeKeysGuard builtin(DispatchKey::FunctionOverride);  // Note [Backward and ...]
  task.keep_graph = keep_graph;
  task.create_graph = create_graph;
  task.captured.resize(outputs.size());
  compute_dependencies(task, graph_root.get());
  if (!outputs.empty()) init_to_execute(task, graph_root.get(), outputs, accumulate_grad);
  CurrentTask current(&task);

  using Ready = std::pair<uint64_t, Node*>;
  std::priority_queue<Ready> ready;  // Note [Engine order]
  ready.emplace(graph_root->sequence_nr(), graph_root.get());
  // Nodes are kept alive by the edges that reach them while they wait (the graph owns them).
  while (!ready.empty()) {
    Node* fn = ready.top().second;
    ready.pop();
    tensor_list inputs;
    if (auto it = task.buffers.find(fn); it != task.buffers.end()) {
      inputs = std::move(it->second);
      task.buffers.erase(it);
    }
    inputs.resize(fn->num_inputs());
    call_tensor_pre_hooks(*fn, inputs);
    if (!task.exec_info.empty()) {
      auto it = task.exec_info.find(fn);
      if (it != task.exec_info.end()) {
        for (const auto& [input_nr, idx] : it->second.captures) task.captured[idx] = inputs[input_nr];
      }
      if (it == task.exec_info.end() || !it->second.needed) continue;
    }
    // Keep the node alive while it runs (release or hooks may drop the last reference).
    std::shared_ptr<Node> keep = fn == graph_root.get() ? graph_root : fn->shared_from_this();
    tensor_list grads = call_function(task, *fn, std::move(inputs));
    if (!keep_graph) fn->release_variables();
    for (size_t i = 0; i < grads.size(); ++i) {
      const Edge& e = fn->next_edge(i);
      if (!e.is_valid()) continue;
      Node* next = e.function.get();
      tensor_list& buf = task.buffers[next];
      if (buf.empty()) buf.resize(next->num_inputs());
      Tensor& slot = buf[e.input_nr];
      if (grads[i].defined()) slot = slot.defined() ? slot + grads[i] : std::move(grads[i]);
      if (--task.dependencies[next] == 0) ready.emplace(next->sequence_nr(), next);
    }
  }
  return std::move(task.captured);
}

namespace {

// The implicit gradient of a scalar output, as PyTorch's _make_grads creates it: ones_like with
// the tensor options spelled out (what a torch_dispatch handler receives), through the
// dispatcher, so a wrapper subclass's handler makes it (and the whole backward runs on its class).
// (ones_like reaches torch_dispatch whole: Note [Factories torch_dispatch sees whole] in
// src/ops/factory.cpp.)
Tensor root_ones_like(const Tensor& out) {
  const OpHandle& op = dispatch::op_handle(dispatch::OpId::ones_like);
  Stack args{Value(out), Value(out.dtype()), Value(int64_t{0}) /* strided */, Value(out.device()),
             Value(false), Value(static_cast<int64_t>(MemoryFormat::Preserve))};
  return std::move(op.call(args).at(0).to_tensor());
}

// The gradients backward starts from: given ones, or ones for scalar outputs.
tensor_list make_root_grads(const tensor_list& outputs, const tensor_list& grad_outputs) {
  EMBER_CHECK(grad_outputs.empty() || grad_outputs.size() == outputs.size(),
              "grad requires one gradient per output: got ", grad_outputs.size(),
              " gradients for ", outputs.size(), " outputs");
  tensor_list grads;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    EMBER_CHECK(out.defined() && out.requires_grad(), "element ", i,
                " of tensors does not require grad and does not have a grad_fn");
    const Tensor g = grad_outputs.empty() ? Tensor() : grad_outputs[i];
    if (!g.defined()) {
      EMBER_CHECK(out.numel() == 1, "grad can be implicitly created only for scalar outputs");
      grads.push_back(root_ones_like(out));
    } else {
      EMBER_CHECK(g.sizes() == out.sizes(), "Mismatch in shape: grad_output[", i,
                  "] has a shape of ember.Size(", g.sizes(), ") and output[", i,
                  "] has a shape of ember.Size(", out.sizes(), ").");
      grads.push_back(g);
    }
  }
  return grads;
}

// The edges whose incoming gradients backward(inputs=) / grad() want: a leaf's AccumulateGrad
// (created if needed), a non-leaf's grad_fn output.
edge_list input_edges_of(const tensor_list& inputs) {
  edge_list edges;
  for (const auto& in : inputs) {
    EMBER_CHECK(in.defined() && in.requires_grad(),
                "One of the differentiated Tensors does not require grad");
    edges.push_back(in.is_leaf() ? Edge(grad_accumulator(in), 0) : gradient_edge(in));
  }
  return edges;
}

edge_list root_edges(const tensor_list& outputs) {
  edge_list roots;
  for (const auto& o : outputs) roots.push_back(gradient_edge(o));
  return roots;
}

}  // namespace

void backward(const tensor_list& outputs, const tensor_list& grad_outputs,
              std::optional<bool> retain_graph, bool create_graph, const tensor_list& inputs) {
  tensor_list root_grads = make_root_grads(outputs, grad_outputs);
  const bool keep_graph = retain_graph.value_or(create_graph);
  const edge_list input_edges = input_edges_of(inputs);
  // Leaves accumulate through their AccumulateGrad nodes; a non-leaf input's gradient is
  // captured and accumulated into its .grad here.
  tensor_list got = run_backward(root_edges(outputs), root_grads, keep_graph, create_graph,
                                 input_edges, true);
  dispatch::ExcludeKeysGuard builtin(DispatchKey::FunctionOverride);  // Note [Backward and ...]
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].is_leaf() || !got[i].defined()) continue;
    AutogradMeta& m = materialize_meta(inputs[i]);
    AutoGradMode mode(create_graph);
    m.grad_ = m.grad_.defined() ? m.grad_ + got[i] : got[i].clone();
  }
}

tensor_list grad(const tensor_list& outputs, const tensor_list& inputs,
                 const tensor_list& grad_outputs, std::optional<bool> retain_graph,
                 bool create_graph, bool allow_unused) {
  tensor_list root_grads = make_root_grads(outputs, grad_outputs);
  const edge_list input_edges = input_edges_of(inputs);
  tensor_list result = run_backward(root_edges(outputs), root_grads,
                                    retain_graph.value_or(create_graph), create_graph, input_edges,
                                    false);
  for (const auto& g : result) {
    EMBER_CHECK(allow_unused || g.defined(),
                "One of the differentiated Tensors appears to not have been used in the graph. "
                "Set allow_unused=True if this is the desired behavior.");
  }
  return result;
}

}  // namespace ember::autograd
