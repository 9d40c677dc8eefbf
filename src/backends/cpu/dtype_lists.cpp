#include "dtype_lists.h"

namespace ember::cpu {

void dtype_not_implemented(const char* kernel, ScalarType t) {
  EMBER_FAIL("\"", kernel, "\" not implemented for '", scalar_type_name(t), "'");
}

}  // namespace ember::cpu
