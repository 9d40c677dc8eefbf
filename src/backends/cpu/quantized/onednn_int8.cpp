// Note [Exact int8 accumulators from oneDNN]
// Both int8 formulas (Note [int8 requantization formulas]) start from the exact int32
// accumulators, so oneDNN computes only those: u8 source (NHWC, or M x K), s8 weights in the
// layout it prefers, s32 destination, and the source zero point as a runtime argument, so a
// primitive depends on sizes only and serves every packed weight and every input scale/zero
// point of that shape. oneDNN treats padding as the real value 0 (the code z_x), as PyTorch
// does. The requantization then runs in our own loop, which makes the fast path equal the
// scalar reference bit for bit on both formulas; letting oneDNN requantize itself (u8
// destination, output scales, float bias) would tie the numbers to each oneDNN kernel's
// internal rounding order. On a CPU without VNNI, oneDNN's vpmaddubsw kernels can saturate
// int16 pair sums, so there the portable exact kernel runs instead (onednn_int8_exact).
//
// Primitives are cached per calling thread, keyed by sizes, geometry and the OpenMP team size
// (prepare_onednn_threads, as Note [oneDNN convolution cache] in conv_onednn.cpp), so another
// thread count or batch size builds another primitive instead of failing (PyTorch 1.13 caches
// one per packed weight and fails there, spec § 7.3). The weight is reordered once per layout
// a primitive asks for and kept with the packed weight.
#include "onednn_int8.h"

#include <oneapi/dnnl/dnnl.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

#include "backends/cpu/gemm.h"
#include "backends/cpu/onednn_util.h"
#include "ember/error.h"

