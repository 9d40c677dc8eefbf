// Shared-memory storages (Note [Shared memory segments] in ember/shared_memory.h).
//
// A Storage does not know how its memory was made, so the segments live in a registry keyed by
// the mapping's address: is_shared() and fd_of() look the storage's pointer up there, and the
// storage's deleter removes the entry, unmaps and closes. swap_memory() moves the deleter with
// the pointer, so the registry stays right when share_() swaps a segment into an old storage.
#include "ember/shared_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "ember/error.h"
#include "ember/tensor_impl.h"

namespace ember::shared_memory {

namespace {

std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}
std::unordered_map<const void*, int>& registry() {
  static auto* r = new std::unordered_map<const void*, int>();  // outlives static destructors
  return *r;
}

std::string errno_text() { return std::strerror(errno); }

// A new anonymous segment of `len` bytes; returns its fd.
int create_segment(size_t len) {
  int fd = memfd_create("ember_shm", MFD_CLOEXEC);
  if (fd < 0) {
    // memfd refused (old kernel, seccomp): a POSIX shm object, unlinked before anyone could
    // open it by name, lives exactly as long as its fds and mappings.
    static std::atomic<uint64_t> counter{0};
    const std::string name = "/ember_" + std::to_string(getpid()) + "_" + std::to_string(counter++);
    fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    EMBER_CHECK(fd >= 0, "unable to create a shared memory segment: ", errno_text());
    shm_unlink(name.c_str());
  }
  if (ftruncate(fd, static_cast<off_t>(len)) != 0) {
    const std::string err = errno_text();
    close(fd);
    EMBER_FAIL("unable to resize a shared memory segment to ", len, " bytes: ", err);
  }
  return fd;
}

// Maps `fd` and wraps the mapping in a Storage that owns both; closes fd on failure.
intrusive_ptr<Storage> wrap_segment(int fd, size_t nbytes) {
  // A zero-byte storage still gets a one-byte segment: mmap refuses a length of 0, and the
  // storage must stay shareable like any other.
  const size_t len = nbytes == 0 ? 1 : nbytes;
  void* ptr = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (ptr == MAP_FAILED) {
    const std::string err = errno_text();
    close(fd);
    EMBER_FAIL("unable to map a shared memory segment of ", len, " bytes: ", err);
  }
  {
    std::lock_guard<std::mutex> lock(registry_mutex());
    registry()[ptr] = fd;
  }
  return Storage::wrap(ptr, nbytes, [len, fd](void* p) {
    {
      std::lock_guard<std::mutex> lock(registry_mutex());
      registry().erase(p);
    }
    munmap(p, len);
    close(fd);
  });
}

}  // namespace

intrusive_ptr<Storage> allocate(size_t nbytes) {
  const int fd = create_segment(nbytes == 0 ? 1 : nbytes);
  return wrap_segment(fd, nbytes);
}

intrusive_ptr<Storage> map_fd(int fd, size_t nbytes) {
  EMBER_CHECK(fd >= 0, "map_fd: expected a file descriptor, got ", fd);
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    const std::string err = errno_text();
    close(fd);
    EMBER_FAIL("unable to inspect a shared memory segment: ", err);
  }
  if (static_cast<size_t>(st.st_size) < (nbytes == 0 ? 1 : nbytes)) {
    close(fd);
    EMBER_FAIL("shared memory segment holds ", st.st_size, " bytes, expected at least ", nbytes);
  }
  return wrap_segment(fd, nbytes);
}

int fd_of(const Storage& storage) {
  if (!storage.data()) return -1;
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto it = registry().find(storage.data());
  return it == registry().end() ? -1 : it->second;
}

bool is_shared(const Storage& storage) { return fd_of(storage) >= 0; }

void share_(const Tensor& t) {
  EMBER_CHECK(t.defined(), "share_memory_: expected a defined tensor");
  EMBER_CHECK(!t.is_meta(), "_share_fd_: only available on CPU");
  Storage& storage = *t.impl()->storage();
  if (is_shared(storage)) return;
  intrusive_ptr<Storage> fresh = allocate(storage.nbytes());
  if (storage.nbytes() > 0) std::memcpy(fresh->data(), storage.data(), storage.nbytes());
  // The old memory (and its deleter) goes to `fresh`, freed when it goes out of scope here.
  storage.swap_memory(*fresh);
}

Tensor empty_shared(IntArrayRef sizes, ScalarType dtype) {
  int64_t numel = 1;
  for (int64_t s : sizes) {
    EMBER_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", sizes);
    numel *= s;
  }
  std::vector<int64_t> strides(sizes.size());
  int64_t stride = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= std::max<int64_t>(sizes[i], 1);
  }
  auto storage = allocate(static_cast<size_t>(numel) * element_size(dtype));
  return Tensor(make_intrusive<TensorImpl>(std::move(storage), dtype, sizes, strides, 0));
}

}  // namespace ember::shared_memory
