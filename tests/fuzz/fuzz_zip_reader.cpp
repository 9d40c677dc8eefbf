// libFuzzer target: ember.load's zip reader (src/serialization/zip_reader.cpp), and whatever a
// zip that passes it reaches (data.pkl, the unpickler, storage records): ember::load_bytes.
#include <cstdint>
#include <string>

#include "ember/serialization.h"
#include "serialization/zip.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ember::serialization;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    detail::ZipReader reader(detail::ByteSource::from_buffer(bytes));
    for (const auto& e : reader.entries()) {
      if (e.size <= (1u << 20)) (void)reader.read(e);  // inflate + CRC, bounded
    }
  } catch (const ember::Error&) {
  }
  try {
    (void)load_bytes(bytes);
  } catch (const ember::Error&) {
  }
  return 0;
}