namespace ember::cpu::quantized::detail {
namespace {

using onednn::AlignedBuffer;
using onednn::engine;
using onednn::KeyHash;
using onednn::Memory;

}  // namespace

struct Int8Primitive {
  dnnl_primitive_t prim = nullptr;
  dnnl_primitive_t weight_reorder = nullptr;  // null when oneDNN takes the user layout
  dnnl_memory_desc_t user_w{}, prim_w{};
  size_t prim_w_bytes = 0, scratch_bytes = 0;
  bool u8_out = false;  // requantizing (Onednn formula) rather than s32 accumulators
  Memory src, w_user, w_prim, dst, zp, scratch, bias, dst_zp;
  Int8Primitive() = default;
  Int8Primitive(const Int8Primitive&) = delete;
  Int8Primitive& operator=(const Int8Primitive&) = delete;
  ~Int8Primitive() {
    if (prim) dnnl_primitive_destroy(prim);
    if (weight_reorder) dnnl_primitive_destroy(weight_reorder);
  }
};

namespace {

struct ThreadCache {
  std::unordered_map<std::vector<int64_t>, std::unique_ptr<Int8Primitive>, KeyHash> prims;
  AlignedBuffer scratch;
};

ThreadCache& cache() {
  thread_local ThreadCache c;
  return c;
}

constexpr size_t kMaxEntries = 512;

void execute(dnnl_primitive_t p, std::initializer_list<dnnl_exec_arg_t> args) {
  onednn::execute(p, static_cast<int>(args.size()), args.begin(), "oneDNN int8 kernel");
}

// Note [Choosing among oneDNN's int8 implementations]
// oneDNN takes the first implementation in its list that accepts a problem, and on this CPU
// (AMX) that is the AMX kernel for every 1x1 convolution, slower at batch 1 than its VNNI
// kernels on most of MobileNetV2's shapes (16->96 at 112x112: AMX 218-348 us, brgconv_1x1 or
// jit_int8 VNNI 157-183 us, in separate runs on a shared machine). So a primitive is chosen by
// measurement when it is first needed: every implementation but the reference one is created
// and run on scratch buffers (one warm-up, then the best of three; a candidate 3x slower than
// the best on its first run is dropped; SSE4.1 and gemm-based ones only when nothing else
// applies; not for problems over 2e8 multiply-adds, where oneDNN's first choice stands), and
// the fastest is kept; other scales of the same shape, and other threads, reuse
// that choice. This costs tens of milliseconds per new shape on its first call. The AMX
// kernels are never candidates: besides being slower here, oneDNN 2.6's AMX 1x1 int8 kernel
// writes past its buffers on small maps (a 64->64 1x1 convolution on 6x6, as in MobileNetV2 on
// a 96x96 image, corrupted the heap; tests/python/quantized/test_qconv_small_spatial.py). All of them
// compute the same numbers (integer accumulation, then oneDNN's one requantization sequence;
// the fast == ref tests run on whichever wins).

// A primitive from one implementation's descriptor; null when it cannot be made.
std::unique_ptr<Int8Primitive> from_pd(dnnl_primitive_desc_t pd, const dnnl_memory_desc_t& src_md,
                                       const dnnl_memory_desc_t& user_w,
                                       const dnnl_memory_desc_t& dst_md, int64_t channels,
                                       bool u8_out) {
  auto p = std::make_unique<Int8Primitive>();
  p->u8_out = u8_out;
  p->user_w = user_w;
  p->prim_w = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
  p->prim_w_bytes = dnnl_memory_desc_get_size(&p->prim_w);
  const dnnl_memory_desc_t* scratch_md =
      dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
  p->scratch_bytes = scratch_md ? dnnl_memory_desc_get_size(scratch_md) : 0;
  dnnl_memory_desc_t zp_md, vec_md;
  dnnl_dims_t one{1}, oc{channels};
  dnnl_memory_desc_init_by_tag(&zp_md, 1, one, dnnl_s32, dnnl_a);
  dnnl_memory_desc_init_by_tag(&vec_md, 1, oc, dnnl_f32, dnnl_a);
  bool ok = dnnl_primitive_create(&p->prim, pd) == dnnl_success && p->src.init(&src_md) &&
            p->dst.init(&dst_md) && p->w_user.init(&user_w) && p->w_prim.init(&p->prim_w) &&
            p->zp.init(&zp_md) && (!scratch_md || p->scratch.init(scratch_md)) &&
            (!u8_out || (p->bias.init(&vec_md) && p->dst_zp.init(&zp_md)));
  if (ok && !dnnl_memory_desc_equal(&p->prim_w, &user_w)) {
    dnnl_primitive_desc_t rpd = nullptr;
    ok = dnnl_reorder_primitive_desc_create(&rpd, &user_w, engine(), &p->prim_w, engine(),
                                            nullptr) == dnnl_success &&
         dnnl_primitive_create(&p->weight_reorder, rpd) == dnnl_success;
    if (rpd) dnnl_primitive_desc_destroy(rpd);
  }
  return ok ? std::move(p) : nullptr;
}

// Seconds one run of p takes on zeroed scratch operands (best of `runs` after a warm-up, or
// the warm-up alone when it already exceeds `give_up`).
double time_primitive(Int8Primitive& p, size_t src_bytes, size_t dst_bytes, int64_t channels,
                      double give_up) {
  AlignedBuffer src, w, dst, bias;
  std::memset(src.get(src_bytes), 0, src_bytes);
  std::memset(w.get(p.prim_w_bytes), 0, p.prim_w_bytes);
  dst.get(dst_bytes);
  std::memset(bias.get(channels * sizeof(float)), 0, channels * sizeof(float));
  using Clock = std::chrono::steady_clock;
  double best = 0;
  for (int i = 0; i < 4; ++i) {
    const auto t0 = Clock::now();
    run_u8(p, static_cast<const uint8_t*>(src.ptr), w.ptr, 0, static_cast<const float*>(bias.ptr),
           0, dst.ptr);
    const double t = std::chrono::duration<double>(Clock::now() - t0).count();
    if (i == 0) {
      if (t > give_up) return t;
      continue;
    }
    best = i == 1 ? t : std::min(best, t);
  }
  return best;
}

// The fastest implementation of a conv or matmul (Note [Choosing among oneDNN's int8
// implementations]); null when oneDNN has none but its reference one. With u8_out the
// primitive requantizes itself: output scales fixed at creation (oneDNN 2.6's jit int8
// convolutions take no runtime scales), f32 bias, runtime destination zero point, optional
// ReLU; otherwise it writes the exact s32 accumulators.
std::unique_ptr<Int8Primitive> build(const void* op_desc, const dnnl_memory_desc_t& src_md,
                                     const dnnl_memory_desc_t& user_w,
                                     const dnnl_memory_desc_t& dst_md, int64_t channels,
                                     int scale_mask, bool u8_out, bool relu,
                                     const float* fixed_scales, double macs, std::string& choice) {
  dnnl_primitive_attr_t attr = nullptr;
  dnnl_primitive_attr_create(&attr);
  dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
  const int32_t runtime_zp = DNNL_RUNTIME_S32_VAL;
  dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_SRC, 1, 0, &runtime_zp);
  if (u8_out) {
    dnnl_primitive_attr_set_output_scales(attr, channels, scale_mask, fixed_scales);
    dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_DST, 1, 0, &runtime_zp);
    if (relu) {
      dnnl_post_ops_t ops = nullptr;
      dnnl_post_ops_create(&ops);
      dnnl_post_ops_append_eltwise(ops, 1.f, dnnl_eltwise_relu, 0.f, 0.f);
      dnnl_primitive_attr_set_post_ops(attr, ops);
      dnnl_post_ops_destroy(ops);
    }
  }
  dnnl_primitive_desc_iterator_t it = nullptr;
  const bool created =
      dnnl_primitive_desc_iterator_create(&it, op_desc, attr, engine(), nullptr) == dnnl_success;
  dnnl_primitive_attr_destroy(attr);
  if (!created) return nullptr;
  const size_t src_bytes = dnnl_memory_desc_get_size(&src_md);
  const size_t dst_bytes = dnnl_memory_desc_get_size(&dst_md);
  std::unique_ptr<Int8Primitive> best;
  double best_time = 0;
  const bool reuse = !choice.empty();
  // Large problems (a big batch) would make the measurement itself costly: there oneDNN's own
  // first choice stands.
  constexpr double kMeasureMacs = 2e8;
  const bool measure = macs <= kMeasureMacs;
  do {
    dnnl_primitive_desc_t pd = dnnl_primitive_desc_iterator_fetch(it);
    if (!pd) continue;
    const char* impl = nullptr;
    dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
    const bool usable = impl != nullptr && std::strstr(impl, "ref") == nullptr &&
                        std::strstr(impl, "amx") == nullptr;
    if (usable && reuse) {
      // Chosen before for this shape (other scales): take it without measuring again.
      if (choice == impl) best = from_pd(pd, src_md, user_w, dst_md, channels, u8_out);
      dnnl_primitive_desc_destroy(pd);
      if (best) break;
      continue;
    }
    if (usable && !measure) {
      best = from_pd(pd, src_md, user_w, dst_md, channels, u8_out);
      dnnl_primitive_desc_destroy(pd);
      if (best) {
        choice = impl;
        break;
      }
      continue;
    }
    // The SSE4.1 and gemm-based kernels are never the fastest where a VNNI one exists (they
    // come last in oneDNN's list): measured only when nothing else runs the problem.
    const bool slow_kind =
        impl != nullptr && (std::strstr(impl, "sse41") || std::strstr(impl, "gemm"));
    if (usable && !(slow_kind && best)) {
      if (auto p = from_pd(pd, src_md, user_w, dst_md, channels, u8_out)) {
        const double t =
            time_primitive(*p, src_bytes, dst_bytes, channels, best ? 3 * best_time : 1e30);
        if (!best || t < best_time) {
          best = std::move(p);
          best_time = t;
          choice = impl;
        }
      }
    }
    dnnl_primitive_desc_destroy(pd);
  } while (dnnl_primitive_desc_iterator_next(it) == dnnl_success);
  dnnl_primitive_desc_iterator_destroy(it);
  return best;
}

