// Refcounted bytes on a device. Views of a tensor share one Storage.
//
//   auto s = ember::Storage::allocate(64, ember::kCPU);               // owned, 64-byte aligned
//   auto w = ember::Storage::wrap(ptr, n, [](void* p) { free(p); });  // adopt foreign memory
//   auto v = ember::Storage::wrap(ptr, n, nullptr);                   // borrow: frees nothing
#pragma once

#include <cstddef>
#include <functional>

#include "ember/device.h"
#include "ember/intrusive_ptr.h"

namespace ember {

class Storage : public intrusive_target {
 public:
  using Deleter = std::function<void(void*)>;

  /// Fresh memory (uninitialised) on `device`; meta storage records the size and holds no data.
  static intrusive_ptr<Storage> allocate(size_t nbytes, Device device);
  /// Memory ember does not own; `deleter` (may be empty) runs when the last reference goes.
  static intrusive_ptr<Storage> wrap(void* data, size_t nbytes, Deleter deleter,
                                     Device device = kCPU);

  ~Storage() override;
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  /// Whether this storage wraps memory it will not free itself (e.g. from_blob without deleter).
  bool is_borrowed() const { return !deleter_; }
  /// Exchanges the memory (pointer, size, deleter) of two storages on one device. Every tensor
  /// over this storage sees the other's bytes from then on: share_memory_ moves a tensor's
  /// storage, views and all, into shared memory this way (Note [Shared memory segments]).
  void swap_memory(Storage& other);

 private:
  Storage(void* data, size_t nbytes, Device device, Deleter deleter)
      : data_(data), nbytes_(nbytes), device_(device), deleter_(std::move(deleter)) {}
  void* data_;
  size_t nbytes_;
  Device device_;
  Deleter deleter_;
};

}  // namespace ember
