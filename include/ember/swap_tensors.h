// torch.utils.swap_tensors for C++: exchange the contents of two tensors so that every handle to
// either sees the other's data, shape, dtype, autograd state and subclass.
#pragma once

#include "ember/tensor.h"

namespace ember::utils {

/// Swaps everything the two TensorImpls hold (ember::TensorImpl::swap_contents). Refuses a tensor
/// that the autograd graph saved for backward (its backward would read the other's data):
/// "Expected use_count of t1 to be 1 or 2 with an AccumulateGrad node but got N make sure you
/// are not holding references to the tensor in other places." A leaf's AccumulateGrad node is
/// poisoned instead, so a backward through the old graph fails loudly.
///
/// In C++ other Tensor handles are not "references held elsewhere": sharing handles is how
/// C++ code holds tensors, and the swap is what they are meant to see (an optimizer holding a
/// module's parameters sees the converted ones). The Python front end adds Python's checks.
void swap_tensors(const Tensor& t1, const Tensor& t2);

/// Installed by the Python front end: called by swap_tensors after its checks and before the
/// contents move, so that the tensors' Python objects exchange their class, __dict__ and slots
/// too (a subclass's attributes belong with its data, as torch.utils.swap_tensors swaps them).
extern void (*python_swap_hook)(const Tensor& t1, const Tensor& t2);

}  // namespace ember::utils
