// Concatenation, gather / scatter, index_select and embedding.
//
//   auto c = ember::cat({a, b}, 1);     auto s = ember::stack({a, b});
//   auto g = ember::gather(t, 1, idx);  auto e = ember::embedding(weight, ids);
#pragma once

#include "ember/tensor.h"

namespace ember {

Tensor cat(ArrayRef<Tensor> tensors, int64_t dim = 0);
Tensor stack(ArrayRef<Tensor> tensors, int64_t dim = 0);
Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index);
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor& scatter_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
/// weight[indices]: rows of a (num_embeddings, dim) table; the result has shape
/// indices.shape + [dim]. indices are int64 or int32. padding_idx (-1: none, else within
/// [-num_embeddings, num_embeddings)), scale_grad_by_freq and sparse only shape the gradient.
Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx = -1,
                 bool scale_grad_by_freq = false, bool sparse = false);
/// embedding's gradient for weight (PyTorch's op): a (num_weights, D) tensor, each looked-up
/// row's gradient added into its row, scaled by 1 / count with scale_grad_by_freq, none for
/// rows equal to padding_idx (>= 0).
Tensor embedding_dense_backward(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                int64_t padding_idx, bool scale_grad_by_freq);

}  // namespace ember
