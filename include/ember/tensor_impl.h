// TensorImpl: the metadata of one tensor (sizes, strides, offset, dtype, device) over a Storage.
// Views are separate TensorImpls sharing the Storage and the version counter.
//
// Users hold tensors through ember::Tensor (tensor.h); TensorImpl is for kernels, the dispatcher
// and the layers above (autograd, the Python front end) that attach their own state to it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "ember/array_ref.h"
#include "ember/device.h"
#include "ember/dispatch_key.h"
#include "ember/dtype.h"
#include "ember/intrusive_ptr.h"
#include "ember/storage.h"

namespace ember {

class TensorSubclass;  // subclass.h

/// Shared by a tensor and all its views; bumped by every in-place write (autograd checks it).
struct VersionCounter : intrusive_target {
  std::atomic<uint32_t> version{0};
};

/// What autograd attaches to a tensor. Declared here so that the core owns the slot without
/// knowing autograd (which lives a layer above and implements this interface).
struct AutogradMetaInterface {
  virtual ~AutogradMetaInterface() = default;
  virtual bool requires_grad() const = 0;
};

/// What the quantization layer attaches (scale, zero point, axis).
struct QuantizerBase : intrusive_target {};

class TensorImpl : public intrusive_target {
 public:
  /// A tensor over `storage` with the given geometry. Strides are in elements.
  TensorImpl(intrusive_ptr<Storage> storage, ScalarType dtype, IntArrayRef sizes,
             IntArrayRef strides, int64_t storage_offset);
  /// A contiguous tensor over fresh storage.
  TensorImpl(IntArrayRef sizes, ScalarType dtype, Device device);
  ~TensorImpl() override;

