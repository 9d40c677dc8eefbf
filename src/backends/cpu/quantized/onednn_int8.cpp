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

#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>

#include "backends/cpu/gemm.h"
#include "ember/error.h"

namespace ember::cpu::quantized::detail {
namespace {

dnnl_engine_t engine() {
  static dnnl_engine_t e = [] {
    dnnl_engine_t eng = nullptr;
    EMBER_CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0) == dnnl_success,
                "oneDNN: could not create the CPU engine");
    return eng;
  }();
  return e;
}

struct Memory {
  dnnl_memory_t m = nullptr;
  Memory() = default;
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;
  ~Memory() {
    if (m) dnnl_memory_destroy(m);
  }
  bool init(const dnnl_memory_desc_t* md) {
    return dnnl_memory_create(&m, md, engine(), DNNL_MEMORY_NONE) == dnnl_success;
  }
  dnnl_memory_t with(const void* p) const {
    dnnl_memory_set_data_handle(m, const_cast<void*>(p));
    return m;
  }
};

struct AlignedBuffer {
  void* ptr = nullptr;
  size_t size = 0;
  void* get(size_t n) {
    if (n > size) {
      std::free(ptr);
      size = (n + 63) / 64 * 64;
      ptr = std::aligned_alloc(64, size);
      EMBER_CHECK(ptr != nullptr, "int8 kernel: out of memory (", n, " bytes)");
    }
    return ptr;
  }
  AlignedBuffer() = default;
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  ~AlignedBuffer() { std::free(ptr); }
};

struct KeyHash {
  size_t operator()(const std::vector<int64_t>& k) const {
    size_t h = 1469598103934665603ull;
    for (int64_t v : k) h = (h ^ static_cast<size_t>(v)) * 1099511628211ull;
    return h;
  }
};

}  // namespace

struct Int8Primitive {
  dnnl_primitive_t prim = nullptr;
  dnnl_primitive_t weight_reorder = nullptr;  // null when oneDNN takes the user layout
  dnnl_memory_desc_t user_w{}, prim_w{};
  size_t prim_w_bytes = 0, scratch_bytes = 0;
  Memory src, w_user, w_prim, dst, zp, scratch;
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
  dnnl_stream_t stream = nullptr;
  ~ThreadCache() {
    prims.clear();
    if (stream) dnnl_stream_destroy(stream);
  }
};

ThreadCache& cache() {
  thread_local ThreadCache c;
  if (!c.stream) {
    EMBER_CHECK(dnnl_stream_create(&c.stream, engine(), dnnl_stream_default_flags) == dnnl_success,
                "oneDNN: could not create a stream");
  }
  return c;
}

constexpr size_t kMaxEntries = 512;

void execute(dnnl_primitive_t p, std::initializer_list<dnnl_exec_arg_t> args) {
  const dnnl_status_t st = dnnl_primitive_execute(p, cache().stream, static_cast<int>(args.size()),
                                                  args.begin());
  EMBER_CHECK(st == dnnl_success, "oneDNN int8 kernel failed with status ", int(st));
  dnnl_stream_wait(cache().stream);
}

// Finishes a primitive from its operation descriptor (conv or matmul): null when oneDNN only
// has its reference implementation (slower than our portable kernel) or none.
std::unique_ptr<Int8Primitive> build(const void* op_desc, const dnnl_memory_desc_t& src_md,
                                     const dnnl_memory_desc_t& user_w,
                                     const dnnl_memory_desc_t& dst_md) {
  dnnl_primitive_attr_t attr = nullptr;
  dnnl_primitive_attr_create(&attr);
  dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
  const int32_t runtime_zp = DNNL_RUNTIME_S32_VAL;
  dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_SRC, 1, 0, &runtime_zp);
  dnnl_primitive_desc_t pd = nullptr;
  const bool created =
      dnnl_primitive_desc_create(&pd, op_desc, attr, engine(), nullptr) == dnnl_success;
  dnnl_primitive_attr_destroy(attr);
  if (!created) return nullptr;
  const char* impl = nullptr;
  dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
  if (impl == nullptr || std::strstr(impl, "ref") != nullptr) {
    dnnl_primitive_desc_destroy(pd);
    return nullptr;
  }
  auto p = std::make_unique<Int8Primitive>();
  p->user_w = user_w;
  p->prim_w = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
  p->prim_w_bytes = dnnl_memory_desc_get_size(&p->prim_w);
  const dnnl_memory_desc_t* scratch_md = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
  p->scratch_bytes = scratch_md ? dnnl_memory_desc_get_size(scratch_md) : 0;
  dnnl_memory_desc_t zp_md;
  dnnl_dims_t one{1};
  dnnl_memory_desc_init_by_tag(&zp_md, 1, one, dnnl_s32, dnnl_a);
  bool ok = dnnl_primitive_create(&p->prim, pd) == dnnl_success && p->src.init(&src_md) &&
            p->dst.init(&dst_md) && p->w_user.init(&user_w) && p->w_prim.init(&p->prim_w) &&
            p->zp.init(&zp_md) && (!scratch_md || p->scratch.init(scratch_md));
  dnnl_primitive_desc_destroy(pd);
  if (ok && !dnnl_memory_desc_equal(&p->prim_w, &user_w)) {
    dnnl_primitive_desc_t rpd = nullptr;
    ok = dnnl_reorder_primitive_desc_create(&rpd, &user_w, engine(), &p->prim_w, engine(),
                                            nullptr) == dnnl_success &&
         dnnl_primitive_create(&p->weight_reorder, rpd) == dnnl_success;
    if (rpd) dnnl_primitive_desc_destroy(rpd);
  }
  return ok ? std::move(p) : nullptr;
}

