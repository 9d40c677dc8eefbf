// aten::_embedding_bag and its backward ops (PyTorch's EmbeddingBag.cpp on CPU): bags of
// embedding rows reduced by sum (optionally weighted per sample), mean or max, skipping
// padding_idx. The loops run in float or double (16-bit weights compute in float and round
// once at the end).
#include "ember/ops/embedding_bag.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "../autograd/record.h"
#include "../dispatch/boxing.h"
#include "ember/ops/factory.h"
#include "ember/ops/view.h"
#include "elementwise.h"

namespace ember {

using dispatch::OpId;

namespace {

constexpr int64_t kSum = 0, kMean = 1, kMax = 2;

std::vector<int64_t> int_values(const Tensor& t) {
  const Tensor c = t.to(kInt64).contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

Tensor int_tensor(const std::vector<int64_t>& v, IntArrayRef shape, Device device) {
  Tensor t = empty(shape, TensorOptions(kInt64));
  std::copy(v.begin(), v.end(), t.data_ptr<int64_t>());
  return t.to(device);
}

ScalarType compute_type(ScalarType t) { return t == kFloat64 ? kFloat64 : kFloat32; }

// The bag of each index and the [begin, end) ranges of the bags.
struct Bags {
  int64_t num_bags;
  std::vector<int64_t> begin, end, offset2bag;
};

Bags make_bags(const std::vector<int64_t>& offsets, int64_t num_indices, bool include_last_offset) {
  Bags b;
  const int64_t n = static_cast<int64_t>(offsets.size());
  b.num_bags = include_last_offset ? std::max<int64_t>(n - 1, 0) : n;
  // Indices after the last bag (include_last_offset) belong to none: -1, skipped everywhere.
  b.offset2bag.assign(num_indices, -1);
  for (int64_t i = 0; i < b.num_bags; ++i) {
    const int64_t s = std::clamp<int64_t>(offsets[i], 0, num_indices);
    const int64_t e = i + 1 < n ? std::clamp<int64_t>(offsets[i + 1], s, num_indices) : num_indices;
    b.begin.push_back(s);
    b.end.push_back(include_last_offset && i + 1 == b.num_bags ? std::clamp<int64_t>(offsets[n - 1], s, num_indices) : e);
    for (int64_t k = s; k < b.end.back(); ++k) b.offset2bag[k] = i;
  }
  return b;
}

void check_args(const Tensor& weight, const Tensor& indices, const Tensor& offsets, int64_t mode,
                const std::optional<Tensor>& psw, bool include_last_offset) {
  EMBER_CHECK(indices.dtype() == kInt64 || indices.dtype() == kInt32,
              "embedding_bag: Expected tensor for argument #1 'indices' to have one of the "
              "following scalar types: Long, Int; but got ", scalar_type_name(indices.dtype()),
              " instead");
  EMBER_CHECK(offsets.dtype() == indices.dtype(),
              "embedding_bag: Expected tensor for argument #1 'indices' to have the same type as "
              "tensor for argument #2 'offsets'; but type ", scalar_type_name(indices.dtype()),
              " does not equal ", scalar_type_name(offsets.dtype()));
  EMBER_CHECK(indices.dim() == 1, "input has to be a 1D or 2D Tensor, but got Tensor of dimension ",
              indices.dim());
  EMBER_CHECK(offsets.dim() == 1, "offsets has to be a 1D Tensor, but got Tensor of dimension ",
              offsets.dim());
  EMBER_CHECK(weight.dim() == 2, "weight has to be a 2D Tensor, but got Tensor of dimension ",
              weight.dim());
  EMBER_CHECK(is_floating(weight.dtype()), "\"embedding_bag_cpu_out\" not implemented for '",
              scalar_type_name(weight.dtype()), "'");
  EMBER_CHECK(!include_last_offset || offsets.size(0) >= 1,
              "include_last_offset: number of offset should be at least 1");
  EMBER_CHECK(mode >= 0 && mode <= 2, "embedding_bag: mode must be 0 (sum), 1 (mean) or 2 (max), got ", mode);
  if (psw) {
    EMBER_CHECK(mode == kSum, "embedding_bag: per_sample_weights only supported with mode='sum'");
    EMBER_CHECK(psw->dim() == 1 && psw->size(0) == indices.size(0),
                "embedding_bag: per_sample_weights must be 1D with as many elements as indices");
    EMBER_CHECK(psw->dtype() == weight.dtype(), "expected scalar type ",
                scalar_type_name(weight.dtype()), " but found ", scalar_type_name(psw->dtype()));
  }
}

template <class T>
void bag_forward(const T* w, int64_t dim, const std::vector<int64_t>& idx, const Bags& bags,
                 int64_t mode, const T* psw, int64_t padding_idx, T* out,
                 std::vector<int64_t>& bag_size, std::vector<int64_t>& max_idx) {
  for (int64_t b = 0; b < bags.num_bags; ++b) {
    T* o = out + b * dim;
    std::fill(o, o + dim, T(0));
    int64_t count = 0;
    if (mode == kMax) std::fill(max_idx.begin() + b * dim, max_idx.begin() + (b + 1) * dim, -1);
    for (int64_t k = bags.begin[b]; k < bags.end[b]; ++k) {
      const int64_t r = idx[k];
      if (r == padding_idx) continue;
      const T* row = w + r * dim;
      if (mode == kMax) {
        for (int64_t d = 0; d < dim; ++d) {
          if (count == 0 || row[d] > o[d]) {
            o[d] = row[d];
            max_idx[b * dim + d] = r;
          }
        }
      } else {
        const T s = psw ? psw[k] : T(1);
        for (int64_t d = 0; d < dim; ++d) o[d] += s * row[d];
      }
      ++count;
    }
    if (mode == kMean && count > 0)
      for (int64_t d = 0; d < dim; ++d) o[d] /= static_cast<T>(count);
    bag_size[b] = count;
  }
}

std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag_impl(
    const Tensor& weight, const Tensor& indices, const Tensor& offsets, bool scale_grad_by_freq,
    int64_t mode, bool sparse, const std::optional<Tensor>& psw, bool include_last_offset,
    int64_t padding_idx) {
  (void)scale_grad_by_freq;
  (void)sparse;
  check_args(weight, indices, offsets, mode, psw, include_last_offset);
  const int64_t num = weight.size(0), dim = weight.size(1);
  if (weight.is_meta() || indices.is_meta() || offsets.is_meta()) {
    const int64_t n = offsets.size(0), bags = include_last_offset ? n - 1 : n;
    const TensorOptions io = TensorOptions(indices.dtype()).device(kMeta);
    return {empty({bags, dim}, TensorOptions(weight.dtype()).device(kMeta)),
            empty({indices.size(0)}, io), empty({bags}, io),
            mode == kMax ? empty({bags, dim}, io) : empty({bags}, io)};
  }
  const std::vector<int64_t> offs = int_values(offsets);
  if (!offs.empty()) {
    EMBER_CHECK(offs[0] == 0, "offsets[0] has to be 0, i.e., the first sequence in the "
                "mini-batch has to start from position 0. However, got ", offs[0],
                // PyTorch prints offsets[0] as a 0-d C++ tensor.
                offsets.dtype() == kInt32 ? "\n[ ember.IntTensor{} ]" : "\n[ ember.LongTensor{} ]");
    EMBER_CHECK(offs.back() <= indices.size(0), "offsets[-1] can not be greater than input's "
                "length ", indices.size(0), " but got offsets[-1] of ", offs.back());
  }
  const std::vector<int64_t> idx = int_values(indices);
  for (int64_t r : idx) {
    EMBER_CHECK_INDEX(r >= 0 && r < num, "index ", r, " is out of bounds for dimension 0 with size ", num);
  }
  const Bags bags = make_bags(offs, indices.size(0), include_last_offset);
  const ScalarType ct = compute_type(weight.dtype());
  const Tensor w = weight.to(ct).contiguous();
  const Tensor p = psw ? psw->to(ct).contiguous() : Tensor();
  Tensor out = empty({bags.num_bags, dim}, TensorOptions(ct).device(weight.device()));
  std::vector<int64_t> bag_size(bags.num_bags, 0);
  std::vector<int64_t> max_idx(mode == kMax ? bags.num_bags * dim : 0, -1);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    bag_forward<T>(w.data_ptr<T>(), dim, idx, bags, mode, p.defined() ? p.data_ptr<T>() : nullptr,
                   padding_idx, out.data_ptr<T>(), bag_size, max_idx);
  };
  if (ct == kFloat64) run(double{}); else run(float{});
  const Device dev = weight.device();
  // PyTorch's secondary outputs: bag_size counts the bags' (non-padding) entries for mean and
  // max and is zeros for sum; max_indices is [bags, dim] for max (0 in empty bags, whose
  // gradient the backward skips by bag_size), a copy of bag_size for mean, zeros for sum.
  if (mode == kSum) std::fill(bag_size.begin(), bag_size.end(), 0);
  for (auto& m : max_idx) m = std::max<int64_t>(m, 0);
  Tensor max_indices = mode == kMax ? int_tensor(max_idx, {bags.num_bags, dim}, dev)
                                    : int_tensor(bag_size, {bags.num_bags}, dev);
  // PyTorch's float32 sum over a contiguous weight runs a kernel that makes no offset2bag (an empty tensor; the
  // backward then rebuilds it from the offsets).
  const bool no_offset2bag = mode == kSum && weight.dtype() == kFloat32 && weight.is_contiguous();
  Tensor offset2bag = no_offset2bag ? empty({0}, TensorOptions(kInt64).device(dev))
                                    : int_tensor(bags.offset2bag, {indices.size(0)}, dev);
  return {out.to(weight.dtype()), offset2bag.to(indices.dtype()),
          int_tensor(bag_size, {bags.num_bags}, dev).to(indices.dtype()),
          max_indices.to(indices.dtype())};
}

Tensor dense_backward_impl(const Tensor& grad, const Tensor& indices, const Tensor& offset2bag,
                           const Tensor& bag_size, const Tensor& maximum_indices,
                           int64_t num_weights, bool scale_grad_by_freq, int64_t mode,
                           const std::optional<Tensor>& psw, int64_t padding_idx) {
  const int64_t dim = grad.size(1);
  if (grad.is_meta()) return empty({num_weights, dim}, TensorOptions(grad.dtype()).device(kMeta));
  const ScalarType ct = compute_type(grad.dtype());
  const Tensor g = grad.to(ct).contiguous();
  Tensor gw = zeros({num_weights, dim}, TensorOptions(ct).device(grad.device()));
  const std::vector<int64_t> idx = int_values(indices), o2b = int_values(offset2bag);
  const std::vector<int64_t> sizes = int_values(bag_size);
  std::unordered_map<int64_t, int64_t> freq;
  if (scale_grad_by_freq)
    for (int64_t r : idx) ++freq[r];
  const Tensor p = psw ? psw->to(ct).contiguous() : Tensor();
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* pg = g.data_ptr<T>();
    T* pw = gw.data_ptr<T>();
    if (mode == kMax) {
      const std::vector<int64_t> mi = int_values(maximum_indices);
      const int64_t bags = g.size(0);
      for (int64_t b = 0; b < bags; ++b) {
        if (sizes[b] == 0) continue;  // an empty bag's output is a constant 0
        for (int64_t d = 0; d < dim; ++d) pw[mi[b * dim + d] * dim + d] += pg[b * dim + d];
      }
      return;
    }
    const T* ps = p.defined() ? p.data_ptr<T>() : nullptr;
    for (size_t k = 0; k < idx.size(); ++k) {
      const int64_t r = idx[k];
      if (r == padding_idx) continue;
      const int64_t b = o2b[k];
      if (b < 0) continue;
      T s = ps ? ps[k] : T(1);
      if (mode == kMean && sizes[b] > 0) s /= static_cast<T>(sizes[b]);
      if (scale_grad_by_freq) s /= static_cast<T>(freq[r]);
      for (int64_t d = 0; d < dim; ++d) pw[r * dim + d] += s * pg[b * dim + d];
    }
  };
  if (ct == kFloat64) run(double{}); else run(float{});
  return gw.to(grad.dtype());
}

Tensor psw_backward_impl(const Tensor& grad, const Tensor& weight, const Tensor& indices,
                         const Tensor& offsets, const Tensor& offset2bag, int64_t mode,
                         int64_t padding_idx) {
  (void)offsets;
  EMBER_CHECK(mode == kSum, "embedding_bag_backward: per_sample_weights only supported for mode='sum'");
  const int64_t dim = grad.size(1);
  if (grad.is_meta()) return empty({indices.size(0)}, TensorOptions(grad.dtype()).device(kMeta));
  const ScalarType ct = compute_type(grad.dtype());
  const Tensor g = grad.to(ct).contiguous(), w = weight.to(ct).contiguous();
  const std::vector<int64_t> idx = int_values(indices), o2b = int_values(offset2bag);
  Tensor out = zeros({static_cast<int64_t>(idx.size())}, TensorOptions(ct).device(grad.device()));
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T *pg = g.data_ptr<T>(), *pw = w.data_ptr<T>();
    T* po = out.data_ptr<T>();
    for (size_t k = 0; k < idx.size(); ++k) {
      if (idx[k] == padding_idx || o2b[k] < 0) continue;
      T acc = 0;
      for (int64_t d = 0; d < dim; ++d) acc += pg[o2b[k] * dim + d] * pw[idx[k] * dim + d];
      po[k] = acc;
    }
  };
  if (ct == kFloat64) run(double{}); else run(float{});
  return out.to(grad.dtype());
}

