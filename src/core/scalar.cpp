#include "ember/scalar.h"

#include <cmath>
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
    case Kind::Complex: {  // Python's form: (1+2j)
      std::ostringstream os;
      os.precision(17);
      os << "(" << d_ << (im_ < 0 || (im_ == 0 && std::signbit(im_)) ? "" : "+") << im_ << "j)";
      return os.str();
    }
  }
  return {};
}

}  // namespace ember
