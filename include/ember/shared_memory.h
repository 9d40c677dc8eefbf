// Storages in shared memory: bytes another process maps without a copy (DataLoader workers,
// ember.multiprocessing), as PyTorch's file_descriptor sharing strategy.
//
//   auto s = ember::shared_memory::allocate(1024);        // an anonymous memfd, mapped shared
//   int fd = ember::shared_memory::fd_of(*s);             // send a dup of this fd (SCM_RIGHTS) ...
//   auto r = ember::shared_memory::map_fd(received, 1024); // ... and map it in the other process
//   ember::Tensor t = ember::randn({3});
//   ember::shared_memory::share_(t);                       // t's storage moves into shared memory
//
// Note [Shared memory segments]
// A segment is a memfd (memfd_create): it has no name, so nothing can be left behind in
// /dev/shm; the kernel frees it when the last fd and the last mapping are gone. Where memfd is
// refused, a POSIX shm object is created and unlinked at once, which has the same lifetime.
// Every shared Storage keeps its fd open (its deleter unmaps and closes it), so it can be sent on
// again; a process that receives one owns the fd it was given.
#pragma once

#include <cstddef>

#include "ember/intrusive_ptr.h"
#include "ember/storage.h"
#include "ember/tensor.h"

namespace ember::shared_memory {

/// A new shared CPU storage of nbytes (zero-filled, as fresh pages are).
intrusive_ptr<Storage> allocate(size_t nbytes);
/// Maps a segment received from another process; takes ownership of `fd` (closed with the
/// storage, or at once if mapping fails). nbytes must not exceed the segment's size.
intrusive_ptr<Storage> map_fd(int fd, size_t nbytes);
/// Whether `storage` lives in a shared-memory segment made by allocate() or map_fd().
bool is_shared(const Storage& storage);
/// The segment's fd (owned by the storage: dup it to send it), or -1 when not shared.
int fd_of(const Storage& storage);
/// Moves t's storage into a new segment (copying its bytes) unless it is shared already; every
/// tensor over that storage (views included) sees the move. Meta tensors have nothing to share:
/// an error, as PyTorch's.
void share_(const Tensor& t);
/// A contiguous tensor over a new segment (uninitialised as far as callers may assume).
Tensor empty_shared(IntArrayRef sizes, ScalarType dtype);

}  // namespace ember::shared_memory
