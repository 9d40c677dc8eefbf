// Pieces of the safetensors reader and writer shared by its two files (and the fuzz target).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ember/safetensors.h"

namespace ember::safetensors::internal {

/// Width of a safetensors dtype in bits (0 for an unknown name).
int dtype_bits(const std::string& name);
/// The byte size of an entry (shape x width), with the crate's overflow and sub-byte errors.
uint64_t info_nbytes(const TensorInfo& info);
/// The JSON header for entries already laid out (offsets set), padded with spaces to 8 bytes.
std::string header_bytes(const std::vector<std::pair<std::string, TensorInfo>>& entries,
                         const std::optional<Metadata>& metadata);
/// Indices of `entries` in the crate's order on disk: descending dtype alignment, then name.
std::vector<size_t> save_order(const std::vector<std::pair<std::string, TensorInfo>>& entries);

}  // namespace ember::safetensors::internal