// The cached entry for `key` (built by `make` on a miss; a failed build is cached as null).
// The key is the caller's reused per-thread vector: a hit allocates nothing (this runs once
// per convolution call), a miss copies it into the cache.
template <class Make>
Int8Primitive* lookup(const std::vector<int64_t>& key, const Make& make) {
  ThreadCache& c = cache();
  if (auto it = c.prims.find(key); it != c.prims.end()) return it->second.get();
  if (c.prims.size() >= kMaxEntries) c.prims.clear();
  auto p = make();
  Int8Primitive* raw = p.get();
  c.prims.emplace(key, std::move(p));
  return raw;
}

// The implementation measured fastest per shape (key without the fixed scales), shared by all
// threads so that a model run from a new thread does not measure again.
struct Choices {
  std::mutex mutex;
  std::unordered_map<std::vector<int64_t>, std::string, KeyHash> by_shape;
};
Choices& choices() {
  static Choices* c = new Choices;  // never destroyed: threads may still ask at exit
  return *c;
}
std::string chosen_impl(const std::vector<int64_t>& shape_key) {
  Choices& c = choices();
  std::lock_guard<std::mutex> lock(c.mutex);
  auto it = c.by_shape.find(shape_key);
  return it == c.by_shape.end() ? std::string() : it->second;
}
void remember_impl(const std::vector<int64_t>& shape_key, const std::string& impl) {
  Choices& c = choices();
  std::lock_guard<std::mutex> lock(c.mutex);
  if (c.by_shape.size() >= 4 * kMaxEntries) c.by_shape.clear();
  c.by_shape[shape_key] = impl;
}

