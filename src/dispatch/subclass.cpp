// Tensor subclasses: attaching hooks to tensors, and wrapper tensors.
//
// Note [Wrapper tensors]
// A wrapper tensor (PyTorch's `_make_wrapper_subclass`) has the metadata of a tensor — sizes,
// strides, dtype, device — and no data: its payload is whatever its hooks object holds (an inner
// `elem`, a scale and packed weights, ...). It reports the device it was given, cpu by default,
// as PyTorch's does, so it mixes with ordinary tensors of that device. Its storage is data-less
// (a null pointer and the byte size the geometry spans), so data_ptr() is nullptr.
// Nothing may run a backend kernel on it. Two things make sure of that:
//   - its hooks must have torch_dispatch, so the tensor carries DispatchOverride and every
//     primitive op on it reaches the handler (composites decompose first), and set_subclass
//     refuses to take that away;
//   - the hooks are marked as a wrapper's, and dispatch::call_slow checks the arguments of every
//     call that carries DispatchOverride before it runs a backend kernel: a wrapper there (the
//     handler redispatched it, or a guard excluded the layer) is an error, never a read of
//     missing memory.
// If every handler declines, the call is the dispatch layer's TypeError ("Multiple dispatch
// failed ..."), again before any kernel runs.
#include <typeinfo>

#include "dispatcher.h"

namespace ember {

std::optional<Stack> TensorSubclass::torch_function(const OpHandle&, const Stack&) {
  return std::nullopt;
}
std::optional<Stack> TensorSubclass::torch_dispatch(const OpHandle&, const Stack&) {
  return std::nullopt;
}
const void* TensorSubclass::type_key() const { return &typeid(*this); }

void set_subclass(const Tensor& t, intrusive_ptr<TensorSubclass> s) {
  EMBER_CHECK(t.defined(), "set_subclass: the tensor is undefined");
  TensorSubclass* old = t.impl()->subclass();
  const bool wrapper = old && old->is_wrapper();
  EMBER_CHECK(!s || !s->is_wrapper() || wrapper || s.get() == old, "set_subclass: these ",
              s ? s->name() : std::string(), " hooks belong to a wrapper tensor, which has no data "
              "to share with this one");
  if (wrapper) {
    EMBER_CHECK(s && s->has_torch_dispatch(),
                "set_subclass: a wrapper tensor has no data, so its new hooks must define "
                "__torch_dispatch__ (",
                old->name(), " is being replaced by ", s ? s->name() : std::string("nothing"), ")");
    s->wrapper_ = true;
  }
  t.impl()->set_subclass(std::move(s));
}

Tensor make_wrapper_tensor(IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, Device device,
                           intrusive_ptr<TensorSubclass> hooks) {
  EMBER_CHECK(hooks != nullptr, "make_wrapper_tensor: the subclass hooks are null");
  EMBER_CHECK_TYPE(hooks->has_torch_dispatch(), hooks->name(), " must define __torch_dispatch__");
  EMBER_CHECK(!hooks->is_wrapper(), "make_wrapper_tensor: these ", hooks->name(),
              " hooks already belong to a wrapper tensor; each wrapper needs its own");
  EMBER_CHECK(dtype != ScalarType::Undefined, "make_wrapper_tensor: the dtype is undefined");
  DimVector st =
      strides.empty() ? contiguous_strides(sizes) : DimVector(strides.begin(), strides.end());
  EMBER_CHECK(st.size() == sizes.size(), "make_wrapper_tensor: ", sizes.size(), " sizes but ",
              st.size(), " strides");
  // The byte size the geometry spans, as PyTorch computes the wrapper's storage size.
  int64_t extent = compute_numel(sizes) == 0 ? 0 : 1;
  for (size_t d = 0; d < sizes.size() && extent; ++d) {
    EMBER_CHECK(st[d] >= 0, "make_wrapper_tensor: negative strides are not supported, got ",
                IntArrayRef(st));
    extent += (sizes[d] - 1) * st[d];
  }
  auto storage =
      Storage::wrap(nullptr, static_cast<size_t>(extent) * element_size(dtype), nullptr, device);
  auto impl = make_intrusive<TensorImpl>(std::move(storage), dtype, sizes, IntArrayRef(st), 0);
  hooks->wrapper_ = true;
  impl->set_subclass(std::move(hooks));
  return Tensor(std::move(impl));
}

}  // namespace ember
