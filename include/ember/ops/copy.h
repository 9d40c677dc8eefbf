// Conversion and copies: to / _to_copy, clone, contiguous, copy_, detach, fill_.
//
//   auto d = ember::_to_copy(t, ember::kFloat64);   // always a new tensor
//   dst.copy_(src);                                  // broadcasts src, converts its dtype
#pragma once

#include <optional>

#include "ember/tensor.h"

namespace ember {

Tensor _to_copy(const Tensor& self, std::optional<ScalarType> dtype = std::nullopt,
                std::optional<Device> device = std::nullopt);
Tensor clone(const Tensor& self);
Tensor clone(const Tensor& self, std::optional<MemoryFormat> memory_format);
Tensor contiguous(const Tensor& self);
Tensor contiguous(const Tensor& self, MemoryFormat memory_format);
Tensor& copy_(Tensor& self, const Tensor& src);
Tensor detach(const Tensor& self);
/// A new TensorImpl viewing the same storage (aten::alias).
Tensor alias(const Tensor& self);
Tensor& fill_(Tensor& self, const Scalar& value);
Tensor& zero_(Tensor& self);

}  // namespace ember