// Builds through `build` with the shape's remembered choice, remembering a new one.
template <class Build>
std::unique_ptr<Int8Primitive> build_for_shape(const std::vector<int64_t>& shape_key,
                                               const Build& make) {
  std::string choice = chosen_impl(shape_key);
  const bool measured = choice.empty();
  auto p = make(choice);
  if (p && measured) remember_impl(shape_key, choice);
  return p;
}

}  // namespace

bool onednn_int8_exact() {
  static const bool exact = [] {
    const unsigned isa = static_cast<unsigned>(dnnl_get_effective_cpu_isa());
    const unsigned vnni512 = static_cast<unsigned>(dnnl_cpu_isa_avx512_core_vnni);
    const unsigned vnni256 = static_cast<unsigned>(dnnl_cpu_isa_avx2_vnni);
    return (isa & vnni512) == vnni512 || (isa & vnni256) == vnni256;
  }();
  return exact;
}

Int8Primitive* conv_primitive(const QConvGeometry& g, int64_t n, int64_t h, int64_t w, Output out,
                              const FixedScales* fixed) {
  const int threads = prepare_onednn_threads();
  const int64_t oh = g.out_h(h), ow = g.out_w(w);
  const bool u8 = out != Output::S32, relu = out == Output::U8Relu;
  constexpr size_t kShapeKey = 16;  // the entries before the fixed scales' identity
  thread_local std::vector<int64_t> key;
  key.assign({1 + static_cast<int64_t>(out) * 10, threads, n, h, w, g.in_channels,
              g.out_channels, g.groups, g.kernel_h, g.kernel_w, g.stride_h, g.stride_w, g.pad_h,
              g.pad_w, g.dilation_h, g.dilation_w});
  if (fixed) key.insert(key.end(), {fixed->owner, fixed->x_scale_bits, fixed->y_scale_bits});
  return lookup(key, [&] {
    const std::vector<int64_t> shape_key(key.begin(), key.begin() + kShapeKey);
    return build_for_shape(shape_key, [&](std::string& choice) -> std::unique_ptr<Int8Primitive> {
      dnnl_memory_desc_t src_md, dst_md, user_w, any_w;
      dnnl_dims_t src_dims{n, g.in_channels, h, w}, dst_dims{n, g.out_channels, oh, ow};
      dnnl_memory_desc_init_by_tag(&src_md, 4, src_dims, dnnl_u8, dnnl_nhwc);
      dnnl_memory_desc_init_by_tag(&dst_md, 4, dst_dims, u8 ? dnnl_u8 : dnnl_s32, dnnl_nhwc);
      dnnl_memory_desc_t b_md;
      dnnl_dims_t b_dims{g.out_channels};
      dnnl_memory_desc_init_by_tag(&b_md, 1, b_dims, dnnl_f32, dnnl_a);
      const int64_t cg = g.in_channels / g.groups, og = g.out_channels / g.groups;
      if (g.groups == 1) {
        dnnl_dims_t wd{g.out_channels, cg, g.kernel_h, g.kernel_w};
        dnnl_memory_desc_init_by_tag(&user_w, 4, wd, dnnl_s8, dnnl_oihw);
        dnnl_memory_desc_init_by_tag(&any_w, 4, wd, dnnl_s8, dnnl_format_tag_any);
      } else {
        dnnl_dims_t wd{g.groups, og, cg, g.kernel_h, g.kernel_w};
        dnnl_memory_desc_init_by_tag(&user_w, 5, wd, dnnl_s8, dnnl_goihw);
        dnnl_memory_desc_init_by_tag(&any_w, 5, wd, dnnl_s8, dnnl_format_tag_any);
      }
      dnnl_dims_t strides{g.stride_h, g.stride_w}, dilates{g.dilation_h - 1, g.dilation_w - 1},
          pad_l{g.pad_h, g.pad_w},
          pad_r{(oh - 1) * g.stride_h + (g.kernel_h - 1) * g.dilation_h + 1 - h - g.pad_h,
                (ow - 1) * g.stride_w + (g.kernel_w - 1) * g.dilation_w + 1 - w - g.pad_w};
      dnnl_convolution_desc_t d{};
      if (dnnl_dilated_convolution_forward_desc_init(
              &d, dnnl_forward_inference, dnnl_convolution_direct, &src_md, &any_w,
              u8 ? &b_md : nullptr, &dst_md, strides, dilates, pad_l, pad_r) != dnnl_success) {
        return nullptr;
      }
      const double macs = static_cast<double>(n * oh * ow) *
                          static_cast<double>(g.out_channels * cg) *
                          static_cast<double>(g.kernel_h * g.kernel_w);
      return build(&d, src_md, user_w, dst_md, g.out_channels, 1 << 1, u8, relu,
                   fixed ? fixed->scales : nullptr, macs, choice);
    });
  });
}

