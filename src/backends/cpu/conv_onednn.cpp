// float32 convolutions through oneDNN's convolution primitives (C API, as gemm.cpp).
//
// Note [oneDNN convolution cache]
// Creating a primitive costs far more than running a small one (MobileNetV2's 1x1 and depthwise
// layers take microseconds), so each calling thread keeps its primitives keyed by everything
// that shapes them: the product, sizes and strides of every operand, the geometry and the
// OpenMP team size (oneDNN sizes its work split at creation). Activations are described with
// ember's own strides (NCHW or NHWC, no reorder); weights are given to oneDNN in the blocked
// layout it prefers (format "any"). Forward and input-gradient calls reorder a weight into that
// layout once and keep the copy while the weight's storage and version counter say it is
// unchanged (every ember write bumps the version; writes through raw pointers are not seen).
// Primitives run with a user scratchpad, so concurrent calls from different threads never share
// oneDNN's internal buffers.
//
// Note [Blocked activations for NCHW]
// oneDNN 2.6 has no fast fp32 kernel for plain NCHW activations: it falls back to im2col + gemm
// (gemm:jit), 2-3x slower than its direct kernels on ResNet's 3x3 convolutions and far slower
// on depthwise ones. So an NCHW forward convolution lets oneDNN pick the activation layout
// (format "any": nChw16c and the like), and its input and output are reordered into and out
// of that layout around the call, in per-thread buffers, as PyTorch's mkldnn path does; the
// same for the two backward products (their gradient operands). The reorders are memory-bound
// passes, cheap beside the convolution. NHWC (channels_last) runs
// directly: oneDNN's brgconv kernels take it as it is.
#include <oneapi/dnnl/dnnl.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <unordered_map>

#include "conv_kernels.h"
#include "gemm.h"
#include "onednn_util.h"

