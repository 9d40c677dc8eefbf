// libFuzzer target: ember's unpickler (src/serialization/unpickler.cpp) and the tensors it
// rebuilds. The input is data.pkl of a checkpoint whose zip the harness writes around it, with
// storage records "0".."3" of 64 bytes each, so every input reaches the unpickler through the
// real loader (persistent ids, storage checks, rebuild functions).
#include <cstdint>
#include <sstream>
#include <string>

#include "ember/serialization.h"
#include "serialization/zip.h"

namespace {

class StringSink : public ember::serialization::detail::ByteSink {
 public:
  void write(const void* p, size_t n) override { out.append(static_cast<const char*>(p), n); }
  std::string out;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ember::serialization;
  StringSink sink;
  {
    detail::ZipWriter w(sink);
    w.write_record("archive/data.pkl", data, size);
    static const std::string storage(64, '\x01');
    for (const char* key : {"0", "1", "2", "3"})
      w.write_record(std::string("archive/data/") + key, storage.data(), storage.size());
    w.write_record("archive/version", "3\n", 2);
    w.finish();
  }
  try {
    NodePtr obj = load_bytes(std::move(sink.out));
    (void)obj;
  } catch (const ember::Error&) {
  }
  return 0;
}
