// Which exceptions gradcheck's undefined-gradient check treats as a RuntimeError.
//
// PyTorch's check turns a RuntimeError raised by a backward that cannot handle undefined output
// gradients into a GradcheckError, and lets any other exception through. An ember::Error carries
// its kind; an exception of a binding (a Python exception raised in a Python backward travels
// through C++ as pybind11's error_already_set) needs the binding to say: it registers a predicate.
#pragma once

#include <exception>
#include <functional>

namespace ember::autograd {

void set_gradcheck_runtime_error_predicate(
    std::function<bool(const std::exception&)> is_runtime_error);

}  // namespace ember::autograd