Int8Primitive* matmul_s32_primitive(int64_t m, int64_t k, int64_t n) {
  const int threads = prepare_onednn_threads();
  thread_local std::vector<int64_t> key;
  key.assign({2, threads, m, k, n});
  return lookup(key, [&] {
    return build_for_shape(key, [&](std::string& choice) -> std::unique_ptr<Int8Primitive> {
      dnnl_memory_desc_t src_md, dst_md, user_w, any_w;
      dnnl_dims_t src_dims{m, k}, w_dims{k, n}, dst_dims{m, n};
      dnnl_memory_desc_init_by_tag(&src_md, 2, src_dims, dnnl_u8, dnnl_ab);
      dnnl_memory_desc_init_by_tag(&dst_md, 2, dst_dims, dnnl_s32, dnnl_ab);
      dnnl_memory_desc_init_by_tag(&user_w, 2, w_dims, dnnl_s8, dnnl_ba);  // O x K row-major
      dnnl_memory_desc_init_by_tag(&any_w, 2, w_dims, dnnl_s8, dnnl_format_tag_any);
      dnnl_matmul_desc_t d{};
      if (dnnl_matmul_desc_init(&d, &src_md, &any_w, nullptr, &dst_md) != dnnl_success) {
        return nullptr;
      }
      const double macs = static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(n);
      return build(&d, src_md, user_w, dst_md, n, 0, false, false, nullptr, macs, choice);
    });
  });
}

struct OnednnWeights::Packed {
  dnnl_memory_desc_t md;
  AlignedBuffer data;
};

OnednnWeights::OnednnWeights(const int8_t* weight, int64_t count) : user_(weight, weight + count) {}
OnednnWeights::~OnednnWeights() = default;

const void* OnednnWeights::for_primitive(const Int8Primitive& p) {
  if (!p.weight_reorder) return user_.data();
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& k : packed_) {
    if (dnnl_memory_desc_equal(&k->md, &p.prim_w)) return k->data.ptr;
  }
  auto k = std::make_unique<Packed>();
  k->md = p.prim_w;
  void* dst = k->data.get(p.prim_w_bytes);
  execute(p.weight_reorder,
          {{DNNL_ARG_FROM, p.w_user.with(user_.data())}, {DNNL_ARG_TO, p.w_prim.with(dst)}});
  packed_.push_back(std::move(k));
  return dst;
}

void run_s32(Int8Primitive& p, const uint8_t* x, const void* packed_weight, int32_t x_zero_point,
             int32_t* acc) {
  run_u8(p, x, packed_weight, x_zero_point, nullptr, 0, acc);
}

void run_u8(Int8Primitive& p, const uint8_t* x, const void* packed_weight, int32_t x_zero_point,
            const float* bias, int32_t y_zero_point, void* y) {
  void* scratch = p.scratch_bytes ? cache().scratch.get(p.scratch_bytes) : nullptr;
  dnnl_exec_arg_t args[9];
  int n = 0;
  args[n++] = {DNNL_ARG_SRC, p.src.with(x)};
  args[n++] = {DNNL_ARG_WEIGHTS, p.w_prim.with(packed_weight)};
  args[n++] = {DNNL_ARG_DST, p.dst.with(y)};
  args[n++] = {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, p.zp.with(&x_zero_point)};
  if (scratch) args[n++] = {DNNL_ARG_SCRATCHPAD, p.scratch.with(scratch)};
  if (p.u8_out) {
    args[n++] = {DNNL_ARG_BIAS, p.bias.with(bias)};
    args[n++] = {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, p.dst_zp.with(&y_zero_point)};
  }
  onednn::execute(p.prim, n, args, "oneDNN int8 kernel");
}

}  // namespace ember::cpu::quantized::detail