namespace ember::cpu {
namespace {

using onednn::AlignedBuffer;
using onednn::engine;
using onednn::KeyHash;
using onednn::Memory;

enum class Kind : int64_t { Forward = 1, BackwardInput = 2, BackwardWeight = 3 };

// A reorder between a tensor's own layout and the one a primitive runs in.
struct Reorder {
  dnnl_primitive_t prim = nullptr;
  Memory user, inner;
  size_t inner_bytes = 0;
  Reorder() = default;
  Reorder(const Reorder&) = delete;
  Reorder& operator=(const Reorder&) = delete;
  ~Reorder() {
    if (prim) dnnl_primitive_destroy(prim);
  }
};

struct Entry {
  dnnl_primitive_t prim = nullptr;
  dnnl_primitive_t weight_reorder = nullptr;  // user layout <-> oneDNN's (null when equal)
  dnnl_memory_desc_t user_w{}, prim_w{};
  size_t prim_w_bytes = 0, scratch_bytes = 0;
  Memory src, w_user, w_prim, bias, dst, scratch;
  // Note [Blocked activations for NCHW]: x (the plain convolution's input side) and y (its
  // output side) into and out of the primitive's layout, as the kind reads and writes them.
  std::unique_ptr<Reorder> x_in, x_out, y_in, y_out;
  Entry() = default;
  Entry(const Entry&) = delete;
  Entry& operator=(const Entry&) = delete;
  ~Entry() {
    if (prim) dnnl_primitive_destroy(prim);
    if (weight_reorder) dnnl_primitive_destroy(weight_reorder);
  }
};

// A reorder from `from` to `to` with `user` describing the tensor's side; null on failure.
std::unique_ptr<Reorder> make_reorder(const dnnl_memory_desc_t& from, const dnnl_memory_desc_t& to,
                                      bool user_is_from) {
  auto r = std::make_unique<Reorder>();
  dnnl_primitive_desc_t rpd = nullptr;
  bool ok = dnnl_reorder_primitive_desc_create(&rpd, &from, engine(), &to, engine(), nullptr) ==
                dnnl_success &&
            dnnl_primitive_create(&r->prim, rpd) == dnnl_success;
  if (rpd) dnnl_primitive_desc_destroy(rpd);
  const dnnl_memory_desc_t& inner = user_is_from ? to : from;
  ok = ok && r->user.init(user_is_from ? &from : &to) && r->inner.init(&inner);
  r->inner_bytes = dnnl_memory_desc_get_size(&inner);
  return ok ? std::move(r) : nullptr;
}

// A weight reordered into a primitive's layout, valid while its source is unchanged.
struct CachedWeight {
  intrusive_ptr<Storage> storage;  // held, so the address cannot be reused by another tensor
  intrusive_ptr<VersionCounter> counter;
  uint32_t version = 0;
  AlignedBuffer data;
};

struct ThreadCache {
  std::unordered_map<std::vector<int64_t>, std::unique_ptr<Entry>, KeyHash> prims;
  std::unordered_map<std::vector<int64_t>, std::unique_ptr<CachedWeight>, KeyHash> weights;
  size_t weight_bytes = 0;  // held by `weights` (reordered copies; their sources are held too)
  AlignedBuffer scratch, weight_tmp, src_tmp, dst_tmp;
};

ThreadCache& cache() {
  thread_local ThreadCache c;
  return c;
}

constexpr size_t kMaxEntries = 512;
// Cached weights keep their source storage alive (so its address cannot be reused by another
// tensor), so a model's weights outlive it in the cache until the cache is cleared: bound it.
constexpr size_t kMaxWeightBytes = size_t{512} << 20;

bool md_of(dnnl_memory_desc_t* md, const Tensor& t) {
  dnnl_dims_t dims, strides;
  for (int64_t d = 0; d < t.dim(); ++d) {
    dims[d] = t.size(d);
    strides[d] = t.stride(d);
  }
  return dnnl_memory_desc_init_by_strides(md, static_cast<int>(t.dim()), dims, dnnl_f32, strides) ==
         dnnl_success;
}

// Weights [OC, IC/g, *k] as oneDNN's grouped [g, OC/g, IC/g, *k] when groups > 1.
bool weight_md_of(dnnl_memory_desc_t* md, const Tensor& w, int64_t groups) {
  if (groups == 1) return md_of(md, w);
  dnnl_dims_t dims, strides;
  dims[0] = groups;
  strides[0] = w.stride(0) * (w.size(0) / groups);
  for (int64_t d = 0; d < w.dim(); ++d) {
    dims[d + 1] = d == 0 ? w.size(0) / groups : w.size(d);
    strides[d + 1] = w.stride(d);
  }
  return dnnl_memory_desc_init_by_strides(md, static_cast<int>(w.dim() + 1), dims, dnnl_f32,
                                          strides) == dnnl_success;
}

void push_tensor(std::vector<int64_t>& key, const Tensor& t) {
  key.push_back(t.dim());
  for (int64_t d = 0; d < t.dim(); ++d) {
    key.push_back(t.size(d));
    key.push_back(t.stride(d));
  }
}

// oneDNN's geometry: dilation counts the gaps (d - 1); the right padding follows from the sizes.
struct DnnlGeometry {
  dnnl_dims_t strides, dilates, pad_l, pad_r;
};
DnnlGeometry dnnl_geometry(const ConvGeometry& g, const Tensor& x, const Tensor& w, const Tensor& y) {
  DnnlGeometry r{};
  for (size_t i = 0; i < g.stride.size(); ++i) {
    const int64_t in = x.size(2 + i), k = w.size(2 + i), out = y.size(2 + i);
    r.strides[i] = g.stride[i];
    r.dilates[i] = g.dilation[i] - 1;
    r.pad_l[i] = g.padding[i];
    r.pad_r[i] = (out - 1) * g.stride[i] + (k - 1) * g.dilation[i] + 1 - in - g.padding[i];
  }
  return r;
}

// x: the plain convolution's input, w its weight, y its output; which of them are data or
// gradients depends on the kind. Returns null when oneDNN has no implementation.
Entry* get_entry(Kind kind, const Tensor& x, const Tensor& w, const Tensor& y, bool has_bias,
                 const ConvGeometry& g, int threads, const ConvEpilogue& ep = {}) {
  float clip_min = ep.clip_min, clip_max = ep.clip_max;
  int32_t clip_bits[2];
  std::memcpy(clip_bits, &clip_min, 4);
  std::memcpy(clip_bits + 1, &clip_max, 4);
  std::vector<int64_t> key{static_cast<int64_t>(kind), has_bias, g.groups, threads,
                           static_cast<int64_t>(ep.activation), ep.add_to_output, clip_bits[0],
                           clip_bits[1]};
  push_tensor(key, x);
  push_tensor(key, w);
  push_tensor(key, y);
  for (size_t i = 0; i < g.stride.size(); ++i) {
    key.insert(key.end(), {g.stride[i], g.padding[i], g.dilation[i]});
  }
  ThreadCache& c = cache();
  if (auto it = c.prims.find(key); it != c.prims.end()) return it->second.get();
  if (c.prims.size() >= kMaxEntries) c.prims.clear();

  dnnl_memory_desc_t x_md, y_md, w_user, w_any, b_md;
  if (!md_of(&x_md, x) || !md_of(&y_md, y) || !weight_md_of(&w_user, w, g.groups)) return nullptr;
  // Note [Blocked activations for NCHW]
  const bool blocked = x.dim() == 4 && x.is_contiguous() && y.is_contiguous() &&
                       x.size(1) > 1 && y.size(1) > 1;
  dnnl_memory_desc_t x_conv = x_md, y_conv = y_md;
  if (blocked) {
    dnnl_memory_desc_init_by_tag(&x_conv, x_md.ndims, x_md.dims, dnnl_f32, dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&y_conv, y_md.ndims, y_md.dims, dnnl_f32, dnnl_format_tag_any);
  }
  if (dnnl_memory_desc_init_by_tag(&w_any, w_user.ndims, w_user.dims, dnnl_f32,
                                   dnnl_format_tag_any) != dnnl_success) {
    return nullptr;
  }
  dnnl_dims_t b_dims{w.size(0)};
  dnnl_memory_desc_init_by_tag(&b_md, 1, b_dims, dnnl_f32, dnnl_a);
  const DnnlGeometry dg = dnnl_geometry(g, x, w, y);

  dnnl_primitive_attr_t attr = nullptr;
  dnnl_primitive_attr_create(&attr);
  dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
  if (!ep.empty()) {
    // Post-ops run in order on the accumulator: the sum first, then the activation.
    dnnl_post_ops_t ops = nullptr;
    dnnl_post_ops_create(&ops);
    if (ep.add_to_output) dnnl_post_ops_append_sum(ops, 1.f);
    if (ep.activation == ConvEpilogue::Activation::ReLU) {
      dnnl_post_ops_append_eltwise(ops, 1.f, dnnl_eltwise_relu, 0.f, 0.f);
    } else if (ep.activation == ConvEpilogue::Activation::Clip) {
      dnnl_post_ops_append_eltwise(ops, 1.f, dnnl_eltwise_clip, clip_min, clip_max);
    }
    dnnl_primitive_attr_set_post_ops(attr, ops);
    dnnl_post_ops_destroy(ops);
  }
  dnnl_primitive_desc_t fwd_pd = nullptr, pd = nullptr;
  auto cleanup = [&] {
    if (pd && pd != fwd_pd) dnnl_primitive_desc_destroy(pd);
    if (fwd_pd) dnnl_primitive_desc_destroy(fwd_pd);
    dnnl_primitive_attr_destroy(attr);
  };

  dnnl_convolution_desc_t fwd{};
  // Note [Torch's float convolution paths]: torch's kernels (forward_training) where they are as
  // fast as brgconv's; the prop kind follows from the key's sizes and groups.
  const bool torch_kernels =
      blocked && (g.groups > 1 || x.size(1) <= 4 || w.numel() == w.size(0) * w.size(1));
  const dnnl_prop_kind_t prop =
      kind == Kind::Forward && !torch_kernels ? dnnl_forward_inference : dnnl_forward_training;
  if (dnnl_dilated_convolution_forward_desc_init(
          &fwd, prop, dnnl_convolution_direct, &x_conv, &w_any,
          kind == Kind::Forward && has_bias ? &b_md : nullptr, &y_conv, dg.strides, dg.dilates,
          dg.pad_l, dg.pad_r) != dnnl_success ||
      dnnl_primitive_desc_create(&fwd_pd, &fwd, kind == Kind::Forward ? attr : nullptr, engine(),
                                 nullptr) != dnnl_success) {
    cleanup();
    return nullptr;
  }
  if (kind == Kind::Forward) {
    pd = fwd_pd;
  } else {
    dnnl_convolution_desc_t bwd{};
    dnnl_status_t st =
        kind == Kind::BackwardInput
            ? dnnl_dilated_convolution_backward_data_desc_init(
                  &bwd, dnnl_convolution_direct, &x_conv, &w_any, &y_conv, dg.strides, dg.dilates,
                  dg.pad_l, dg.pad_r)
            : dnnl_dilated_convolution_backward_weights_desc_init(
                  &bwd, dnnl_convolution_direct, &x_conv, &w_any, has_bias ? &b_md : nullptr, &y_conv,
                  dg.strides, dg.dilates, dg.pad_l, dg.pad_r);
    if (st != dnnl_success ||
        dnnl_primitive_desc_create(&pd, &bwd, attr, engine(), fwd_pd) != dnnl_success) {
      pd = nullptr;
      cleanup();
      return nullptr;
    }
  }

  auto e = std::make_unique<Entry>();
  const dnnl_query_t wq = kind == Kind::BackwardWeight ? dnnl_query_diff_weights_md : dnnl_query_weights_md;
  e->prim_w = *dnnl_primitive_desc_query_md(pd, wq, 0);
  e->user_w = w_user;
  e->prim_w_bytes = dnnl_memory_desc_get_size(&e->prim_w);
  const dnnl_memory_desc_t* scratch_md = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
  e->scratch_bytes = scratch_md ? dnnl_memory_desc_get_size(scratch_md) : 0;
  if (blocked) {
    x_conv = *dnnl_primitive_desc_query_md(
        pd, kind == Kind::BackwardInput ? dnnl_query_diff_src_md : dnnl_query_src_md, 0);
    y_conv = *dnnl_primitive_desc_query_md(
        pd, kind == Kind::Forward ? dnnl_query_dst_md : dnnl_query_diff_dst_md, 0);
  }
  bool ok = dnnl_primitive_create(&e->prim, pd) == dnnl_success && e->src.init(&x_conv) &&
            e->dst.init(&y_conv) && e->w_user.init(&w_user) && e->w_prim.init(&e->prim_w) &&
            e->bias.init(&b_md) && (!scratch_md || e->scratch.init(scratch_md));
  // Which sides the kind reads (in) and writes (out): forward x -> y (y also read for a sum
  // post-op), backward-input y -> x, backward-weight reads both.
  const bool x_read = kind != Kind::BackwardInput, y_read = kind != Kind::Forward || ep.add_to_output;
  if (ok && !dnnl_memory_desc_equal(&x_conv, &x_md)) {
    if (x_read) ok = (e->x_in = make_reorder(x_md, x_conv, true)) != nullptr;
    if (ok && kind == Kind::BackwardInput) ok = (e->x_out = make_reorder(x_conv, x_md, false)) != nullptr;
  }
  if (ok && !dnnl_memory_desc_equal(&y_conv, &y_md)) {
    if (y_read) ok = (e->y_in = make_reorder(y_md, y_conv, true)) != nullptr;
    if (ok && kind == Kind::Forward) ok = (e->y_out = make_reorder(y_conv, y_md, false)) != nullptr;
  }
  if (ok && !dnnl_memory_desc_equal(&e->prim_w, &w_user)) {
    dnnl_primitive_desc_t rpd = nullptr;
    const bool to_prim = kind != Kind::BackwardWeight;
    ok = dnnl_reorder_primitive_desc_create(&rpd, to_prim ? &w_user : &e->prim_w, engine(),
                                            to_prim ? &e->prim_w : &w_user, engine(),
                                            nullptr) == dnnl_success &&
         dnnl_primitive_create(&e->weight_reorder, rpd) == dnnl_success;
    if (rpd) dnnl_primitive_desc_destroy(rpd);
  }
  cleanup();
  if (!ok) return nullptr;
  Entry* raw = e.get();
  c.prims.emplace(std::move(key), std::move(e));
  return raw;
}

// Executes a primitive (or reorder) on this thread's stream and waits for it.
void run(dnnl_primitive_t p, ArrayRef<dnnl_exec_arg_t> args) {
  onednn::execute(p, static_cast<int>(args.size()), args.data(), "oneDNN convolution");
}

void* scratch_ptr(const Entry& e) { return e.scratch_bytes ? cache().scratch.get(e.scratch_bytes) : nullptr; }

// Note [Blocked activations for NCHW]: where the primitive reads or writes one side. `in`
// (when set) reorders the tensor into the buffer first; `out` means the primitive's result
// must be reordered back afterwards (unstage). Without reorders it is the tensor itself.
void* stage(const Reorder* in, const Reorder* out, AlignedBuffer& buf, void* user) {
  const Reorder* r = in ? in : out;
  if (!r) return user;
  void* inner = buf.get(r->inner_bytes);
  if (in) run(in->prim, {{DNNL_ARG_FROM, in->user.with(user)}, {DNNL_ARG_TO, in->inner.with(inner)}});
  return inner;
}
void unstage(const Reorder* out, void* inner, void* user) {
  if (out) run(out->prim, {{DNNL_ARG_FROM, out->inner.with(inner)}, {DNNL_ARG_TO, out->user.with(user)}});
}

// The weight in the primitive's layout: w itself, or a reordered copy cached per weight.
void* weight_for(Entry& e, const Tensor& w) {
  if (!e.weight_reorder) return w.data_ptr();
  ThreadCache& c = cache();
  std::vector<int64_t> key{reinterpret_cast<int64_t>(w.impl()->storage().get()), w.storage_offset()};
  key.insert(key.end(), reinterpret_cast<const int64_t*>(&e.prim_w),
             reinterpret_cast<const int64_t*>(&e.prim_w) + sizeof(e.prim_w) / sizeof(int64_t));
  auto it = c.weights.find(key);
  if (it != c.weights.end() && it->second->counter == w.impl()->version_counter() &&
      it->second->version == w.version()) {
    return it->second->data.ptr;
  }
  if (it == c.weights.end()) {
    if (c.weights.size() >= kMaxEntries || c.weight_bytes + e.prim_w_bytes > kMaxWeightBytes) {
      c.weights.clear();
      c.weight_bytes = 0;
    }
    it = c.weights.emplace(std::move(key), std::make_unique<CachedWeight>()).first;
    c.weight_bytes += e.prim_w_bytes;
  }
  CachedWeight& cw = *it->second;
  cw.storage = w.impl()->storage();
  cw.counter = w.impl()->version_counter();
  cw.version = w.version();
  void* dst = cw.data.get(e.prim_w_bytes);
  run(e.weight_reorder, {{DNNL_ARG_FROM, e.w_user.with(w.data_ptr())}, {DNNL_ARG_TO, e.w_prim.with(dst)}});
  return dst;
}

bool usable(std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts) {
    if (t->dtype() != kFloat32 || t->dim() > 5 || t->numel() == 0) return false;
  }
  return true;
}

}  // namespace

