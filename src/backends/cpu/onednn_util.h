// Pieces shared by ember's oneDNN callers (conv_onednn.cpp, quantized/onednn_int8.cpp): the one
// CPU engine, each thread's stream, a growable aligned buffer, a memory object whose data handle is
// set per call, and the hash of the integer keys their primitive caches use.
#pragma once

#include <oneapi/dnnl/dnnl.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "ember/error.h"

namespace ember::cpu::onednn {

inline dnnl_engine_t engine() {
  static dnnl_engine_t e = [] {
    dnnl_engine_t eng = nullptr;
    EMBER_CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0) == dnnl_success,
                "oneDNN: could not create the CPU engine");
    return eng;
  }();
  return e;
}

/// The calling thread's stream (made on first use, destroyed when the thread ends).
inline dnnl_stream_t thread_stream() {
  struct Holder {
    dnnl_stream_t s = nullptr;
    ~Holder() {
      if (s) dnnl_stream_destroy(s);
    }
  };
  thread_local Holder h;
  if (!h.s) {
    EMBER_CHECK(dnnl_stream_create(&h.s, engine(), dnnl_stream_default_flags) == dnnl_success,
                "oneDNN: could not create a stream");
  }
  return h.s;
}

/// Runs a primitive on the calling thread's stream and waits for it; `what` names the caller
/// in the error.
inline void execute(dnnl_primitive_t p, int nargs, const dnnl_exec_arg_t* args, const char* what) {
  const dnnl_status_t st = dnnl_primitive_execute(p, thread_stream(), nargs, args);
  EMBER_CHECK(st == dnnl_success, what, " failed with oneDNN status ", int(st));
  dnnl_stream_wait(thread_stream());
}

struct AlignedBuffer {
  void* ptr = nullptr;
  size_t size = 0;
  void* get(size_t n) {
    if (n > size) {
      std::free(ptr);
      size = (n + 63) / 64 * 64;
      ptr = std::aligned_alloc(64, size);
      EMBER_CHECK(ptr != nullptr, "oneDNN: out of memory (", n, " bytes)");
    }
    return ptr;
  }
  AlignedBuffer() = default;
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  ~AlignedBuffer() { std::free(ptr); }
};

struct Memory {  // a dnnl_memory_t whose handle is set per call
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

struct KeyHash {
  size_t operator()(const std::vector<int64_t>& k) const {
    size_t h = 1469598103934665603ull;
    for (int64_t v : k) h = (h ^ static_cast<size_t>(v)) * 1099511628211ull;
    return h;
  }
};

}  // namespace ember::cpu::onednn