  // ---- geometry ----
  IntArrayRef sizes() const { return sizes_; }
  IntArrayRef strides() const { return strides_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t size(int64_t d) const;  // negative d counts from the end
  int64_t stride(int64_t d) const;
  int64_t numel() const { return numel_; }
  int64_t storage_offset() const { return storage_offset_; }
  bool is_contiguous() const { return is_contiguous_; }
  /// Replace geometry (used by view ops on fresh impls, and by resize_/set_).
  void set_geometry(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset);

  // ---- element type, device, storage ----
  ScalarType dtype() const { return dtype_; }
  Device device() const { return storage_->device(); }
  size_t itemsize() const { return element_size(dtype_); }
  const intrusive_ptr<Storage>& storage() const { return storage_; }
  void set_storage(intrusive_ptr<Storage> s);
  /// Address of element 0 (nullptr for meta tensors).
  void* data() const {
    auto* base = static_cast<char*>(storage_->data());
    return base ? base + storage_offset_ * static_cast<int64_t>(itemsize()) : nullptr;
  }

  // ---- dispatch ----
  KeySet keys() const { return keys_; }
  /// Scalars from C++/Python number arguments, wrapped as 0-d tensors: they promote "weakly".
  bool is_wrapped_number() const { return wrapped_number_; }
  void set_wrapped_number(bool v) { wrapped_number_ = v; }

  // ---- versions (shared with views) ----
  const intrusive_ptr<VersionCounter>& version_counter() const { return version_; }
  void set_version_counter(intrusive_ptr<VersionCounter> v) { version_ = std::move(v); }
  uint32_t version() const { return version_->version.load(std::memory_order_relaxed); }
  void bump_version() { version_->version.fetch_add(1, std::memory_order_relaxed); }

  // ---- slots for the layers above ----
  AutogradMetaInterface* autograd_meta() const { return autograd_meta_.get(); }
  void set_autograd_meta(std::unique_ptr<AutogradMetaInterface> m);
  /// Its own flag or graph, or (for a view) its base's: a view of a tensor that requires grad
  /// requires grad even when made under no_grad (as PyTorch's DifferentiableViewMeta).
  bool requires_grad() const {
    return (autograd_meta_ && autograd_meta_->requires_grad()) ||
           (view_base_ && view_base_->requires_grad());
  }
  /// Recompute the Autograd key after a change in requires_grad.
  void refresh_autograd_key();

  // ---- views (Note [View tracking] in tensor_impl.cpp) ----
  /// The tensor this one is a view of (the root: never itself a view); null for non-views.
  const intrusive_ptr<TensorImpl>& view_base() const { return view_base_; }
  bool is_view() const { return static_cast<bool>(view_base_); }
  /// Whether grad mode was off when the view was made (in-place writes on it that autograd
  /// must record are then refused).
  bool view_made_without_grad() const { return view_made_without_grad_; }
  /// Marks this impl as a view of `of` (or of `of`'s base when `of` is itself a view).
  void set_view_of(const TensorImpl& of, bool grad_mode_enabled);
  void clear_view() { view_base_.reset(); }

  TensorSubclass* subclass() const { return subclass_.get(); }
  void set_subclass(intrusive_ptr<TensorSubclass> s);

  const intrusive_ptr<QuantizerBase>& quantizer() const { return quantizer_; }
  void set_quantizer(intrusive_ptr<QuantizerBase> q) { quantizer_ = std::move(q); }

  /// Exchanges everything this impl holds with `other` (storage, geometry, dtype, version counter,
  /// autograd state, view base, subclass, quantizer) except the owning Python object: every
  /// handle to either impl sees the swap (swap_tensors).
  void swap_contents(TensorImpl& other);
  /// Takes `other`'s storage, geometry, dtype and quantizer, keeping its own version counter,
  /// autograd state and subclass (Tensor.data = other; PyTorch's shallow_copy_from).
  void shallow_copy_from(const TensorImpl& other);

  /// The Python object of this impl (front end only; opaque to C++). Normally the Python object
  /// owns the impl and this is a borrowed back-pointer. When the Python object loses its last
  /// Python reference while C++ still holds the impl, ownership flips: the impl owns the object
  /// (`owns_pyobj`), keeping its class and __dict__ alive, and releases it through
  /// `pyobj_release_hook` when the impl dies (Note [Python object preservation] in
  /// python/csrc/tensor_object.cpp).
  void* pyobj() const { return pyobj_; }
  void set_pyobj(void* p) { pyobj_ = p; }
  bool owns_pyobj() const { return owns_pyobj_; }
  void set_owns_pyobj(bool v) { owns_pyobj_ = v; }
  /// Installed by the Python front end; called by ~TensorImpl on an owned Python object.
  /// Default visibility: the module is built with hidden visibility and would otherwise set a
  /// private copy of this inline variable that ~TensorImpl (in libember) never reads.
  [[gnu::visibility("default")]] static inline void (*pyobj_release_hook)(void* pyobj) = nullptr;

 private:
  void refresh_numel_and_contiguity();
  void refresh_keys();

  intrusive_ptr<Storage> storage_;
  DimVector sizes_;
  DimVector strides_;
  int64_t storage_offset_ = 0;
  int64_t numel_ = 1;
  ScalarType dtype_;
  bool is_contiguous_ = true;
  bool wrapped_number_ = false;
  bool view_made_without_grad_ = false;
  KeySet keys_;
  intrusive_ptr<VersionCounter> version_;
  std::unique_ptr<AutogradMetaInterface> autograd_meta_;
  intrusive_ptr<TensorImpl> view_base_;
  intrusive_ptr<TensorSubclass> subclass_;
  intrusive_ptr<QuantizerBase> quantizer_;
  void* pyobj_ = nullptr;
  bool owns_pyobj_ = false;
};

/// Row-major strides for `sizes` (size-1 and size-0 dims get the stride the next would need).
DimVector contiguous_strides(IntArrayRef sizes);
/// Product of sizes, checking for overflow.
int64_t compute_numel(IntArrayRef sizes);
/// Bytes a storage needs for a strided tensor starting at element `offset` (PyTorch's
/// computeStorageNbytes): (offset + 1 + sum((size - 1) * stride)) * itemsize, 0 when a size is 0.
/// Sizes and strides must be non-negative (callers check, with their own messages). A count
/// that does not fit int64 is an error ("Storage size calculation overflowed ..."), or a huge
/// shape or stride would pass a bounds check or get a small allocation.
int64_t storage_nbytes(IntArrayRef sizes, IntArrayRef strides, size_t itemsize, int64_t offset = 0);

}  // namespace ember