// The cached entry for `key` (built by `make` on a miss; a failed build is cached as null).
template <class Make>
Int8Primitive* lookup(std::vector<int64_t> key, const Make& make) {
  ThreadCache& c = cache();
  if (auto it = c.prims.find(key); it != c.prims.end()) return it->second.get();
  if (c.prims.size() >= kMaxEntries) c.prims.clear();
  auto p = make();
  Int8Primitive* raw = p.get();
  c.prims.emplace(std::move(key), std::move(p));
  return raw;
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

Int8Primitive* conv_s32_primitive(const QConvGeometry& g, int64_t n, int64_t h, int64_t w) {
  const int threads = prepare_onednn_threads();
  const int64_t oh = g.out_h(h), ow = g.out_w(w);
  std::vector<int64_t> key{1,          threads,    n,          h,          w,
                           g.in_channels, g.out_channels, g.groups, g.kernel_h, g.kernel_w,
                           g.stride_h, g.stride_w, g.pad_h,    g.pad_w,    g.dilation_h,
                           g.dilation_w};
  return lookup(std::move(key), [&]() -> std::unique_ptr<Int8Primitive> {
    dnnl_memory_desc_t src_md, dst_md, user_w, any_w;
    dnnl_dims_t src_dims{n, g.in_channels, h, w}, dst_dims{n, g.out_channels, oh, ow};
    dnnl_memory_desc_init_by_tag(&src_md, 4, src_dims, dnnl_u8, dnnl_nhwc);
    dnnl_memory_desc_init_by_tag(&dst_md, 4, dst_dims, dnnl_s32, dnnl_nhwc);
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
    if (dnnl_dilated_convolution_forward_desc_init(&d, dnnl_forward_inference,
                                                   dnnl_convolution_direct, &src_md, &any_w,
                                                   nullptr, &dst_md, strides, dilates, pad_l,
                                                   pad_r) != dnnl_success) {
      return nullptr;
    }
    return build(&d, src_md, user_w, dst_md);
  });
}

Int8Primitive* matmul_s32_primitive(int64_t m, int64_t k, int64_t n) {
  const int threads = prepare_onednn_threads();
  return lookup({2, threads, m, k, n}, [&]() -> std::unique_ptr<Int8Primitive> {
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
    return build(&d, src_md, user_w, dst_md);
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
  execute(p.weight_reorder, {{DNNL_ARG_FROM, p.w_user.with(user_.data())},
                             {DNNL_ARG_TO, p.w_prim.with(dst)}});
  packed_.push_back(std::move(k));
  return dst;
}

void run_s32(Int8Primitive& p, const uint8_t* x, const void* packed_weight, int32_t x_zero_point,
             int32_t* acc) {
  void* scratch = p.scratch_bytes ? cache().scratch.get(p.scratch_bytes) : nullptr;
  if (scratch) {
    execute(p.prim, {{DNNL_ARG_SRC, p.src.with(x)},
                     {DNNL_ARG_WEIGHTS, p.w_prim.with(packed_weight)},
                     {DNNL_ARG_DST, p.dst.with(acc)},
                     {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, p.zp.with(&x_zero_point)},
                     {DNNL_ARG_SCRATCHPAD, p.scratch.with(scratch)}});
  } else {
    execute(p.prim, {{DNNL_ARG_SRC, p.src.with(x)},
                     {DNNL_ARG_WEIGHTS, p.w_prim.with(packed_weight)},
                     {DNNL_ARG_DST, p.dst.with(acc)},
                     {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, p.zp.with(&x_zero_point)}});
  }
}

}  // namespace ember::cpu::quantized::detail
