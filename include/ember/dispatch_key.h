// The keys that choose which dispatch layers a call passes through (see Note [Dispatch layers]
// in src/dispatch/dispatcher.cpp). A call's key set is the union of its tensors' keys, plus the
// thread's included keys, minus its excluded keys.
#pragma once

#include <cstdint>

namespace ember {

enum class DispatchKey : uint8_t {
  // Backends (lowest layer). A call runs on exactly one.
  CPU,
  Meta,
  QuantizedCPU,
  // Layer 3: a tensor whose subclass has torch_dispatch, or an active TorchDispatchMode.
  DispatchOverride,
  // Layer 2: a tensor that requires grad (while grad mode is on).
  Autograd,
  // Layer 1: a tensor-like or subclass with torch_function, or an active TorchFunctionMode.
  FunctionOverride,
  NumKeys,
};

class KeySet {
 public:
  constexpr KeySet() = default;
  constexpr KeySet(DispatchKey k) : bits_(uint16_t(1u << unsigned(k))) {}  // NOLINT
  constexpr bool has(DispatchKey k) const { return bits_ & (1u << unsigned(k)); }
  constexpr KeySet operator|(KeySet o) const { return from_bits(bits_ | o.bits_); }
  constexpr KeySet operator&(KeySet o) const { return from_bits(bits_ & o.bits_); }
  constexpr KeySet operator-(KeySet o) const { return from_bits(bits_ & ~o.bits_); }
  constexpr KeySet& operator|=(KeySet o) { bits_ |= o.bits_; return *this; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr bool operator==(const KeySet&) const = default;
  constexpr uint16_t raw() const { return bits_; }
  static constexpr KeySet from_bits(uint16_t b) {
    KeySet k;
    k.bits_ = b;
    return k;
  }

 private:
  uint16_t bits_ = 0;
};

constexpr KeySet kBackendKeys =
    KeySet(DispatchKey::CPU) | DispatchKey::Meta | DispatchKey::QuantizedCPU;
constexpr KeySet kOverrideKeys =
    KeySet(DispatchKey::DispatchOverride) | DispatchKey::Autograd | DispatchKey::FunctionOverride;

}  // namespace ember
