// A minimal intrusive reference-counted pointer, the ownership behind Storage and TensorImpl.
//
//   struct Node : ember::intrusive_target { int x; };
//   auto p = ember::make_intrusive<Node>();   auto q = p;   // p.use_count() == 2
//
// Intrusive (the count lives in the object) so that a raw TensorImpl* handed to Python or a
// kernel can be turned back into an owning pointer without a side table.
#pragma once

#include <atomic>
#include <cstddef>
#include <utility>

namespace ember {

class intrusive_target {
 public:
  intrusive_target() = default;
  intrusive_target(const intrusive_target&) : refcount_(0) {}
  intrusive_target& operator=(const intrusive_target&) { return *this; }
  virtual ~intrusive_target() = default;

  size_t use_count() const { return refcount_.load(std::memory_order_acquire); }
  void incref() const { refcount_.fetch_add(1, std::memory_order_relaxed); }
  /// Returns true when the last reference went away (the caller deletes).
  bool decref() const { return refcount_.fetch_sub(1, std::memory_order_acq_rel) == 1; }

 private:
  mutable std::atomic<size_t> refcount_{0};
};

template <class T>
class intrusive_ptr {
 public:
  intrusive_ptr() noexcept = default;
  intrusive_ptr(std::nullptr_t) noexcept {}  // NOLINT
  /// Adopts `p`, adding a reference (the count is intrusive, so this is always safe).
  explicit intrusive_ptr(T* p) noexcept : p_(p) {
    if (p_) p_->incref();
  }
  intrusive_ptr(const intrusive_ptr& o) noexcept : p_(o.p_) {
    if (p_) p_->incref();
  }
  intrusive_ptr(intrusive_ptr&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  template <class U>
  intrusive_ptr(intrusive_ptr<U> o) noexcept : p_(o.release()) {}  // NOLINT: upcast
  ~intrusive_ptr() { reset(); }

  intrusive_ptr& operator=(intrusive_ptr o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  void reset() noexcept {
    if (p_ && p_->decref()) delete p_;
    p_ = nullptr;
  }
  /// Gives up ownership without decrementing.
  T* release() noexcept { return std::exchange(p_, nullptr); }

  T* get() const noexcept { return p_; }
  T* operator->() const noexcept { return p_; }
  T& operator*() const noexcept { return *p_; }
  explicit operator bool() const noexcept { return p_ != nullptr; }
  size_t use_count() const noexcept { return p_ ? p_->use_count() : 0; }
  bool operator==(const intrusive_ptr& o) const noexcept { return p_ == o.p_; }
  void swap(intrusive_ptr& o) noexcept { std::swap(p_, o.p_); }

 private:
  T* p_ = nullptr;
};

template <class T, class... Args>
intrusive_ptr<T> make_intrusive(Args&&... args) {
  return intrusive_ptr<T>(new T(std::forward<Args>(args)...));
}

}  // namespace ember
