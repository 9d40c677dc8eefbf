// var / std (with a correction) and vector norms; the rest of the reductions are in reduce.cpp.
#include <cmath>

#include "../backends/cpu/reduce_kernels.h"
#include "../dispatch/boxing.h"
#include "ember/ops/reduce.h"
#include "elementwise.h"
#include "reduce_common.h"

namespace ember {

using dispatch::OpId;

namespace {

Tensor var_like(const char* op, const Tensor& self, const std::optional<std::vector<int64_t>>& dim,
                const std::optional<Scalar>& correction, bool keepdim, bool take_sqrt) {
  ops::check_not_quantized(op, {self});
  EMBER_CHECK(is_floating(self.dtype()), "std and var only support floating point and complex dtypes");
  DimVector dims = ops::reduction_dims(dim ? IntArrayRef(*dim) : IntArrayRef(), self.dim());
  const double c = correction ? correction->to_double() : 1.0;
  Tensor out = empty(ops::reduced_shape(self.sizes(), dims, keepdim),
                     TensorOptions(self.dtype()).device(self.device()));
  if (!out.is_meta()) cpu::var_kernel(out, self, dims, c, take_sqrt);
  return out;
}

Tensor var_impl(const Tensor& self, std::optional<std::vector<int64_t>> dim,
                std::optional<Scalar> correction, bool keepdim) {
  return var_like("aten::var", self, dim, correction, keepdim, false);
}
Tensor std_impl(const Tensor& self, std::optional<std::vector<int64_t>> dim,
                std::optional<Scalar> correction, bool keepdim) {
  return var_like("aten::std", self, dim, correction, keepdim, true);
}

// p = None means 2; dim = [] means every dim. An input with no elements gives zeros for every
// p (PyTorch fills before looking at p), even where the formula would say inf.
Tensor norm_impl(const Tensor& self, std::optional<Scalar> p, IntArrayRef dim, bool keepdim) {
  ops::check_not_quantized("aten::norm", {self});
  EMBER_CHECK(is_floating(self.dtype()),
              "norm(): input dtype should be either floating point or complex. Got ",
              scalar_type_name(self.dtype()), " instead.");
  DimVector dims = ops::reduction_dims(dim, self.dim());
  Tensor out = empty(ops::reduced_shape(self.sizes(), dims, keepdim),
                     TensorOptions(self.dtype()).device(self.device()));
  if (out.is_meta()) return out;
  if (self.numel() == 0) {
    out.zero_();
  } else {
    cpu::norm_kernel(out, self, dims, p ? p->to_double() : 2.0);
  }
  return out;
}

}  // namespace

Tensor var(const Tensor& self, std::optional<std::vector<int64_t>> dims,
           std::optional<Scalar> correction, bool keepdim) {
  return dispatch::call<var_impl>(OpId::var_correction, self, dims, correction, keepdim);
}
Tensor std(const Tensor& self, std::optional<std::vector<int64_t>> dims,
           std::optional<Scalar> correction, bool keepdim) {
  return dispatch::call<std_impl>(OpId::std_correction, self, dims, correction, keepdim);
}
Tensor norm(const Tensor& self, std::optional<Scalar> p, IntArrayRef dims, bool keepdim) {
  return dispatch::call<norm_impl>(OpId::norm_ScalarOpt_dim, self, p, dims, keepdim);
}

using VarFn = Tensor (*)(const Tensor&, std::optional<std::vector<int64_t>>, std::optional<Scalar>, bool);
EMBER_REGISTER_OP(var_correction, static_cast<VarFn>(&var));
EMBER_REGISTER_OP(std_correction, static_cast<VarFn>(&std));
EMBER_REGISTER_OP(norm_ScalarOpt_dim, &norm);

// ---- Tensor methods ----
Tensor Tensor::var(std::optional<std::vector<int64_t>> dims, double correction, bool keepdim) const {
  return ember::var(*this, std::move(dims), Scalar(correction), keepdim);
}
Tensor Tensor::std(std::optional<std::vector<int64_t>> dims, double correction, bool keepdim) const {
  return ember::std(*this, std::move(dims), Scalar(correction), keepdim);
}
Tensor Tensor::norm(const Scalar& p, std::optional<std::vector<int64_t>> dims, bool keepdim) const {
  return ember::norm(*this, p, dims ? IntArrayRef(*dims) : IntArrayRef(), keepdim);
}

}  // namespace ember
