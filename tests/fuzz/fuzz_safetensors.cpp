// libFuzzer target: the safetensors header parser and loader (src/serialization/safetensors_*).
// Any input must end in a SafetensorError or in tensors that lie inside the input.
#include <cstdint>
#include <cstring>

#include "ember/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace st = ember::safetensors;
  try {
    st::Header h = st::parse_header(data, size);
    // Everything parse_header accepted lies inside the input: read it all.
    uint8_t sink = 0;
    for (const auto& [name, info] : h.tensors) {
      const uint8_t* p = data + 8 + h.header_len + info.begin;
      for (uint64_t i = 0; i < info.end - info.begin; ++i) sink ^= p[i];
    }
    auto tensors = st::load(data, size);
    for (auto& [name, t] : tensors) {
      if (t.numel() > 0) {
        const auto* p = static_cast<const uint8_t*>(t.data_ptr());
        for (size_t i = 0; i < t.nbytes(); ++i) sink ^= p[i];
      }
    }
    // What was read writes back to the same bytes.
    st::TensorList list(tensors.begin(), tensors.end());
    std::string again = st::serialize(list, h.metadata);
    (void)again;
    asm volatile("" : : "r"(sink));  // keep the reads
  } catch (const ember::Error&) {
  }
  return 0;
}
