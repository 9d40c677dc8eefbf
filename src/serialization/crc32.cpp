// CRC-32 of zip records (the gzip polynomial, reflected, as zlib's crc32 computes it).
//
// Note [CRC-32 through ISA-L]
// Every byte a checkpoint save writes, and every byte a checked load reads, goes through a
// CRC-32, so its speed bounds both. Measured on the 2-core VM of this project (one thread, 1 MiB
// buffers in cache / 512 MiB from memory):
//   zlib 1.2.13 crc32 (Debian 12)           2.5-2.8 GB/s / 1.0-1.6 GB/s
//   libdeflate 1.14 libdeflate_crc32        14-16 GB/s   / 4.0 GB/s
//   ISA-L 2.30 crc32_gzip_refl              56 GB/s      / 5.2-5.5 GB/s (memory bound)
// ISA-L (Debian's libisal-dev, BSD) picks its PCLMULQDQ / VPCLMULQDQ folding kernel at run time
// and falls back to a table on CPUs without them, so it is the fast path here; zlib's crc32, the
// reference every zip reader agrees with, stays as crc32_ref and the tests hold the two equal on
// every length and alignment. A 512 MiB save thus spends ~0.1 s on CRCs (bounded by memory, and
// fused with the copy into the write buffers: Note [Saving at disk speed]) instead of ~0.4 s.
#include <isa-l/crc.h>
#include <zlib.h>

#include <algorithm>

#include "serialization/zip.h"

namespace ember::serialization::detail {

uint32_t crc32_of(const void* data, size_t n, uint32_t crc) {
  if (n == 0) return crc;
  return crc32_gzip_refl(crc, static_cast<const unsigned char*>(data), n);
}

uint32_t crc32_ref(const void* data, size_t n, uint32_t crc) {
  const auto* p = static_cast<const Bytef*>(data);
  while (n > 0) {  // zlib takes uInt lengths
    const uInt step = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
    crc = static_cast<uint32_t>(::crc32(crc, p, step));
    p += step;
    n -= step;
  }
  return crc;
}

}  // namespace ember::serialization::detail
