// Memory formats: how a 4-d (N, C, H, W) tensor's elements are laid out in memory. Sizes stay
// logical NCHW; channels_last only changes strides (NHWC order in memory), as in PyTorch.
//
//   auto x = ember::randn({8, 3, 32, 32}).contiguous(ember::MemoryFormat::ChannelsLast);
//   x.strides();                                        // [3072, 1, 96, 3]
//   x.is_contiguous(ember::MemoryFormat::ChannelsLast);  // true
//   x.suggest_memory_format();                          // MemoryFormat::ChannelsLast
//
// The schemas' `MemoryFormat?` arguments box as these ints (src/dispatch/schema.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>

#include "ember/array_ref.h"

namespace ember {

enum class MemoryFormat : int8_t { Contiguous = 0, Preserve = 1, ChannelsLast = 2, ChannelsLast3d = 3 };

/// "torch.contiguous_format" etc. as PyTorch prints them, with "ember." for "torch.".
const char* memory_format_name(MemoryFormat f);
std::ostream& operator<<(std::ostream& os, MemoryFormat f);

/// The boxed form (0/1/2/3) back to the enum; other values are an error.
MemoryFormat memory_format_from_int(int64_t v);
inline int64_t memory_format_to_int(MemoryFormat f) { return static_cast<int64_t>(f); }

/// Strides of a dense tensor of `sizes` laid out in `format` (Contiguous or ChannelsLast; the
/// latter needs 4 dims: "required rank 4 tensor to use channels_last format").
DimVector strides_for_memory_format(IntArrayRef sizes, MemoryFormat format);
/// NHWC strides for NCHW sizes (4 dims).
DimVector channels_last_strides(IntArrayRef sizes);

/// Exactly channels_last-contiguous (PyTorch's is_contiguous(memory_format=channels_last)):
/// 4 dims, strides of NHWC order ignoring size-1 dims.
bool is_channels_last_contiguous(IntArrayRef sizes, IntArrayRef strides);
/// Strides that look channels_last (PyTorch's is_channels_last_strides_2d, what
/// suggest_memory_format uses): a permutation NHWC of some dense-or-strided layout; ambiguous
/// layouts (N111, N1H1...) default to contiguous as in PyTorch.
bool is_channels_last_strides(IntArrayRef sizes, IntArrayRef strides);

}  // namespace ember
