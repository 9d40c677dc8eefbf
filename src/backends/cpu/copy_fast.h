// Large contiguous copies at memory bandwidth: byte copies with streaming stores, and
// float32 -> bfloat16 conversion eight lanes at a time. Each has a scalar *_ref that tests
// compare against (tests/cpp/backends/test_copy_fast.cpp).
//
// Note [Streaming copies]
// A plain store to memory that is not in cache first reads the line (read for ownership), so a
// copy of N bytes moves 3N through the memory bus; a streaming (non-temporal) store writes the
// line without reading it: 2N. glibc's memcpy switches to streaming stores only above a
// threshold derived from the L3 size, which on this machine's VM reports the host's 480 MiB: it
// never streams a checkpoint's 16 MiB tensors. Copies at least kStreamMinBytes long (decided on
// the whole copy, not on a thread's chunk) stream here; shorter ones stay in cache, where the
// destination is likely to be read next, and go to memcpy.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ember::cpu {

constexpr size_t kStreamMinBytes = size_t{4} << 20;

/// memcpy with streaming stores (for copies of at least kStreamMinBytes; any size is correct).
void copy_bytes_streaming(void* dst, const void* src, size_t n);
/// The reference: one byte at a time.
void copy_bytes_ref(void* dst, const void* src, size_t n);

/// dst[i] = bfloat16(src[i]) rounded to nearest even, any NaN -> 0x7fc0 (PyTorch's rule).
/// `stream` uses streaming stores (for outputs of at least kStreamMinBytes).
void float_to_bfloat16(uint16_t* dst, const float* src, int64_t n, bool stream);
void float_to_bfloat16_ref(uint16_t* dst, const float* src, int64_t n);

}  // namespace ember::cpu
