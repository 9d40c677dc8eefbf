// out= arguments (include/ember/ops/out.h): what PyTorch's structured kernels do with a given
// output, applied to a result computed by the functional op.
#include "ember/ops/out.h"

#include <sstream>

#include "ember/ops/copy.h"
#include "ember/ops/pointwise.h"
#include "ember/storage.h"
#include "ember/tensor_impl.h"
#include "ember/warning.h"

namespace ember {

namespace {
std::string shape_str(IntArrayRef s) {
  std::ostringstream os;
  os << s;
  return os.str();
}
}  // namespace

bool resize_output(const Tensor& out, IntArrayRef shape) {
  if (out.sizes().equals(shape)) return false;
  if (out.numel() != 0) {
    warn("An output with one or more elements was resized since it had shape " +
         shape_str(out.sizes()) + ", which does not match the required output shape " +
         shape_str(shape) +
         ". This behavior is deprecated, and in a future PyTorch release outputs will not be "
         "resized unless they have zero elements. You can explicitly reuse an out tensor t by "
         "resizing it, inplace, to zero elements with t.resize_(0).");
  }
  int64_t numel = 1;
  for (int64_t s : shape) numel *= s;
  TensorImpl* impl = out.impl();
  const size_t need = static_cast<size_t>(numel) * impl->itemsize();
  if (impl->storage_offset() != 0 || impl->storage()->nbytes() < need)
    impl->set_storage(Storage::allocate(need, out.device()));
  impl->set_geometry(shape, contiguous_strides(shape), 0);
  return true;
}

void write_out(const Tensor& result, const Tensor& out) {
  EMBER_CHECK(can_cast(result.dtype(), out.dtype()), "result type ",
              scalar_type_name(result.dtype()), " can't be cast to the desired output type ",
              scalar_type_name(out.dtype()));
  EMBER_CHECK(result.device() == out.device(), "Expected out tensor to be on device ",
              result.device().str(), ", but got ", out.device().str(), " instead");
  resize_output(out, result.sizes());
  Tensor o = out;
  o.copy_(result);
}

}  // namespace ember