// ---- composites ----
std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag_padding_idx_impl(
    const Tensor& weight, const Tensor& indices, const Tensor& offsets, bool scale_grad_by_freq,
    int64_t mode, bool sparse, const std::optional<Tensor>& psw, bool include_last_offset,
    std::optional<int64_t> padding_idx) {
  int64_t p = -1;
  if (padding_idx) {
    const int64_t n = weight.size(0);
    EMBER_CHECK(*padding_idx >= -n && *padding_idx < n, "padding_idx must be within the number "
                "of embeddings, -", n, " through ", n - 1, ", but got ", *padding_idx);
    p = *padding_idx < 0 ? *padding_idx + n : *padding_idx;
  }
  return _embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, psw,
                        include_last_offset, p);
}

std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag_impl_composite(
    const Tensor& weight, const Tensor& indices, const Tensor& offsets, bool scale_grad_by_freq,
    int64_t mode, bool sparse, const std::optional<Tensor>& psw, bool include_last_offset) {
  return _embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, psw,
                        include_last_offset, -1);
}

// ---- autograd ----
// GCC 12 reports a bogus -Wstringop-overflow in the vector growth that Recorder::finish inlines
// here (four outputs); the code writes within bounds (ASan builds check it).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag_autograd(
    const Tensor& weight, const Tensor& indices, const Tensor& offsets,
    const bool& scale_grad_by_freq, const int64_t& mode, const bool& sparse,
    const std::optional<Tensor>& psw, const bool& include_last_offset, const int64_t& padding_idx) {
  autograd::Recorder r("EmbeddingBagBackward0", weight, psw);
  auto outs = r.forward([&] {
    return dispatch::call<embedding_bag_impl>(OpId::_embedding_bag, weight, indices, offsets,
                                              scale_grad_by_freq, mode, sparse, psw,
                                              include_last_offset, padding_idx);
  });
  if (!r) return outs;
  const int64_t num_weights = weight.size(0), indices_size = indices.size(0);
  const Device grad_device = weight.device();
  const size_t w_ = r.save_if(r.needs(1), weight, "weight");
  const size_t idx_ = r.save(indices, "indices");
  const size_t off_ = r.save(offsets, "offsets");
  const size_t psw_ = r.save_if(psw.has_value(), psw, "per_sample_weights");
  r.values("mode", mode, "padding_idx", padding_idx, "scale_grad_by_freq", scale_grad_by_freq, "sparse", sparse,
           "weight_argsize_0", num_weights);
  const std::vector<bool> only_first{true, false, false, false};  // the output only
  auto list = r.finish(
      std::vector<Tensor>{std::get<0>(outs), std::get<1>(outs), std::get<2>(outs), std::get<3>(outs)},
      [=](autograd::OpNode& n, const autograd::tensor_list& g) -> autograd::tensor_list {
        Tensor o2b = n.saved(psw_ + 1);
        const Tensor bsz = n.saved(psw_ + 2), mi = n.saved(psw_ + 3);
        if (o2b.numel() == 0 && indices_size > 0) {
          const Bags b = make_bags(int_values(n.saved(off_)), indices_size, include_last_offset);
          o2b = int_tensor(b.offset2bag, {indices_size}, grad_device);
        }
        const std::optional<Tensor> p = psw ? std::optional<Tensor>(n.saved(psw_)) : std::nullopt;
        Tensor gw, gp;
        if (n.needs(0)) {
          gw = _embedding_bag_dense_backward(g[0], n.saved(idx_), o2b, bsz, mi, num_weights,
                                             scale_grad_by_freq, mode, p, padding_idx);
        }
        if (n.needs(1)) {
          gp = _embedding_bag_per_sample_weights_backward(g[0], n.saved(w_), n.saved(idx_),
                                                          n.saved(off_), o2b, mode, padding_idx);
        }
        return {gw, gp};
      },
      only_first);
  r.save_output(list[1], "result1");
  r.save_output(list[2], "result2");
  r.save_output(list[3], "result3");
  return {list[0], list[1], list[2], list[3]};
}
#pragma GCC diagnostic pop

}  // namespace

