// The one strided loop for every reduction kernel (Note [Reduction loop]), and the strided
// index helper that cumsum and sort use to walk lines of a tensor.
//
//   ReduceGeometry g(input, /*dims=*/{0, 2});       // dims wrapped, unique
//   run_reduce(g, input.data_ptr<float>(), SumOp{...});
//
// An Op provides
//   using in_t, acc_t;
//   acc_t identity() const;
//   acc_t step(acc_t a, in_t x, int64_t idx) const;   // idx: position in the reduced block
//   acc_t merge(acc_t a, acc_t b) const;              // associative; a holds lower positions
//   void write(int64_t o, acc_t a) const;             // o: linear index into the contiguous output
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "ember/parallel.h"
#include "ember/tensor.h"

namespace ember::cpu {

// Note [Reduction loop]
// Outputs are always freshly allocated and contiguous, so an output is named by its linear index
// o over the kept dims. The input is split into kept dims (which pick the output) and reduced
// dims (which make the block one output reduces). Size-1 dims are dropped, the reduced dims are
// ordered by stride (largest outermost) and adjacent dims that are contiguous with each other are
// merged, so a transposed or sliced input walks memory as densely as its layout allows.
//
// Two shapes of work:
//  * per output: one output reduces its block; when the block's innermost dim is contiguous its
//    runs go through kLanes independent accumulators, which the compiler vectorizes.
//  * vertical: the innermost reduced dim is strided but some kept dim has stride 1 (sum over
//    dim 0 of a row-major matrix). A tile of up to kTile neighbouring outputs is reduced
//    together, one contiguous row of the tile per reduced position.
//
// Accuracy: every block is reduced pairwise: leaves of kLeaf positions (16 per lane) or kRowLeaf
// rows are combined up a binary tree (class Cascade), so float32 sums carry O(log n) rounding
// error rather than O(n), like PyTorch's cascade sum, at the speed of the vectorized loop.
//
// Determinism: the split of the work depends only on shapes and strides, never on the number of
// threads. Few outputs over a long block (a full reduction) split the block into fixed chunks of
// kChunk positions whose partial results are merged in chunk order, so set_num_threads(1) and
// set_num_threads(8) give bitwise equal results.

/// Element offsets of a strided index space enumerated row-major (the last dim fastest).
/// Adjacent dims that are contiguous with each other are merged first.
class StridedIndexer {
 public:
  static constexpr int kMaxDims = 64;

  StridedIndexer() = default;
  StridedIndexer(IntArrayRef sizes, IntArrayRef strides) {
    EMBER_ASSERT(sizes.size() == strides.size());
    for (size_t d = 0; d < sizes.size(); ++d) {
      numel_ *= sizes[d];
      if (sizes[d] == 1) continue;
      if (!sizes_.empty() && strides_.back() == sizes[d] * strides[d]) {
        sizes_.back() *= sizes[d];
        strides_.back() = strides[d];
      } else {
        sizes_.push_back(sizes[d]);
        strides_.push_back(strides[d]);
      }
    }
    EMBER_ASSERT(sizes_.size() <= static_cast<size_t>(kMaxDims), "too many dims: ", sizes_.size());
  }

  int64_t numel() const { return numel_; }
  int ndim() const { return static_cast<int>(sizes_.size()); }
  IntArrayRef sizes() const { return sizes_; }
  IntArrayRef strides() const { return strides_; }

  int64_t offset(int64_t linear) const {
    int64_t off = 0;
    for (int d = ndim() - 1; d >= 0; --d) {
      off += (linear % sizes_[d]) * strides_[d];
      linear /= sizes_[d];
    }
    return off;
  }

