// Extension point 5: build a model on the meta device, then load a checkpoint into it with
// assign=true.
//
// A model built under DeviceGuard(kMeta) (or with LinearOptions(..).options(kMeta)) has shapes
// and dtypes but no memory, so building a large one is instant. load_state_dict(sd, strict,
// /*assign=*/true) then makes the module take the checkpoint's tensors as its parameters
// instead of copying into them (copying into meta tensors would do nothing, with a warning).
#include <ember/ember.h>

#include <cstdio>
#include <memory>

using ember::Tensor;
namespace nn = ember::nn;

// The model, written once; where its memory lives is decided by the caller.
std::shared_ptr<nn::Sequential> make_model() {
  return std::make_shared<nn::Sequential>(std::make_shared<nn::Linear>(16, 64),
                                          std::make_shared<nn::ReLU>(),
                                          std::make_shared<nn::Linear>(64, 4));
}

int main() {
  ember::manual_seed(0);
  // A trained model's weights, saved as a checkpoint (in memory here; a file works the same).
  auto trained = make_model();
  const nn::StateDict sd = trained->state_dict();

  // The skeleton: every parameter on meta, no memory allocated for them.
  std::shared_ptr<nn::Sequential> skeleton;
  {
    ember::DeviceGuard meta(ember::kMeta);
    skeleton = make_model();
  }
  size_t on_meta = 0;
  for (const Tensor& p : skeleton->parameters()) on_meta += p.is_meta() ? 1 : 0;
  std::printf("skeleton: %zu/%zu parameters on meta\n", on_meta, skeleton->parameters().size());

  // assign=true: the skeleton takes the checkpoint's tensors (requires_grad as the module's).
  const nn::IncompatibleKeys keys = skeleton->load_state_dict(sd, /*strict=*/true, /*assign=*/true);
  std::printf("load_state_dict(assign=true): %s\n", keys.to_string().c_str());
  size_t on_cpu = 0;
  for (const Tensor& p : skeleton->parameters()) on_cpu += p.is_cpu() && p.requires_grad() ? 1 : 0;

  // The loaded model computes what the trained one does.
  Tensor x = ember::randn({8, 16});
  const bool same = skeleton->forward(x).equal(trained->forward(x));
  std::printf("parameters on cpu: %zu, outputs identical: %s\n", on_cpu, same ? "yes" : "no");

  // Handles that read the slot (ParameterRef) see the assigned tensor; a Tensor copied from the
  // meta skeleton before the load would still be the meta one (the stale-handle trap).
  auto first = std::dynamic_pointer_cast<nn::Linear>(skeleton->children()[0]);
  const bool slot_cpu = first->weight().is_cpu();

  const bool ok = on_meta == 4 && on_cpu == 4 && same && slot_cpu;
  std::printf("meta_assign: %s\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
