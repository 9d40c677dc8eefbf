#include "ember/tensor_impl.h"

#include <limits>

#include "ember/dispatch.h"
#include "ember/error.h"

namespace ember {

DimVector contiguous_strides(IntArrayRef sizes) {
  DimVector strides(sizes.size());
  int64_t acc = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = acc;
    // Sizes whose product overflows are refused by compute_numel; until then (this runs first
    // in the constructor) the multiplication must not be signed overflow.
    if (__builtin_mul_overflow(acc, std::max<int64_t>(sizes[i], 1), &acc)) acc = 0;
  }
  return strides;
}

int64_t compute_numel(IntArrayRef sizes) {
  // Negative dims are reported before any overflow, as PyTorch does.
  for (int64_t s : sizes)
    EMBER_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", sizes);
  int64_t n = 1;
  for (int64_t s : sizes)
    EMBER_CHECK(!__builtin_mul_overflow(n, s, &n), "numel: integer multiplication overflow for sizes ", sizes);
  return n;
}

int64_t storage_nbytes(IntArrayRef sizes, IntArrayRef strides, size_t itemsize, int64_t offset) {
  EMBER_ASSERT(sizes.size() == strides.size() && offset >= 0);
  for (int64_t s : sizes)
    if (s == 0) return 0;
  uint64_t needed = static_cast<uint64_t>(offset) + 1;
  bool overflow = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    EMBER_ASSERT(sizes[i] > 0 && strides[i] >= 0);
    uint64_t span;
    overflow |= __builtin_mul_overflow(static_cast<uint64_t>(strides[i]),
                                       static_cast<uint64_t>(sizes[i] - 1), &span);
    overflow |= __builtin_add_overflow(needed, span, &needed);
  }
  overflow |= __builtin_mul_overflow(needed, static_cast<uint64_t>(itemsize), &needed);
  overflow |= needed > static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  EMBER_CHECK(!overflow, "Storage size calculation overflowed with sizes=", sizes,
              " and strides=", strides);
  return static_cast<int64_t>(needed);
}

namespace {
// Bytes of a contiguous tensor (PyTorch's computeStorageNbytesContiguous): numel * itemsize
// must not wrap, or a huge shape would get a small allocation. Like PyTorch, an overflow in
// the running product counts even when a later dim is 0.
size_t contiguous_nbytes(IntArrayRef sizes, size_t itemsize) {
  for (int64_t s : sizes)
    EMBER_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", sizes);
  uint64_t n = 1;
  bool overflow = false;
  for (int64_t s : sizes) overflow |= __builtin_mul_overflow(n, static_cast<uint64_t>(s), &n);
  overflow |= __builtin_mul_overflow(n, static_cast<uint64_t>(itemsize), &n);
  overflow |= n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  EMBER_CHECK(!overflow, "Storage size calculation overflowed with sizes=", sizes);
  return static_cast<size_t>(n);
}
}  // namespace

TensorImpl::TensorImpl(intrusive_ptr<Storage> storage, ScalarType dtype, IntArrayRef sizes,
                       IntArrayRef strides, int64_t storage_offset)
    : storage_(std::move(storage)),
      sizes_(sizes.begin(), sizes.end()),
      strides_(strides.begin(), strides.end()),
      storage_offset_(storage_offset),
      dtype_(dtype),
      version_(make_intrusive<VersionCounter>()) {
  EMBER_ASSERT(storage_, "TensorImpl needs a storage");
  EMBER_ASSERT(sizes_.size() == strides_.size());
  refresh_numel_and_contiguity();
  refresh_keys();
}

TensorImpl::TensorImpl(IntArrayRef sizes, ScalarType dtype, Device device)
    : sizes_(sizes.begin(), sizes.end()),
      strides_(contiguous_strides(sizes)),
      dtype_(dtype),
      version_(make_intrusive<VersionCounter>()) {
  const size_t nbytes = contiguous_nbytes(sizes, element_size(dtype));
  numel_ = compute_numel(sizes);
  storage_ = Storage::allocate(nbytes, device);
  is_contiguous_ = true;
  refresh_keys();
}

namespace {
void (*g_pyobj_release_hook)(void*) = nullptr;
}  // namespace

void TensorImpl::set_pyobj_release_hook(void (*hook)(void*)) { g_pyobj_release_hook = hook; }

TensorImpl::~TensorImpl() {
  if (owns_pyobj_ && g_pyobj_release_hook) g_pyobj_release_hook(pyobj_);
}

int64_t TensorImpl::size(int64_t d) const {
  int64_t n = dim();
  // As PyTorch: any dim of a 0-d tensor is refused the same way, before the range check.
  EMBER_CHECK_INDEX(n > 0, "Dimension specified as ", d, " but tensor has no dimensions");
  EMBER_CHECK_INDEX(d >= -n && d < n, "Dimension out of range (expected to be in range of [", -n,
                    ", ", n - 1, "], but got ", d, ")");
  return sizes_[d < 0 ? d + n : d];
}

