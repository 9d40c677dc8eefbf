// Printing, exactly as PyTorch's Python repr with "ember." where PyTorch writes "torch.".
//
//   std::cout << ember::arange(3);            // tensor([0, 1, 2])
//   ember::to_string(ember::ones({2}, ember::kBFloat16));   // tensor([1., 1.], dtype=ember.bfloat16)
//   ember::set_printoptions(/*precision=*/2);                // torch.set_printoptions(precision=2)
//   ember::to_string(t, "TaggedTensor", "[...]");            // TaggedTensor([...]) (a subclass)
#pragma once

#include <optional>
#include <string>

#include "ember/tensor.h"

namespace ember {

std::string to_string(const Tensor& t);

/// A double as Python's repr prints it ("0.0", "1e-06", "1.607766443214675", "nan", "-inf"):
/// the shortest digits that round-trip, laid out by Python's rule.
std::string py_float_repr(double v);

/// PyTorch's _str_intern for an object of class `class_name` ("" for Tensor and Parameter: the
/// prefix is "tensor("; any other name is the prefix, and a parameter of such a class prints as
/// "Parameter(Name(...))"). `contents`, when given, replaces the printed elements (PyTorch's
/// `tensor_contents=`, for wrapper subclasses): the tensor's data is then not read.
std::string to_string(const Tensor& t, const std::string& class_name,
                      const std::optional<std::string>& contents = std::nullopt);

/// torch.set_printoptions: precision (4), threshold (1000; infinity never summarises),
/// edgeitems (3), linewidth (80), sci_mode (nullopt = automatic).
struct PrintOptions {
  int precision = 4;
  double threshold = 1000;
  int64_t edgeitems = 3;
  int64_t linewidth = 80;
  std::optional<bool> sci_mode;
};
PrintOptions& print_options();

/// torch.set_printoptions(precision, threshold, edgeitems, linewidth, profile, sci_mode): the
/// profile ("default", "short" or "full"; others are ignored, as in PyTorch) sets the first four,
/// then each given option overrides it; sci_mode is always set (nullopt: automatic again).
void set_printoptions(std::optional<int> precision = std::nullopt,
                      std::optional<double> threshold = std::nullopt,
                      std::optional<int64_t> edgeitems = std::nullopt,
                      std::optional<int64_t> linewidth = std::nullopt,
                      const std::optional<std::string>& profile = std::nullopt,
                      std::optional<bool> sci_mode = std::nullopt);

}  // namespace ember
