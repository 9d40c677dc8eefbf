// Layouts: how a tensor's elements are stored. ember has one, strided (dense memory addressed
// by sizes and strides), as PyTorch's torch.strided; the sparse and mkldnn layouts of libtorch
// do not exist here. Spelled as libtorch's, so TensorOptions().layout(ember::kStrided) ports.
#pragma once

#include <cstdint>
#include <ostream>

namespace ember {

enum class Layout : int8_t { Strided = 0 };  // c10's number for strided (the schemas box it so)
constexpr Layout kStrided = Layout::Strided;

/// "ember.strided", as PyTorch prints torch.strided.
inline std::ostream& operator<<(std::ostream& os, Layout) { return os << "ember.strided"; }

}  // namespace ember