size_t conv_onednn_cache_size() { return cache().prims.size(); }

bool conv_forward_onednn(const Tensor& out, const Tensor& input, const Tensor& weight,
                         const std::optional<Tensor>& bias, const ConvGeometry& g,
                         const ConvEpilogue& epilogue) {
  if (!usable({&out, &input, &weight})) return false;
  const bool has_bias = bias && bias->defined();
  if (has_bias && (bias->dtype() != kFloat32 || bias->stride(0) != 1)) return false;
  const ScopedOnednnThreads scope;
  const int threads = scope.threads();
  Entry* e = get_entry(Kind::Forward, input, weight, out, has_bias, g, threads, epilogue);
  if (!e) return false;
  void* w = weight_for(*e, weight);
  ThreadCache& c = cache();
  // Note [Blocked activations for NCHW]: the activations cross into oneDNN's layout and back.
  void* src = stage(e->x_in.get(), nullptr, c.src_tmp, input.data_ptr());
  void* dst = stage(e->y_in.get(), e->y_out.get(), c.dst_tmp, out.data_ptr());
  std::vector<dnnl_exec_arg_t> args{{DNNL_ARG_SRC, e->src.with(src)},
                                    {DNNL_ARG_WEIGHTS, e->w_prim.with(w)},
                                    {DNNL_ARG_DST, e->dst.with(dst)}};
  if (has_bias) args.push_back({DNNL_ARG_BIAS, e->bias.with(bias->data_ptr())});
  if (e->scratch_bytes) args.push_back({DNNL_ARG_SCRATCHPAD, e->scratch.with(scratch_ptr(*e))});
  run(e->prim, args);
  unstage(e->y_out.get(), dst, out.data_ptr());
  return true;
}

