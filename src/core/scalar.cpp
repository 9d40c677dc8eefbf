#include "ember/scalar.h"

#include <sstream>

namespace ember {

std::string Scalar::str() const {
  switch (kind_) {
    case Kind::Bool: return i_ ? "True" : "False";
    case Kind::Int: return std::to_string(i_);
    case Kind::Float: {
      std::ostringstream os;
      os.precision(17);
      os << d_;
      return os.str();
    }
  }
  return {};
}

}  // namespace ember
