// ember::Tensor — a value type holding one reference to a TensorImpl. Copying aliases.
//
//   auto a = ember::tensor({{1., 2.}, {3., 4.}});
//   auto b = a.t().contiguous() + 1;        // views, broadcasting with a weak scalar
//   std::cout << b.sum(0) << "\n";          // tensor([5., 9.])
//
// Methods are thin: each calls the free function of its op family (include/ember/ops/*.h),
// which goes through the dispatcher. Methods are defined next to their op, in src/ops/<family>.cpp.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "ember/array_ref.h"
#include "ember/device.h"
#include "ember/dtype.h"
#include "ember/intrusive_ptr.h"
#include "ember/memory_format.h"
#include "ember/scalar.h"
#include "ember/tensor_accessor.h"
#include "ember/tensor_impl.h"
#include "ember/tensor_options.h"

namespace ember {

class Generator;
class TensorIndex;
enum class QScheme : int8_t;  // ember/quantized/tensor.h
namespace autograd {
class Node;
}

class Tensor {
 public:
  Tensor() = default;  // undefined
  explicit Tensor(intrusive_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  // ---- identity and metadata ----
  bool defined() const { return static_cast<bool>(impl_); }
  TensorImpl* impl() const { return impl_.get(); }
  const intrusive_ptr<TensorImpl>& impl_ptr() const { return impl_; }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }
  size_t use_count() const { return impl_.use_count(); }

  IntArrayRef sizes() const { return impl_->sizes(); }
  IntArrayRef strides() const { return impl_->strides(); }
  int64_t size(int64_t d) const { return impl_->size(d); }
  int64_t stride(int64_t d) const { return impl_->stride(d); }
  int64_t dim() const { return impl_->dim(); }
  int64_t numel() const { return impl_->numel(); }
  int64_t storage_offset() const { return impl_->storage_offset(); }
  ScalarType dtype() const { return impl_->dtype(); }
  ScalarType scalar_type() const { return impl_->dtype(); }
  Device device() const { return impl_->device(); }
  bool is_cpu() const { return device().is_cpu(); }
  bool is_meta() const { return device().is_meta(); }
  bool is_contiguous() const { return impl_->is_contiguous(); }
  /// Contiguous in `format`'s order (ChannelsLast: NHWC strides; Preserve is an error).
  bool is_contiguous(MemoryFormat format) const;
  /// ChannelsLast when the strides look NHWC (PyTorch's rule for ambiguous layouts), else
  /// Contiguous.
  MemoryFormat suggest_memory_format() const;
  bool is_floating_point() const { return is_floating(dtype()); }
  bool is_complex() const { return ember::is_complex(dtype()); }
  /// Always false: ember conjugates eagerly (Note [Eager conj]), so no tensor carries a conj bit.
  bool is_conj() const { return false; }
  bool is_quantized() const { return ember::is_quantized(dtype()); }
  size_t element_size() const { return impl_->itemsize(); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * element_size(); }
  uint32_t version() const { return impl_->version(); }
  bool requires_grad() const { return impl_ && impl_->requires_grad(); }