bool conv_backward_input_onednn(const Tensor& grad_input, const Tensor& grad_output,
                                const Tensor& weight, const ConvGeometry& g) {
  if (!usable({&grad_input, &grad_output, &weight})) return false;
  const ScopedOnednnThreads scope;
  const int threads = scope.threads();
  Entry* e = get_entry(Kind::BackwardInput, grad_input, weight, grad_output, false, g, threads);
  if (!e) return false;
  void* w = weight_for(*e, weight);
  ThreadCache& c = cache();
  void* gy = stage(e->y_in.get(), nullptr, c.dst_tmp, grad_output.data_ptr());
  void* gx = stage(nullptr, e->x_out.get(), c.src_tmp, grad_input.data_ptr());
  std::vector<dnnl_exec_arg_t> args{{DNNL_ARG_DIFF_DST, e->dst.with(gy)},
                                    {DNNL_ARG_WEIGHTS, e->w_prim.with(w)},
                                    {DNNL_ARG_DIFF_SRC, e->src.with(gx)}};
  if (e->scratch_bytes) args.push_back({DNNL_ARG_SCRATCHPAD, e->scratch.with(scratch_ptr(*e))});
  run(e->prim, args);
  unstage(e->x_out.get(), gx, grad_input.data_ptr());
  return true;
}

