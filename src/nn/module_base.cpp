// The TypeErrors of ModuleBase's boxed forward (Note [Typed forwards] in ember/nn/module_base.h).
#include "ember/nn/module_base.h"

namespace ember::nn::detail {

std::string forward_signature(const std::vector<std::string>& params, const std::string& result) {
  std::string s = "forward(";
  for (size_t i = 0; i < params.size(); ++i) s += (i ? ", " : "") + params[i];
  return s + ") -> " + result;
}

// Python's wording (its counts include self), then the C++ signature.
void forward_arity_error(const std::string& module, const std::string& signature, size_t got,
                         size_t min, size_t max) {
  const std::string sig = " (signature: " + signature + ")";
  if (got < min) {
    const size_t missing = min - got;
    EMBER_FAIL_KIND(ErrorKind::Type, module, ".forward() missing ", missing, " required positional ",
                    missing == 1 ? "argument" : "arguments", sig);
  }
  if (min == max) {
    EMBER_FAIL_KIND(ErrorKind::Type, module, ".forward() takes ", max + 1, " positional ",
                    max == 0 ? "argument" : "arguments", " but ", got + 1,
                    got == 0 ? " was" : " were", " given", sig);
  }
  EMBER_FAIL_KIND(ErrorKind::Type, module, ".forward() takes from ", min + 1, " to ", max + 1,
                  " positional arguments but ", got + 1, " were given", sig);
}

void forward_type_error(const std::string& module, const std::string& signature, size_t index,
                        const std::string& expected, const char* got) {
  EMBER_FAIL_KIND(ErrorKind::Type, module, ".forward(): argument ", index + 1, " must be ", expected,
                  ", not ", got, " (signature: ", signature, ")");
}

void forward_result_error(const std::string& module, const std::string& signature, const char* got) {
  EMBER_FAIL_KIND(ErrorKind::Type, module, ": expected forward's result (signature: ", signature,
                  "), got ", got, " (a forward hook returned another type?)");
}

}  // namespace ember::nn::detail