  /// Address of the first element; nullptr for meta tensors.
  void* data_ptr() const { return impl_->data(); }
  /// Typed address; the type must match the dtype exactly ("expected scalar type Float but
  /// found Double", libtorch's text).
  template <class T>
  T* data_ptr() const {
    EMBER_CHECK(dtype_of_v<std::remove_const_t<T>> == dtype(), "expected scalar type ",
                scalar_type_name(dtype_of_v<std::remove_const_t<T>>), " but found ",
                scalar_type_name(dtype()));
    return static_cast<T*>(impl_->data());
  }
  /// The elements as an N-d array of T, without per-element dispatch (libtorch's accessor):
  ///   auto a = t.accessor<float, 2>();  a[i][j] += 1;
  /// Checks the dtype and the dim count; indices are bounds-checked when EMBER_ACCESSOR_CHECKS
  /// is on (debug builds). The accessor borrows the tensor's sizes: keep the tensor alive.
  template <class T, size_t N>
  TensorAccessor<T, N> accessor() const& {
    static_assert(N > 0, "accessor is used for indexing tensor, for scalars use *data_ptr<T>()");
    EMBER_CHECK(dim() == static_cast<int64_t>(N), "TensorAccessor expected ", N,
                " dims but tensor has ", dim());
    return TensorAccessor<T, N>(data_ptr<T>(), sizes().data(), strides().data());
  }
  // An accessor of a temporary would point at freed sizes.
  template <class T, size_t N>
  TensorAccessor<T, N> accessor() && = delete;
  /// This tensor's dtype, device and layout, for factories and to: ember::zeros({2}, t.options()).
  TensorOptions options() const { return TensorOptions().dtype(dtype()).device(device()).layout(layout()); }
  /// Always kStrided: ember has no other layout.
  Layout layout() const { return kStrided; }

  /// The value of a one-element tensor.
  Scalar item() const;
  template <class T>
  T item() const {
    return item().to<T>();
  }

  // ---- conversion and copies (src/ops/copy.cpp) ----
  // memory_format: nullopt keeps the layout (preserve_format); a format other than the tensor's
  // suggested one makes a copy in that format.
  Tensor to(ScalarType dtype, bool copy = false,
            std::optional<MemoryFormat> memory_format = std::nullopt) const;
  Tensor to(Device device, bool copy = false,
            std::optional<MemoryFormat> memory_format = std::nullopt) const;
  Tensor to(Device device, ScalarType dtype, bool copy = false,
            std::optional<MemoryFormat> memory_format = std::nullopt) const;
  Tensor to(const Tensor& other, bool copy = false,
            std::optional<MemoryFormat> memory_format = std::nullopt) const;  // other's dtype and device
  /// Same dtype and device, in `memory_format` (self when already so).
  Tensor to(MemoryFormat memory_format, bool copy = false) const;
  /// libtorch's to(TensorOptions): the options' dtype and device where given (this tensor's
  /// otherwise), and their memory format or `memory_format` (not both: "Cannot set
  /// memory_format both in TensorOptions and explicit argument; ..."). requires_grad(true) is
  /// refused, as libtorch does ("Operators taking TensorOptions cannot take a TensorOptions
  /// with options.requires_grad set as true. ..."): x.to(w.options()).
  Tensor to(const TensorOptions& options, bool copy = false,
            std::optional<MemoryFormat> memory_format = std::nullopt) const;
  Tensor cpu() const { return to(kCPU); }
  Tensor contiguous(MemoryFormat memory_format = MemoryFormat::Contiguous) const;
  /// nullopt / Preserve keeps a dense layout (or the suggested format of a non-dense one).
  Tensor clone(std::optional<MemoryFormat> memory_format = std::nullopt) const;
  Tensor& copy_(const Tensor& src);
  Tensor detach() const;
  Tensor& fill_(const Scalar& value);
  Tensor& zero_();