EMBER_REGISTER_AUTOGRAD(_embedding_bag, &embedding_bag_autograd);

std::tuple<Tensor, Tensor, Tensor, Tensor> _embedding_bag(
    const Tensor& weight, const Tensor& indices, const Tensor& offsets, bool scale_grad_by_freq,
    int64_t mode, bool sparse, const std::optional<Tensor>& psw, bool include_last_offset,
    int64_t padding_idx) {
  return dispatch::call<embedding_bag_impl>(OpId::_embedding_bag, weight, indices, offsets,
                                            scale_grad_by_freq, mode, sparse, psw,
                                            include_last_offset, padding_idx);
}
std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag(
    const Tensor& weight, const Tensor& indices, const Tensor& offsets, bool scale_grad_by_freq,
    int64_t mode, bool sparse, const std::optional<Tensor>& psw, bool include_last_offset) {
  return dispatch::call<embedding_bag_impl_composite>(OpId::embedding_bag, weight, indices,
                                                      offsets, scale_grad_by_freq, mode, sparse,
                                                      psw, include_last_offset);
}
std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag(
    const Tensor& weight, const Tensor& indices, const Tensor& offsets, bool scale_grad_by_freq,
    int64_t mode, bool sparse, const std::optional<Tensor>& psw, bool include_last_offset,
    std::optional<int64_t> padding_idx) {
  return dispatch::call<embedding_bag_padding_idx_impl>(
      OpId::embedding_bag_padding_idx, weight, indices, offsets, scale_grad_by_freq, mode, sparse,
      psw, include_last_offset, padding_idx);
}
Tensor _embedding_bag_dense_backward(const Tensor& grad, const Tensor& indices,
                                     const Tensor& offset2bag, const Tensor& bag_size,
                                     const Tensor& maximum_indices, int64_t num_weights,
                                     bool scale_grad_by_freq, int64_t mode,
                                     const std::optional<Tensor>& psw, int64_t padding_idx) {
  return dispatch::call<dense_backward_impl>(OpId::_embedding_bag_dense_backward, grad, indices,
                                             offset2bag, bag_size, maximum_indices, num_weights,
                                             scale_grad_by_freq, mode, psw, padding_idx);
}
Tensor _embedding_bag_per_sample_weights_backward(const Tensor& grad, const Tensor& weight,
                                                  const Tensor& indices, const Tensor& offsets,
                                                  const Tensor& offset2bag, int64_t mode,
                                                  int64_t padding_idx) {
  return dispatch::call<psw_backward_impl>(OpId::_embedding_bag_per_sample_weights_backward, grad,
                                           weight, indices, offsets, offset2bag, mode, padding_idx);
}

namespace {
using EmbeddingBagFn = std::tuple<Tensor, Tensor, Tensor, Tensor> (*)(
    const Tensor&, const Tensor&, const Tensor&, bool, int64_t, bool, const std::optional<Tensor>&,
    bool);
using EmbeddingBagPadFn = std::tuple<Tensor, Tensor, Tensor, Tensor> (*)(
    const Tensor&, const Tensor&, const Tensor&, bool, int64_t, bool, const std::optional<Tensor>&,
    bool, std::optional<int64_t>);
}  // namespace

EMBER_REGISTER_OP(_embedding_bag, &_embedding_bag);
EMBER_REGISTER_OP(embedding_bag, static_cast<EmbeddingBagFn>(&embedding_bag));
EMBER_REGISTER_OP(embedding_bag_padding_idx, static_cast<EmbeddingBagPadFn>(&embedding_bag));
EMBER_REGISTER_OP(_embedding_bag_dense_backward, &_embedding_bag_dense_backward);
EMBER_REGISTER_OP(_embedding_bag_per_sample_weights_backward,
                  &_embedding_bag_per_sample_weights_backward);

}  // namespace ember