bool conv_backward_weight_onednn(const Tensor& grad_weight, const Tensor& grad_output,
                                 const Tensor& input, const ConvGeometry& g) {
  if (!usable({&grad_weight, &grad_output, &input})) return false;
  const ScopedOnednnThreads scope;
  const int threads = scope.threads();
  Entry* e = get_entry(Kind::BackwardWeight, input, grad_weight, grad_output, false, g, threads);
  if (!e) return false;
  ThreadCache& c = cache();
  void* gw = e->weight_reorder ? c.weight_tmp.get(e->prim_w_bytes) : grad_weight.data_ptr();
  void* x = stage(e->x_in.get(), nullptr, c.src_tmp, input.data_ptr());
  void* gy = stage(e->y_in.get(), nullptr, c.dst_tmp, grad_output.data_ptr());
  std::vector<dnnl_exec_arg_t> args{{DNNL_ARG_SRC, e->src.with(x)},
                                    {DNNL_ARG_DIFF_DST, e->dst.with(gy)},
                                    {DNNL_ARG_DIFF_WEIGHTS, e->w_prim.with(gw)}};
  if (e->scratch_bytes) args.push_back({DNNL_ARG_SCRATCHPAD, e->scratch.with(scratch_ptr(*e))});
  run(e->prim, args);
  if (e->weight_reorder) {
    run(e->weight_reorder, {{DNNL_ARG_FROM, e->w_prim.with(gw)},
                            {DNNL_ARG_TO, e->w_user.with(grad_weight.data_ptr())}});
  }
  return true;
}

// ---- dispatch: oneDNN where it applies, the reference otherwise ----

void conv_forward(const Tensor& out, const Tensor& input, const Tensor& weight,
                  const std::optional<Tensor>& bias, const ConvGeometry& g) {
  if (out.numel() == 0) return;
  if (conv_forward_torch_gemm(out, input, weight, bias, g)) return;
  if (conv_forward_onednn(out, input, weight, bias, g)) return;
  conv_forward_ref(out, input, weight, bias, g);
}

void conv_backward_input(const Tensor& grad_input, const Tensor& grad_output, const Tensor& weight,
                         const ConvGeometry& g) {
  if (grad_input.numel() == 0) return;
  if (conv_backward_input_onednn(grad_input, grad_output, weight, g)) return;
  conv_backward_input_ref(grad_input, grad_output, weight, g);
}

void conv_backward_weight(const Tensor& grad_weight, const Tensor& grad_output, const Tensor& input,
                          const ConvGeometry& g) {
  if (grad_weight.numel() == 0) return;
  if (grad_output.numel() != 0 && conv_backward_weight_onednn(grad_weight, grad_output, input, g)) {
    return;
  }
  conv_backward_weight_ref(grad_weight, grad_output, input, g);
}

}  // namespace ember::cpu
