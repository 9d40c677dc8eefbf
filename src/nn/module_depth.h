// A bound on the depth of the recursive walks over a module tree (train, apply, repr,
// state_dict, loading, _apply): a module registered inside its own subtree makes the tree a
// graph with a cycle, and PyTorch's Python recursion then stops with RecursionError. Without
// the bound ember's C++ recursion would overflow the stack.
#pragma once

#include "ember/error.h"

namespace ember::nn::detail {

class ModuleDepthGuard {
 public:
  // Python's default recursion limit.
  static constexpr int kMaxDepth = 1000;
  ModuleDepthGuard() {
    if (++depth() > kMaxDepth) {
      --depth();
      EMBER_FAIL("maximum recursion depth exceeded while walking the module tree (is a module "
                 "registered inside its own subtree?)");
    }
  }
  ~ModuleDepthGuard() { --depth(); }
  ModuleDepthGuard(const ModuleDepthGuard&) = delete;
  ModuleDepthGuard& operator=(const ModuleDepthGuard&) = delete;

 private:
  static int& depth() {
    thread_local int d = 0;
    return d;
  }
};

}  // namespace ember::nn::detail