  // ---- views and shape (src/ops/view.cpp) ----
  Tensor view(IntArrayRef sizes) const;
  Tensor view_as(const Tensor& other) const;
  Tensor reshape(IntArrayRef sizes) const;
  Tensor reshape_as(const Tensor& other) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor unflatten(int64_t dim, IntArrayRef sizes) const;
  Tensor t() const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor permute(IntArrayRef dims) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor expand(IntArrayRef sizes) const;
  Tensor expand_as(const Tensor& other) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor slice(int64_t dim = 0, std::optional<int64_t> start = std::nullopt,
               std::optional<int64_t> end = std::nullopt, int64_t step = 1) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor as_strided(IntArrayRef sizes, IntArrayRef strides,
                    std::optional<int64_t> storage_offset = std::nullopt) const;
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  std::vector<Tensor> split(int64_t split_size, int64_t dim = 0) const;
  std::vector<Tensor> split(IntArrayRef split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> unbind(int64_t dim = 0) const;

  // ---- quantized tensors (src/quant/quantize.cpp; ember/quantized/tensor.h) ----
  Tensor dequantize() const;
  Tensor int_repr() const;
  double q_scale() const;
  int64_t q_zero_point() const;
  Tensor q_per_channel_scales() const;
  Tensor q_per_channel_zero_points() const;
  int64_t q_per_channel_axis() const;
  QScheme qscheme() const;

  // ---- indexing (src/ops/indexing.cpp; TensorIndex in ember/ops/indexing.h) ----
  Tensor index(ArrayRef<TensorIndex> indices) const;
  Tensor& index_put_(ArrayRef<TensorIndex> indices, const Tensor& value);
  Tensor& index_put_(ArrayRef<TensorIndex> indices, const Scalar& value);
  Tensor operator[](int64_t i) const { return select(0, i); }

  // ---- elementwise (src/ops/unary.cpp, binary.cpp, compare.cpp, pointwise.cpp) ----
  Tensor add(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor add(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor& add_(const Tensor& other, const Scalar& alpha = 1);
  Tensor& add_(const Scalar& other, const Scalar& alpha = 1);
  Tensor sub(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor sub(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor& sub_(const Tensor& other, const Scalar& alpha = 1);
  Tensor& sub_(const Scalar& other, const Scalar& alpha = 1);
  Tensor mul(const Tensor& other) const;
  Tensor mul(const Scalar& other) const;
  Tensor& mul_(const Tensor& other);
  Tensor& mul_(const Scalar& other);
  /// rounding_mode: nullopt (true division), "trunc" or "floor".
  Tensor div(const Tensor& other, std::optional<std::string> rounding_mode = std::nullopt) const;
  Tensor div(const Scalar& other, std::optional<std::string> rounding_mode = std::nullopt) const;
  Tensor& div_(const Tensor& other, std::optional<std::string> rounding_mode = std::nullopt);
  Tensor& div_(const Scalar& other, std::optional<std::string> rounding_mode = std::nullopt);
  Tensor remainder(const Tensor& other) const;
  Tensor remainder(const Scalar& other) const;
  Tensor& remainder_(const Tensor& other);
  Tensor& remainder_(const Scalar& other);
  Tensor pow(const Tensor& exponent) const;
  Tensor pow(const Scalar& exponent) const;
  Tensor& pow_(const Tensor& exponent);
  Tensor& pow_(const Scalar& exponent);
  Tensor maximum(const Tensor& other) const;
  Tensor minimum(const Tensor& other) const;
  /// Same sizes and elements (torch.equal); close within rtol / atol (torch.allclose).
  bool equal(const Tensor& other) const;
  bool allclose(const Tensor& other, double rtol = 1e-5, double atol = 1e-8,
                bool equal_nan = false) const;

#define EMBER_UNARY_METHODS(name) \
  Tensor name() const;            \
  Tensor& name##_();
  EMBER_UNARY_METHODS(neg)
  EMBER_UNARY_METHODS(abs)
  EMBER_UNARY_METHODS(sign)
  EMBER_UNARY_METHODS(exp)
  EMBER_UNARY_METHODS(log)
  EMBER_UNARY_METHODS(log1p)
  EMBER_UNARY_METHODS(expm1)
  EMBER_UNARY_METHODS(sqrt)
  EMBER_UNARY_METHODS(rsqrt)
  EMBER_UNARY_METHODS(sin)
  EMBER_UNARY_METHODS(cos)
  EMBER_UNARY_METHODS(tanh)
  EMBER_UNARY_METHODS(sigmoid)
  EMBER_UNARY_METHODS(relu)
  EMBER_UNARY_METHODS(logical_not)
  EMBER_UNARY_METHODS(bitwise_not)
  // math.h's functions (src/ops/tensor_methods_math.cpp)
  EMBER_UNARY_METHODS(square)
  EMBER_UNARY_METHODS(reciprocal)
  EMBER_UNARY_METHODS(floor)
  EMBER_UNARY_METHODS(ceil)
  EMBER_UNARY_METHODS(round)
  EMBER_UNARY_METHODS(trunc)
  EMBER_UNARY_METHODS(frac)
  EMBER_UNARY_METHODS(tan)
  EMBER_UNARY_METHODS(asin)
  EMBER_UNARY_METHODS(acos)
  EMBER_UNARY_METHODS(atan)
  EMBER_UNARY_METHODS(sinh)
  EMBER_UNARY_METHODS(cosh)
  EMBER_UNARY_METHODS(log2)
  EMBER_UNARY_METHODS(log10)
  EMBER_UNARY_METHODS(exp2)
  EMBER_UNARY_METHODS(erf)
#undef EMBER_UNARY_METHODS

  Tensor clamp(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  Tensor& clamp_(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
  Tensor masked_fill(const Tensor& mask, const Scalar& value) const;
  Tensor masked_fill(const Tensor& mask, const Tensor& value) const;
  Tensor& masked_fill_(const Tensor& mask, const Scalar& value);
  Tensor& masked_fill_(const Tensor& mask, const Tensor& value);
  /// self where condition else other (as torch.Tensor.where).
  Tensor where(const Tensor& condition, const Tensor& other) const;
  Tensor addcmul(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1) const;
  Tensor& addcmul_(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1);
  Tensor addcdiv(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1) const;
  Tensor& addcdiv_(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1);

#define EMBER_BINARY_NOALPHA_METHODS(name)  \
  Tensor name(const Tensor& other) const;   \
  Tensor name(const Scalar& other) const;   \
  Tensor& name##_(const Tensor& other);     \
  Tensor& name##_(const Scalar& other);
  EMBER_BINARY_NOALPHA_METHODS(eq)
  EMBER_BINARY_NOALPHA_METHODS(ne)
  EMBER_BINARY_NOALPHA_METHODS(lt)
  EMBER_BINARY_NOALPHA_METHODS(le)
  EMBER_BINARY_NOALPHA_METHODS(gt)
  EMBER_BINARY_NOALPHA_METHODS(ge)
  EMBER_BINARY_NOALPHA_METHODS(logical_and)
  EMBER_BINARY_NOALPHA_METHODS(logical_or)
  EMBER_BINARY_NOALPHA_METHODS(logical_xor)
  EMBER_BINARY_NOALPHA_METHODS(bitwise_and)
  EMBER_BINARY_NOALPHA_METHODS(bitwise_or)
  EMBER_BINARY_NOALPHA_METHODS(bitwise_xor)
#undef EMBER_BINARY_NOALPHA_METHODS

  // ---- reductions (src/ops/reduce.cpp, softmax.cpp, sort.cpp) ----
  Tensor sum(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor sum(IntArrayRef dims, bool keepdim = false,
             std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor mean(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor mean(IntArrayRef dims, bool keepdim = false,
              std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor prod(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor prod(int64_t dim, bool keepdim = false,
              std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor max() const;
  std::tuple<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;
  Tensor min() const;
  std::tuple<Tensor, Tensor> min(int64_t dim, bool keepdim = false) const;
  Tensor amax(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor amin(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor argmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor argmin(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  /// dims empty = all dims; correction 1 is Bessel's (unbiased) as in PyTorch's default.
  Tensor var(std::optional<std::vector<int64_t>> dims = std::nullopt, double correction = 1,
             bool keepdim = false) const;
  Tensor std(std::optional<std::vector<int64_t>> dims = std::nullopt, double correction = 1,
             bool keepdim = false) const;
  Tensor norm(const Scalar& p = 2, std::optional<std::vector<int64_t>> dims = std::nullopt,
              bool keepdim = false) const;
  Tensor all() const;
  Tensor all(int64_t dim, bool keepdim = false) const;
  Tensor any() const;
  Tensor any(int64_t dim, bool keepdim = false) const;
  Tensor cumsum(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor softmax(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor log_softmax(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  std::tuple<Tensor, Tensor> sort(int64_t dim = -1, bool descending = false,
                                  bool stable = false) const;
  std::tuple<Tensor, Tensor> topk(int64_t k, int64_t dim = -1, bool largest = true,
                                  bool sorted = true) const;

  // ---- linear algebra (src/ops/matmul.cpp) ----
  Tensor mm(const Tensor& mat2) const;
  Tensor bmm(const Tensor& mat2) const;
  Tensor matmul(const Tensor& other) const;
  Tensor addmm(const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
               const Scalar& alpha = 1) const;

  // ---- gather / scatter (src/ops/index_ops.cpp) ----
  Tensor index_select(int64_t dim, const Tensor& index) const;
  Tensor gather(int64_t dim, const Tensor& index) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src);
  Tensor& scatter_(int64_t dim, const Tensor& index, const Scalar& value);
  Tensor scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor& scatter_add_(int64_t dim, const Tensor& index, const Tensor& src);

  // ---- shape, indexing, scatter and sorting ops (src/ops/shape_*.cpp, index_more.cpp,
  // scatter_more.cpp, sort_more.cpp; free functions in ember/ops/shape.h) ----
  Tensor diagonal(int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) const;
  Tensor movedim(IntArrayRef source, IntArrayRef destination) const;
  Tensor swapaxes(int64_t axis0, int64_t axis1) const;
  Tensor broadcast_to(IntArrayRef size) const;
  Tensor flip(IntArrayRef dims) const;
  Tensor roll(IntArrayRef shifts, IntArrayRef dims = {}) const;
  Tensor rot90(int64_t k = 1, IntArrayRef dims = {0, 1}) const;
  Tensor repeat(IntArrayRef repeats) const;
  Tensor tile(IntArrayRef dims) const;
  Tensor repeat_interleave(int64_t repeats, std::optional<int64_t> dim = std::nullopt) const;
  Tensor tril(int64_t diagonal = 0) const;
  Tensor triu(int64_t diagonal = 0) const;
  Tensor& tril_(int64_t diagonal = 0);
  Tensor& triu_(int64_t diagonal = 0);
  Tensor diag(int64_t diagonal = 0) const;
  Tensor trace() const;
  Tensor masked_select(const Tensor& mask) const;
  Tensor masked_scatter(const Tensor& mask, const Tensor& source) const;
  Tensor& masked_scatter_(const Tensor& mask, const Tensor& source);
  Tensor take(const Tensor& index) const;
  Tensor index_add(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha = 1) const;
  Tensor& index_add_(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha = 1);
  Tensor index_copy(int64_t dim, const Tensor& index, const Tensor& source) const;
  Tensor& index_copy_(int64_t dim, const Tensor& index, const Tensor& source);
  Tensor index_fill(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor& index_fill_(int64_t dim, const Tensor& index, const Scalar& value);
  Tensor scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce,
                        bool include_self = true) const;
  Tensor& scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce,
                          bool include_self = true);
  Tensor argsort(int64_t dim = -1, bool descending = false) const;
  std::tuple<Tensor, Tensor> mode(int64_t dim = -1, bool keepdim = false) const;
  Tensor& resize_(IntArrayRef size);

  // ---- random fills (src/ops/random.cpp) ----
  Tensor& uniform_(double from = 0, double to = 1, Generator* gen = nullptr);
  Tensor& normal_(double mean = 0, double std = 1, Generator* gen = nullptr);
  Tensor& bernoulli_(double p = 0.5, Generator* gen = nullptr);

  // ---- printing (src/core/print.cpp) ----
  /// Exactly PyTorch's repr, with "ember." where PyTorch writes "torch.".
  std::string to_string() const;

  // ---- autograd (src/autograd/variable.cpp) ----
  /// Sets the leaf flag. Only floating-point tensors can require grad; only leaves can stop.
  Tensor& requires_grad_(bool requires_grad = true);
  Tensor& set_requires_grad(bool requires_grad) { return requires_grad_(requires_grad); }
  /// The accumulated gradient (undefined until a backward reaches this leaf, or a retained
  /// non-leaf).
  Tensor grad() const;
  /// Replaces .grad (undefined clears it). Shape, dtype and device must match, as PyTorch checks.
  void set_grad(const Tensor& grad) const;
  /// The node that made this tensor (null for leaves and tensors without history).
  std::shared_ptr<autograd::Node> grad_fn() const;
  bool is_leaf() const;
  /// Which output of grad_fn this tensor is.
  uint32_t output_nr() const;
  /// Keep .grad for this non-leaf after backward (a no-op on leaves).
  void retain_grad() const;
  bool retains_grad() const;
  /// Computes the gradient of this tensor w.r.t. graph leaves (torch.Tensor.backward).
  void backward(const Tensor& gradient = {}, std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false, const std::vector<Tensor>& inputs = {}) const;
  /// Detaches in place: no history, requires_grad false. Views refuse.
  Tensor& detach_();
  /// A tensor sharing this one's data and geometry but with its own version counter and no
  /// autograd history (Tensor.data).
  Tensor variable_data() const;
  /// Replaces this tensor's data (storage, shape, dtype) with `new_data`'s, keeping its identity,
  /// autograd flags and version counter (Tensor.data = new_data). Both must be on compatible
  /// devices (cpu with cpu, meta with meta).
  void set_data(const Tensor& new_data) const;
  /// Registers a hook called with the gradient of this tensor; it may return a replacement
  /// (an undefined Tensor keeps the gradient). Returns an id for remove_hook.
  unsigned register_hook(std::function<Tensor(const Tensor&)> hook) const;
  /// A hook run on a leaf after its .grad was accumulated.
  unsigned register_post_accumulate_grad_hook(std::function<void(const Tensor&)> hook) const;
  void remove_hook(unsigned id) const;
  /// Views: the tensor this one views (undefined for non-views).
  bool is_view() const { return impl_->is_view(); }
  Tensor _base() const { return is_view() ? Tensor(impl_->view_base()) : Tensor(); }
  uint32_t _version() const { return version(); }
  /// Whether this tensor is an nn::Parameter.
  bool is_parameter() const;

 private:
  intrusive_ptr<TensorImpl> impl_;
};

std::ostream& operator<<(std::ostream& os, const Tensor& t);

/// "ember.Size([2, 3])" — how shapes appear in messages.
std::string size_str(IntArrayRef sizes);

// ---- operators (defined in src/ops/binary.cpp and compare.cpp) ----
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, const Scalar& b);
Tensor operator+(const Scalar& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Scalar& b);
Tensor operator-(const Scalar& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Scalar& b);
Tensor operator*(const Scalar& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Scalar& b);
Tensor operator/(const Scalar& a, const Tensor& b);
Tensor operator%(const Tensor& a, const Tensor& b);
Tensor operator%(const Tensor& a, const Scalar& b);
Tensor operator-(const Tensor& a);
Tensor& operator+=(Tensor& a, const Tensor& b);
Tensor& operator+=(Tensor& a, const Scalar& b);
Tensor& operator-=(Tensor& a, const Tensor& b);
Tensor& operator-=(Tensor& a, const Scalar& b);
Tensor& operator*=(Tensor& a, const Tensor& b);
Tensor& operator*=(Tensor& a, const Scalar& b);
Tensor& operator/=(Tensor& a, const Tensor& b);
Tensor& operator/=(Tensor& a, const Scalar& b);
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator==(const Tensor& a, const Scalar& b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, const Scalar& b);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, const Scalar& b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, const Scalar& b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, const Scalar& b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, const Scalar& b);
Tensor operator&(const Tensor& a, const Tensor& b);
Tensor operator|(const Tensor& a, const Tensor& b);
Tensor operator^(const Tensor& a, const Tensor& b);
Tensor operator~(const Tensor& a);

}  // namespace ember
