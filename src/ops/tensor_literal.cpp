// ember::tensor: nested lists → tensor, following torch.tensor's rules for shape (from the first
// element at each depth), dtype inference, raggedness errors and overflow checks.
#include "../backends/cpu/convert.h"
#include "ember/ops/factory.h"
#include "scalar_convert.h"

namespace ember {

namespace {

// The shape, read down the first element of each list (as torch.tensor does); the walk in
// LiteralWriter then checks every other list against it.
DimVector infer_shape(const TensorData& data) {
  DimVector shape;
  for (const TensorData* d = &data; !d->is_scalar(); d = &d->list()[0]) {
    shape.push_back(static_cast<int64_t>(d->list().size()));
    if (d->list().empty()) break;
  }
  return shape;
}

// bool if every number is a bool, int64 if none is a float, else the default float dtype; an
// empty literal is float, as torch.tensor([]).
struct KindScan {
  bool any_float = false, any_int = false, any_number = false;
  void scan(const TensorData& d) {
    if (d.is_scalar()) {
      any_number = true;
      any_float |= d.scalar().is_floating();
      any_int |= d.scalar().is_integral();
      return;
    }
    for (const auto& e : d.list()) scan(e);
  }
  ScalarType dtype() const {
    if (any_float || !any_number) return default_dtype();
    return any_int ? kInt64 : kBool;
  }
};

template <class T>
struct LiteralWriter {
  const DimVector& shape;
  T* out;
  int64_t pos = 0;

  void write(const TensorData& d, size_t dim) {
    if (dim == shape.size()) {
      EMBER_CHECK_TYPE(d.is_scalar(), "expected a number at dim ", dim, " (got a sequence of length ",
                       d.list().size(), ")");
      // Python's rules: integers must fit integer dtypes (negative ones wrap into uint8), floats
      // go to floating dtypes unchecked (1e300 becomes inf in float32).
      out[pos++] = ops::checked_to<T>(d.scalar(), dtype_name(dtype_of_v<T>), /*check_floating=*/false);
      return;
    }
    EMBER_CHECK_TYPE(!d.is_scalar(), "expected sequence of length ", shape[dim], " at dim ", dim,
                     " (got a number)");
    const auto n = static_cast<int64_t>(d.list().size());
    EMBER_CHECK_VALUE(n == shape[dim], "expected sequence of length ", shape[dim], " at dim ", dim,
                      " (got ", n, ")");
    for (const auto& e : d.list()) write(e, dim + 1);
  }
};

}  // namespace

Tensor tensor(const TensorData& data, TensorOptions options) {
  const DimVector shape = infer_shape(data);
  KindScan kinds;
  kinds.scan(data);
  const ScalarType dt = options.dtype_ ? *options.dtype_ : kinds.dtype();
  // Built on the CPU (every value is checked there), then moved where `options` asks.
  Tensor out = empty(shape, TensorOptions(dt).device(kCPU));
  visit_dtype(dt, [&]<class T>() {
    LiteralWriter<T> w{shape, static_cast<T*>(out.data_ptr())};
    w.write(data, 0);
  }, "tensor");
  const Device device = options.device_or_default();
  return detail::apply_requires_grad(device == out.device() ? out : out.to(device), options);
}

}  // namespace ember
