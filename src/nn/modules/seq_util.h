// What the attention, transformer and recurrent layers share: boxed forwards with optional
// trailing arguments (Python's defaults).
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "ember/error.h"
#include "ember/value.h"
#include "module_util.h"

namespace ember::nn::detail {

/// Python's TypeErrors for a forward(required..., n_optional more with defaults).
inline void check_seq_forward_inputs(const std::string& type_name, const std::vector<Value>& in,
                                     std::initializer_list<const char*> required,
                                     size_t n_optional) {
  const size_t most = required.size() + n_optional;
  EMBER_CHECK_TYPE(in.size() <= most, type_name, ".forward() takes from ", required.size() + 1,
                   " to ", most + 1, " positional arguments but ", in.size() + 1, " were given");
  if (in.size() < required.size()) check_forward_inputs(type_name, in, required);
}

/// Argument i as an optional tensor (absent or None -> nullopt).
inline std::optional<Tensor> value_opt_tensor(const std::vector<Value>& in, size_t i) {
  if (i >= in.size() || in[i].is_none()) return std::nullopt;
  return in[i].to_tensor();
}

inline bool value_bool(const std::vector<Value>& in, size_t i, bool dflt) {
  return i < in.size() && !in[i].is_none() ? in[i].to_bool() : dflt;
}

}  // namespace ember::nn::detail