  /// Walks consecutive linear indices from `start` without a division per step.
  class Cursor {
   public:
    Cursor(const StridedIndexer& ix, int64_t start) : ix_(ix) {
      int64_t linear = start;
      for (int d = ix.ndim() - 1; d >= 0; --d) {
        idx_[d] = linear % ix.sizes_[d];
        linear /= ix.sizes_[d];
        off_ += idx_[d] * ix.strides_[d];
      }
    }
    int64_t offset() const { return off_; }
    void next() {
      for (int d = ix_.ndim() - 1; d >= 0; --d) {
        off_ += ix_.strides_[d];
        if (++idx_[d] < ix_.sizes_[d]) return;
        off_ -= ix_.sizes_[d] * ix_.strides_[d];
        idx_[d] = 0;
      }
    }

   private:
    const StridedIndexer& ix_;
    std::array<int64_t, kMaxDims> idx_;  // only the first ndim() are used
    int64_t off_ = 0;
  };

 private:
  DimVector sizes_, strides_;
  int64_t numel_ = 1;
};

/// How a reduction over `dims` of a tensor is walked (see Note [Reduction loop]).
struct ReduceGeometry {
  int64_t n_out = 1;  // outputs
  int64_t n_red = 1;  // positions in each output's block

  StridedIndexer kept_in;      // output linear index -> input offset of its block
  StridedIndexer red;          // block position -> offset inside the block
  StridedIndexer red_outer;    // the same without the innermost reduced dim
  int64_t inner_size = 1;      // innermost reduced dim
  int64_t inner_stride = 1;

  bool vertical = false;       // see the Note
  int64_t lane_size = 1;       // the kept dim the tile runs along (input stride 1)
  int64_t lane_out_stride = 1;
  StridedIndexer outer_in;     // the other kept dims: input offsets
  StridedIndexer outer_out;    // ... and output offsets

  ReduceGeometry(IntArrayRef sizes, IntArrayRef strides, IntArrayRef dims) {
    const int64_t nd = static_cast<int64_t>(sizes.size());
    std::vector<bool> reduced(static_cast<size_t>(nd), false);
    for (int64_t d : dims) reduced[static_cast<size_t>(d)] = true;

    DimVector ks, kst;  // kept sizes and input strides, in output order
    std::vector<std::pair<int64_t, int64_t>> rd;  // reduced (stride, size)
    for (int64_t d = 0; d < nd; ++d) {
      if (reduced[static_cast<size_t>(d)]) {
        n_red *= sizes[d];
        if (sizes[d] != 1) rd.emplace_back(strides[d], sizes[d]);
      } else {
        n_out *= sizes[d];
        if (sizes[d] != 1) {
          ks.push_back(sizes[d]);
          kst.push_back(strides[d]);
        }
      }
    }
    DimVector kout(ks.size());
    int64_t acc = 1;
    for (size_t i = ks.size(); i-- > 0;) {
      kout[i] = acc;
      acc *= ks[i];
    }
    kept_in = StridedIndexer(ks, kst);

    // Largest stride outermost; expanded (stride-0) dims outside every real one.
    auto key = [](int64_t stride) { return stride == 0 ? INT64_MAX : stride; };
    std::stable_sort(rd.begin(), rd.end(),
                     [&](const auto& a, const auto& b) { return key(a.first) > key(b.first); });
    DimVector rs, rst;
    for (const auto& [stride, size] : rd) {
      rs.push_back(size);
      rst.push_back(stride);
    }
    red = StridedIndexer(rs, rst);
    if (red.ndim() > 0) {
      inner_size = red.sizes().back();
      inner_stride = red.strides().back();
      red_outer = StridedIndexer(IntArrayRef(red.sizes().data(), red.ndim() - 1),
                                 IntArrayRef(red.strides().data(), red.ndim() - 1));
    }

    // Vertical when the block is not contiguous inside but some kept dim is.
    if (red.ndim() == 0 || inner_stride != 1) {
      for (size_t i = ks.size(); i-- > 0;) {
        if (kst[i] != 1) continue;
        vertical = true;
        lane_size = ks[i];
        lane_out_stride = kout[i];
        DimVector os, oin, oout;
        for (size_t j = 0; j < ks.size(); ++j) {
          if (j == i) continue;
          os.push_back(ks[j]);
          oin.push_back(kst[j]);
          oout.push_back(kout[j]);
        }
        outer_in = StridedIndexer(os, oin);
        outer_out = StridedIndexer(os, oout);
        break;
      }
    }
  }
  ReduceGeometry(const Tensor& t, IntArrayRef dims) : ReduceGeometry(t.sizes(), t.strides(), dims) {}
};

namespace detail {

constexpr int kLanes = 32;                     // independent accumulators of a contiguous run
constexpr int64_t kLeaf = kLanes * 16;         // positions per leaf of the pairwise tree
constexpr int64_t kSmallBlock = 2 * kLanes;    // blocks this short are reduced in sequence
constexpr int64_t kTile = 128;                 // outputs reduced together in the vertical shape
constexpr int64_t kRowLeaf = 16;               // rows per leaf, vertical shape
constexpr int kMaxLevels = 48;                 // 2^48 leaves
constexpr int64_t kChunk = 1 << 16;            // block positions per chunk when outputs are few
constexpr int64_t kFewGroups = 32;
constexpr int64_t kGrainElems = 32768;

// Pairwise reduction without recursion: equal leaves are pushed in order and merged like a
// binary counter, so after 2^k leaves level k holds their pairwise result. Each entry is a
// vector of `width` accumulators (lanes of a run, or outputs of a vertical tile), merged
// element-wise, which vectorizes.
template <class Op>
class Cascade {
 public:
  using Acc = typename Op::acc_t;
  Cascade(const Op& op, int64_t width, Acc* levels) : op_(op), width_(width), levels_(levels) {}

