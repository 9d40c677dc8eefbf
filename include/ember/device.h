// Devices: `cpu` holds data; `meta` holds only shapes (every op runs on it, touching no data).
//
//   ember::Device d("meta");               // or ember::kMeta
//   { ember::DeviceGuard g(ember::kMeta);  // factories now make meta tensors,
//     auto t = ember::zeros({5, 3}); }     // like `with torch.device("meta"):`
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

namespace ember {

enum class DeviceType : int8_t { CPU, Meta };

struct Device {
  DeviceType type = DeviceType::CPU;

  constexpr Device() = default;
  constexpr Device(DeviceType t) : type(t) {}  // NOLINT: implicit, as c10::Device
  /// "cpu", "cpu:0", "meta". Anything else is an error naming what was given.
  Device(const std::string& spec);  // NOLINT
  Device(const char* spec) : Device(std::string(spec)) {}  // NOLINT

  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_meta() const { return type == DeviceType::Meta; }
  std::string str() const { return is_cpu() ? "cpu" : "meta"; }
  bool operator==(const Device& o) const = default;
};

constexpr Device kCPU{DeviceType::CPU};
constexpr Device kMeta{DeviceType::Meta};

inline std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

/// The device factories use when none is given: cpu unless a DeviceGuard says otherwise.
Device default_device();

/// Scoped default device for factories (thread-local), restoring the previous one on exit.
class DeviceGuard {
 public:
  explicit DeviceGuard(Device d);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  std::optional<Device> prev_;
};

namespace detail {
/// Raw access for the Python front end's `with ember.device(...)` (which nests like a stack).
std::optional<Device> exchange_default_device(std::optional<Device> d);
}  // namespace detail

}  // namespace ember
