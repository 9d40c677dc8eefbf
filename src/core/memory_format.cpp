// Memory formats (include/ember/memory_format.h): the stride rules of PyTorch's c10
// (MemoryFormat.h, TensorImpl's compute_channels_last_contiguous_2d and
// is_channels_last_strides_2d_s4), which decide what channels_last means for a given layout.
#include "ember/memory_format.h"

#include "ember/error.h"
#include "ember/tensor_impl.h"

namespace ember {

const char* memory_format_name(MemoryFormat f) {
  switch (f) {
    case MemoryFormat::Contiguous: return "ember.contiguous_format";
    case MemoryFormat::Preserve: return "ember.preserve_format";
    case MemoryFormat::ChannelsLast: return "ember.channels_last";
    case MemoryFormat::ChannelsLast3d: return "ember.channels_last_3d";
  }
  return "ember.unknown_memory_format";
}

std::ostream& operator<<(std::ostream& os, MemoryFormat f) { return os << memory_format_name(f); }

MemoryFormat memory_format_from_int(int64_t v) {
  EMBER_CHECK(v >= 0 && v <= 3, "unknown memory format ", v,
              " (expected 0 contiguous_format, 1 preserve_format, 2 channels_last or 3 "
              "channels_last_3d)");
  return static_cast<MemoryFormat>(v);
}

DimVector channels_last_strides(IntArrayRef sizes) {
  EMBER_CHECK(sizes.size() == 4, "required rank 4 tensor to use channels_last format");
  DimVector s(4, 1);
  // C innermost, then W, H, N. Unlike contiguous strides, a size-0 dim zeroes the strides
  // outside it, as c10's get_channels_last_strides_2d.
  s[1] = 1;
  s[3] = sizes[1];
  s[2] = s[3] * sizes[3];
  s[0] = s[2] * sizes[2];
  return s;
}

static DimVector channels_last_3d_strides(IntArrayRef sizes) {
  EMBER_CHECK(sizes.size() == 5, "required rank 5 tensor to use channels_last_3d format");
  DimVector s(5, 1);
  s[1] = 1;
  s[4] = sizes[1];
  s[3] = s[4] * sizes[4];
  s[2] = s[3] * sizes[3];
  s[0] = s[2] * sizes[2];
  return s;
}

DimVector strides_for_memory_format(IntArrayRef sizes, MemoryFormat format) {
  switch (format) {
    case MemoryFormat::Contiguous: return contiguous_strides(sizes);
    case MemoryFormat::ChannelsLast: return channels_last_strides(sizes);
    case MemoryFormat::ChannelsLast3d: return channels_last_3d_strides(sizes);
    case MemoryFormat::Preserve: break;
  }
  EMBER_FAIL("unsupported memory format Preserve");
}

bool is_channels_last_contiguous(IntArrayRef sizes, IntArrayRef strides) {
  if (sizes.size() != 4) return false;
  int64_t expected = 1;
  for (int d : {1, 3, 2, 0}) {
    if (sizes[d] != 1) {
      if (strides[d] != expected) return false;
      expected *= sizes[d];
    }
  }
  return true;
}

bool is_channels_last_strides(IntArrayRef sizes, IntArrayRef strides) {
  if (sizes.size() != 4) return false;  // c10 leaves 3-d undecided (contiguous)
  int64_t min = 0;
  if (strides[1] == 0) return false;  // a trivial C dim: NCHW by default
  for (int d : {1, 3, 2, 0}) {
    if (sizes[d] == 0) return false;
    if (strides[d] < min) return false;
    // N111 with equal strides, or N11W sliced on W: ambiguous, NCHW by default.
    if (d == 0 && min == strides[1]) return false;
    // Distinguishes N1H1 and permutations of 1C1W from channels_last.
    min = strides[d];
    if (sizes[d] > 1) min *= sizes[d];
  }
  return true;
}

}  // namespace ember