  /// Appends a leaf (clobbered: it carries the merges up).
  void push(Acc* leaf) {
    int l = 0;
    for (; (count_ >> l) & 1; ++l) {
      const Acc* s = levels_ + l * width_;
      for (int64_t j = 0; j < width_; ++j) leaf[j] = op_.merge(s[j], leaf[j]);
    }
    EMBER_ASSERT(l < kMaxLevels);
    Acc* dst = levels_ + l * width_;
    for (int64_t j = 0; j < width_; ++j) dst[j] = leaf[j];
    ++count_;
  }
  /// out = everything pushed, then `tail` (the unfinished leaf).
  void finish(const Acc* tail, Acc* out) const {
    for (int64_t j = 0; j < width_; ++j) out[j] = op_.identity();
    for (int l = std::bit_width(count_) - 1; l >= 0; --l) {
      if (!((count_ >> l) & 1)) continue;
      const Acc* s = levels_ + l * width_;
      for (int64_t j = 0; j < width_; ++j) out[j] = op_.merge(out[j], s[j]);
    }
    for (int64_t j = 0; j < width_; ++j) out[j] = op_.merge(out[j], tail[j]);
  }

 private:
  const Op& op_;
  int64_t width_;
  Acc* levels_;
  uint64_t count_ = 0;
};

// Calls fn(ptr, n, stride, idx) for the runs (along the innermost reduced dim) that make up
// positions [lo, hi) of the block at `base`.
template <class In, class F>
void for_each_run(const ReduceGeometry& g, const In* base, int64_t lo, int64_t hi, F&& fn) {
  int64_t pos = lo % g.inner_size;
  StridedIndexer::Cursor outer(g.red_outer, lo / g.inner_size);
  for (int64_t idx = lo; idx < hi;) {
    int64_t n = std::min(g.inner_size - pos, hi - idx);
    fn(base + outer.offset() + pos * g.inner_stride, n, g.inner_stride, idx);
    idx += n;
    pos = 0;
    outer.next();
  }
}

// cur[j] accumulates p[k + j] for k = 0, kLanes, ... < kLeaf. A separate function that is not
// inlined: inside the caller GCC unrolls it fully and then no longer vectorizes selects (max
// with NaN), which it only if-converts when vectorizing a loop.
template <class Op>
[[gnu::noinline]] void accumulate_leaf(const Op& op, typename Op::acc_t* __restrict cur,
                                       const typename Op::in_t* __restrict p, int64_t idx) {
  typename Op::acc_t l[kLanes];
  for (int j = 0; j < kLanes; ++j) l[j] = cur[j];
  for (int64_t k = 0; k < kLeaf; k += kLanes) {
#pragma GCC unroll 1
    for (int j = 0; j < kLanes; ++j) l[j] = op.step(l[j], p[k + j], idx + k + j);
  }
  for (int j = 0; j < kLanes; ++j) cur[j] = l[j];
}

// Positions [lo, hi) of the block at `base`: runs feed kLanes lanes, full leaves of contiguous
// data go through the vectorized loop, leaves are combined pairwise.
template <class Op>
typename Op::acc_t reduce_block(const ReduceGeometry& g, const Op& op,
                                const typename Op::in_t* base, int64_t lo, int64_t hi) {
  using Acc = typename Op::acc_t;
  using In = typename Op::in_t;
  if (hi - lo <= kSmallBlock) {
    Acc a = op.identity();
    for_each_run(g, base, lo, hi, [&](const In* p, int64_t n, int64_t s, int64_t idx) {
      for (int64_t i = 0; i < n; ++i) a = op.step(a, p[i * s], idx + i);
    });
    return a;
  }
  Acc levels[kMaxLevels * kLanes];
  Cascade<Op> cascade(op, kLanes, levels);
  Acc cur[kLanes];
  for (int j = 0; j < kLanes; ++j) cur[j] = op.identity();
  int64_t fill = 0;  // positions in `cur`
  for_each_run(g, base, lo, hi, [&](const In* p, int64_t n, int64_t s, int64_t idx) {
    for (int64_t i = 0; i < n;) {
      if (fill == 0 && s == 1 && n - i >= kLeaf) {
        accumulate_leaf(op, cur, p + i, idx + i);
        i += kLeaf;
      } else {
        const int64_t take = std::min(n - i, kLeaf - fill);
        for (int64_t t = 0; t < take; ++t, ++i) {
          Acc& c = cur[(fill + t) & (kLanes - 1)];
          c = op.step(c, p[i * s], idx + i);
        }
        fill += take;
        if (fill < kLeaf) continue;
      }
      cascade.push(cur);
      for (int j = 0; j < kLanes; ++j) cur[j] = op.identity();
      fill = 0;
    }
  });
  Acc out[kLanes];
  cascade.finish(cur, out);
  for (int w = kLanes / 2; w > 0; w /= 2) {
    for (int j = 0; j < w; ++j) out[j] = op.merge(out[j], out[j + w]);
  }
  return out[0];
}

// Vertical shape: acc[j] = positions [lo, hi) of lane j, a leaf of kRowLeaf rows at a time.
// `levels` has room for kMaxLevels * lanes accumulators.
template <class Op>
void reduce_rows(const ReduceGeometry& g, const Op& op, const typename Op::in_t* base,
                 int64_t lanes, int64_t lo, int64_t hi, typename Op::acc_t* acc,
                 typename Op::acc_t* cur, typename Op::acc_t* levels) {
  Cascade<Op> cascade(op, lanes, levels);
  for (int64_t j = 0; j < lanes; ++j) cur[j] = op.identity();
  StridedIndexer::Cursor row(g.red, lo);
  int64_t fill = 0;
  for (int64_t r = lo; r < hi; ++r, row.next()) {
    const typename Op::in_t* p = base + row.offset();
    for (int64_t j = 0; j < lanes; ++j) cur[j] = op.step(cur[j], p[j], r);
    if (++fill == kRowLeaf) {
      cascade.push(cur);
      for (int64_t j = 0; j < lanes; ++j) cur[j] = op.identity();
      fill = 0;
    }
  }
  cascade.finish(cur, acc);
}

template <class Op>
typename Op::acc_t merge_tree(const Op& op, const typename Op::acc_t* parts, int64_t n,
                              int64_t stride) {
  if (n == 1) return parts[0];
  int64_t h = n / 2;
  return op.merge(merge_tree(op, parts, h, stride), merge_tree(op, parts + h * stride, n - h, stride));
}

}  // namespace detail

/// Runs `op` over every output of `g` (see Note [Reduction loop]). `in` points at the input's
/// first element (its storage offset applied).
template <class Op>
void run_reduce(const ReduceGeometry& g, const typename Op::in_t* in, const Op& op) {
  using namespace detail;
  using Acc = typename Op::acc_t;
  if (g.n_out == 0) return;
  if (g.n_red == 0) {
    for (int64_t o = 0; o < g.n_out; ++o) op.write(o, op.identity());
    return;
  }
  const int64_t tiles = g.vertical ? (g.lane_size + kTile - 1) / kTile : 1;
  const int64_t groups = g.vertical ? (g.n_out / g.lane_size) * tiles : g.n_out;
  const int64_t chunks =
      (groups < kFewGroups && g.n_red >= 2 * kChunk) ? (g.n_red + kChunk - 1) / kChunk : 1;
  const int64_t chunk_len = chunks == 1 ? g.n_red : kChunk;
  const int64_t max_lanes = g.vertical ? std::min(g.lane_size, kTile) : 1;
  // Not std::vector: Acc may be bool.
  std::unique_ptr<Acc[]> partials(chunks > 1 ? new Acc[static_cast<size_t>(groups * chunks * max_lanes)]
                                             : nullptr);

  // Where group `grp`'s block starts, how many lanes it has, and its first output.
  struct Group {
    const typename Op::in_t* base;
    int64_t lanes, out, out_step;
  };
  auto group = [&](int64_t grp) -> Group {
    if (!g.vertical) return {in + g.kept_in.offset(grp), 1, grp, 1};
    int64_t outer = grp / tiles, tile = grp % tiles;
    return {in + g.outer_in.offset(outer) + tile * kTile,
            std::min(kTile, g.lane_size - tile * kTile),
            g.outer_out.offset(outer) + tile * kTile * g.lane_out_stride, g.lane_out_stride};
  };

  const int64_t cost = max_lanes * chunk_len;
  const int64_t grain = std::max<int64_t>(1, kGrainElems / std::max<int64_t>(cost, 1));
  parallel_for(0, groups * chunks, grain, [&](int64_t begin, int64_t end) {
    Acc acc[kTile];
    std::unique_ptr<Acc[]> scratch(g.vertical ? new Acc[static_cast<size_t>((kMaxLevels + 1) * max_lanes)]
                                              : nullptr);
    for (int64_t item = begin; item < end; ++item) {
      const int64_t grp = item / chunks, c = item % chunks;
      const int64_t lo = c * chunk_len, hi = std::min(g.n_red, lo + chunk_len);
      Group gr = group(grp);
      if (g.vertical) {
        reduce_rows(g, op, gr.base, gr.lanes, lo, hi, acc, scratch.get(), scratch.get() + max_lanes);
      } else {
        acc[0] = reduce_block(g, op, gr.base, lo, hi);
      }
      if (chunks == 1) {
        for (int64_t j = 0; j < gr.lanes; ++j) op.write(gr.out + j * gr.out_step, acc[j]);
      } else {
        Acc* dst = partials.get() + (grp * chunks + c) * max_lanes;
        for (int64_t j = 0; j < gr.lanes; ++j) dst[j] = acc[j];
      }
    }
  });
  if (chunks == 1) return;
  for (int64_t grp = 0; grp < groups; ++grp) {
    Group gr = group(grp);
    for (int64_t j = 0; j < gr.lanes; ++j) {
      const Acc* parts = partials.get() + grp * chunks * max_lanes + j;
      op.write(gr.out + j * gr.out_step, merge_tree(op, parts, chunks, max_lanes));
    }
  }
}

}  // namespace ember::cpu
