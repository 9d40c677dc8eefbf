// Deterministic algorithms (torch.use_deterministic_algorithms, at::globalContext()'s
// deterministicAlgorithms): a process-wide request that ops use deterministic algorithms, and
// raise (or, with warn_only, warn) where only a nondeterministic one exists.
//
//   ember::use_deterministic_algorithms(true);
//   ember::deterministic_algorithms_enabled();  // true
//
// ember's kernels are CPU kernels and all deterministic: their results depend only on their
// inputs and the thread count (index_add / scatter sums run in index order, reductions in a
// fixed chunk order). PyTorch 1.13 raises under this flag only for CUDA kernels, which ember does
// not have, so no ember op refuses to run; the setting is kept and reported as PyTorch does.
#pragma once

namespace ember {

/// Sets the flag; warn_only: ops without a deterministic algorithm would warn instead of raising.
void use_deterministic_algorithms(bool enabled, bool warn_only = false);
bool deterministic_algorithms_enabled();
bool deterministic_algorithms_warn_only();

}  // namespace ember
