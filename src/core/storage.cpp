#include "ember/storage.h"

#include <cstdlib>
#include <new>

#include "ember/error.h"

namespace ember {

namespace {
// 64 bytes: a cache line and an AVX-512 vector, so kernels may use aligned loads on fresh memory.
constexpr size_t kAlignment = 64;
}  // namespace

intrusive_ptr<Storage> Storage::allocate(size_t nbytes, Device device) {
  if (device.is_meta()) return intrusive_ptr<Storage>(new Storage(nullptr, nbytes, device, {}));
  size_t rounded = (nbytes + kAlignment - 1) / kAlignment * kAlignment;
  void* p = rounded ? std::aligned_alloc(kAlignment, rounded) : nullptr;
  EMBER_CHECK(rounded == 0 || p != nullptr, "DefaultCPUAllocator: not enough memory: you tried to allocate ", nbytes, " bytes.");
  return intrusive_ptr<Storage>(new Storage(p, nbytes, device, [](void* q) { std::free(q); }));
}

intrusive_ptr<Storage> Storage::wrap(void* data, size_t nbytes, Deleter deleter, Device device) {
  return intrusive_ptr<Storage>(new Storage(data, nbytes, device, std::move(deleter)));
}

Storage::~Storage() {
  if (deleter_ && data_) deleter_(data_);
}

}  // namespace ember
