// The quantized engine setting (PyTorch's at::globalContext().qEngine()). Packed weights remember
// the engine they were packed for; element-wise quantized ops read the active one at call time
// (quantization-spec § 1.4, § 7).
#include <algorithm>
#include <atomic>

#include "ember/quantized/tensor.h"

namespace ember {

namespace {
// ember's fast engine is the default, as X86 (FBGEMM) is PyTorch's on x86 builds that have it.
std::atomic<QEngine> g_engine{QEngine::X86};
}  // namespace

const char* qengine_name(QEngine e) {
  switch (e) {
    case QEngine::NoQEngine: return "NoQEngine";
    case QEngine::FBGEMM: return "FBGEMM";
    case QEngine::QNNPACK: return "QNNPACK";
    case QEngine::ONEDNN: return "ONEDNN";
    case QEngine::X86: return "X86";
  }
  EMBER_FAIL("unknown quantized engine ", static_cast<int>(e));
}

QEngine quantized_engine() { return g_engine.load(std::memory_order_relaxed); }

std::vector<QEngine> supported_quantized_engines() {
  // PyTorch's order (Context::supportedQEngines): qnnpack, none, onednn, then x86. FBGEMM itself
  // is not built; X86 is ember's own fast engine.
  return {QEngine::QNNPACK, QEngine::NoQEngine, QEngine::ONEDNN, QEngine::X86};
}

void set_quantized_engine(QEngine e) {
  const auto engines = supported_quantized_engines();
  EMBER_CHECK(std::find(engines.begin(), engines.end(), e) != engines.end(), "quantized engine ",
              qengine_name(e), " is not supported");
  g_engine.store(e, std::memory_order_relaxed);
}

}  // namespace ember
