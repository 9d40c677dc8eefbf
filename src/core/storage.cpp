#include "ember/storage.h"

#include <utility>

#include "ember/cpu_allocator.h"

namespace ember {

intrusive_ptr<Storage> Storage::allocate(size_t nbytes, Device device) {
  if (device.is_meta()) return intrusive_ptr<Storage>(new Storage(nullptr, nbytes, device, {}));
  if (nbytes == 0) return intrusive_ptr<Storage>(new Storage(nullptr, 0, device, {}));
  // Note [CPU block cache]
  const cpu_allocator::Block block = cpu_allocator::allocate(nbytes);
  return intrusive_ptr<Storage>(new Storage(block.ptr, nbytes, device,
                                            [block](void*) { cpu_allocator::release(block); }));
}

intrusive_ptr<Storage> Storage::wrap(void* data, size_t nbytes, Deleter deleter, Device device) {
  return intrusive_ptr<Storage>(new Storage(data, nbytes, device, std::move(deleter)));
}

void Storage::swap_memory(Storage& other) {
  std::swap(data_, other.data_);
  std::swap(nbytes_, other.nbytes_);
  std::swap(deleter_, other.deleter_);
}

Storage::~Storage() {
  if (deleter_ && data_) deleter_(data_);
}

}  // namespace ember