int64_t TensorImpl::stride(int64_t d) const {
  int64_t n = dim();
  EMBER_CHECK_INDEX(n > 0, "Dimension specified as ", d, " but tensor has no dimensions");
  EMBER_CHECK_INDEX(d >= -n && d < n, "Dimension out of range (expected to be in range of [", -n,
                    ", ", n - 1, "], but got ", d, ")");
  return strides_[d < 0 ? d + n : d];
}

void TensorImpl::set_geometry(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset) {
  EMBER_ASSERT(sizes.size() == strides.size());
  sizes_.assign(sizes.begin(), sizes.end());
  strides_.assign(strides.begin(), strides.end());
  storage_offset_ = storage_offset;
  refresh_numel_and_contiguity();
}

void TensorImpl::set_storage(intrusive_ptr<Storage> s) {
  EMBER_ASSERT(s);
  storage_ = std::move(s);
  refresh_keys();
}

void TensorImpl::set_autograd_meta(std::unique_ptr<AutogradMetaInterface> m) {
  autograd_meta_ = std::move(m);
  refresh_keys();
}

void TensorImpl::refresh_autograd_key() { refresh_keys(); }

// Note [View tracking]
// Every view op (ops::make_view) records the root tensor it views, for every tensor, not only
// for those that require grad: `out = zeros(3); out[0:2].copy_(w)` with w requiring grad must
// make `out` require grad (autograd rebases out's history through CopySlices), and a view made
// under no_grad of a tensor that requires grad must refuse in-place writes that autograd would
// record. It costs one refcount per view; the base stays alive as long as its views, as in
// PyTorch. detach() is not a view in this sense (`_base` is None), though it shares storage.
void TensorImpl::set_view_of(const TensorImpl& of, bool grad_mode_enabled) {
  view_base_ = of.view_base_ ? of.view_base_ : intrusive_ptr<TensorImpl>(const_cast<TensorImpl*>(&of));
  view_made_without_grad_ = !grad_mode_enabled;
  refresh_keys();
}

void TensorImpl::swap_contents(TensorImpl& other) {
  using std::swap;
  swap(storage_, other.storage_);
  swap(sizes_, other.sizes_);
  swap(strides_, other.strides_);
  swap(storage_offset_, other.storage_offset_);
  swap(numel_, other.numel_);
  swap(dtype_, other.dtype_);
  swap(is_contiguous_, other.is_contiguous_);
  swap(wrapped_number_, other.wrapped_number_);
  swap(view_made_without_grad_, other.view_made_without_grad_);
  swap(keys_, other.keys_);
  swap(version_, other.version_);
  swap(autograd_meta_, other.autograd_meta_);
  swap(view_base_, other.view_base_);
  swap(subclass_, other.subclass_);
  swap(quantizer_, other.quantizer_);
}

void TensorImpl::shallow_copy_from(const TensorImpl& other) {
  storage_ = other.storage_;
  sizes_ = other.sizes_;
  strides_ = other.strides_;
  storage_offset_ = other.storage_offset_;
  numel_ = other.numel_;
  dtype_ = other.dtype_;
  is_contiguous_ = other.is_contiguous_;
  quantizer_ = other.quantizer_;
  refresh_keys();
}

void TensorImpl::set_subclass(intrusive_ptr<TensorSubclass> s) {
  subclass_ = std::move(s);
  refresh_keys();
}

void TensorImpl::refresh_numel_and_contiguity() {
  numel_ = compute_numel(sizes_);
  // Contiguous = row-major order, ignoring the strides of size-1 dims (as PyTorch does).
  is_contiguous_ = true;
  if (numel_ == 0) return;
  int64_t expected = 1;
  for (size_t i = sizes_.size(); i-- > 0;) {
    if (sizes_[i] == 1) continue;
    if (strides_[i] != expected) {
      is_contiguous_ = false;
      return;
    }
    expected *= sizes_[i];
  }
}

void TensorImpl::refresh_keys() {
  KeySet k = storage_->device().is_meta() ? KeySet(DispatchKey::Meta) : KeySet(DispatchKey::CPU);
  if (is_quantized(dtype_)) k |= DispatchKey::QuantizedCPU;
  if (requires_grad()) k |= DispatchKey::Autograd;
  if (subclass_) {
    if (subclass_->has_torch_function()) k |= DispatchKey::FunctionOverride;
    if (subclass_->has_torch_dispatch()) k |= DispatchKey::DispatchOverride;
  }
  keys_ = k;
}

}  // namespace ember
