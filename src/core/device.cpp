#include "ember/device.h"

#include "ember/error.h"

namespace ember {

Device::Device(const std::string& spec) {
  if (spec == "cpu" || spec == "cpu:0") {
    type = DeviceType::CPU;
  } else if (spec == "meta" || spec == "meta:0") {
    type = DeviceType::Meta;
  } else {
    EMBER_FAIL("Expected one of cpu, meta device type at start of device string: ", spec);
  }
}

namespace {
thread_local std::optional<Device> t_default_device;
}

Device default_device() { return t_default_device.value_or(kCPU); }

namespace detail {
std::optional<Device> exchange_default_device(std::optional<Device> d) {
  auto prev = t_default_device;
  t_default_device = d;
  return prev;
}
}  // namespace detail

DeviceGuard::DeviceGuard(Device d) : prev_(detail::exchange_default_device(d)) {}
DeviceGuard::~DeviceGuard() { detail::exchange_default_device(prev_); }

}  // namespace ember
