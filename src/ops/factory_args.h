// The optional arguments every factory schema carries (dtype, layout, device, pin_memory,
// memory_format), as the schema-shaped frontends take them. Layouts and memory formats box as
// small ints (src/dispatch/schema.cpp).
#pragma once

#include <optional>

#include "ember/device.h"
#include "ember/dtype.h"

namespace ember::ops {

using OptDtype = std::optional<ScalarType>;
using OptLayout = std::optional<int64_t>;
using OptDevice = std::optional<Device>;
using OptBool = std::optional<bool>;
using OptFormat = std::optional<int64_t>;

}  // namespace ember::ops
