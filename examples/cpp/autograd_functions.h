// The Functions of PyTorch's "Extending torch.autograd" note, written for ember in C++.
// examples/cpp/extending_autograd.cpp runs them; tests/cpp/autograd/test_user_functions.cpp
// checks each (gradcheck, double backward, the error cases).
#pragma once

#include <ember/autograd/function.h>
#include <ember/ember.h>

#include <optional>
#include <tuple>

namespace examples {

using ember::Tensor;
using ember::autograd::AutogradContext;
using ember::autograd::tensor_list;

// y = x W^T + b, combined style: forward takes the context.
struct LinearFunction : ember::autograd::Function<LinearFunction> {
  static Tensor forward(AutogradContext* ctx, const Tensor& input, const Tensor& weight,
                        const std::optional<Tensor>& bias) {
    ctx->save_for_backward({input, weight, bias.value_or(Tensor())});
    Tensor output = input.mm(weight.t());
    if (bias) output = output + bias->unsqueeze(0).expand_as(output);
    return output;
  }

  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
    const tensor_list saved = ctx->get_saved_variables();
    const Tensor &input = saved[0], &weight = saved[1], &bias = saved[2];
    const Tensor& grad_output = grad_outputs[0];
    Tensor grad_input, grad_weight, grad_bias;
    // Computing only what is needed is an optimisation, not a requirement.
    if (ctx->needs_input_grad(0)) grad_input = grad_output.mm(weight);
    if (ctx->needs_input_grad(1)) grad_weight = grad_output.t().mm(input);
    if (bias.defined() && ctx->needs_input_grad(2)) grad_bias = grad_output.sum({0});
    return {grad_input, grad_weight, grad_bias};
  }
};

// The same function, new style: forward without context, setup_context saves.
struct LinearFunctionSplit : ember::autograd::Function<LinearFunctionSplit> {
  static Tensor forward(const Tensor& input, const Tensor& weight, const Tensor& bias) {
    return input.mm(weight.t()) + bias.unsqueeze(0).expand({input.size(0), weight.size(0)});
  }
  static void setup_context(AutogradContext* ctx, const auto& inputs, const Tensor& /*output*/) {
    const auto& [input, weight, bias] = inputs;
    ctx->save_for_backward({input, weight, bias});
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
    const tensor_list saved = ctx->get_saved_variables();
    const Tensor& g = grad_outputs[0];
    return {g.mm(saved[1]), g.t().mm(saved[0]), g.sum({0})};
  }
};

// Multiplies by a constant that is not a tensor: its gradient slot is undefined.
struct MulConstant : ember::autograd::Function<MulConstant> {
  static Tensor forward(AutogradContext* ctx, const Tensor& tensor, double constant) {
    ctx->saved_data["constant"] = constant;
    return tensor * constant;
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
    return {grad_outputs[0] * ctx->saved_data["constant"].to_double(), Tensor()};
  }
};

// The same, with set_materialize_grads(false): an output that got no gradient reaches backward
// undefined, and backward must handle it.
struct MulConstantNoMaterialize : ember::autograd::Function<MulConstantNoMaterialize> {
  static tensor_list forward(AutogradContext* ctx, const Tensor& tensor, double constant) {
    ctx->set_materialize_grads(false);
    ctx->saved_data["constant"] = constant;
    return {tensor * constant, tensor * (2 * constant)};
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
    const double c = ctx->saved_data["constant"].to_double();
    Tensor grad;
    if (grad_outputs[0].defined()) grad = grad_outputs[0] * c;
    if (grad_outputs[1].defined()) {
      Tensor g1 = grad_outputs[1] * (2 * c);
      grad = grad.defined() ? grad + g1 : g1;
    }
    return {grad, Tensor()};
  }
};

// x³, returning the intermediate dx = 3x² as a second output and saving it, so that double
// backward flows through it (the note's MyCube): d²/dx² x³ = 6x.
struct MyCube : ember::autograd::Function<MyCube> {
  static tensor_list forward(AutogradContext* ctx, const Tensor& x) {
    Tensor result = x * x * x;
    Tensor dx = x * x * 3;
    ctx->save_for_backward({x, dx});
    return {result, dx};
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
    const tensor_list saved = ctx->get_saved_variables();
    const Tensor &x = saved[0], &dx = saved[1];
    // The gradient through the returned dx output (d(3x²)/dx = 6x) adds to that of the result.
    return {grad_outputs[0] * dx + grad_outputs[1] * 6 * x};
  }
};

// Adds one to its input in place: mark_dirty, and the output is the input object itself.
struct AddOneInplace : ember::autograd::Function<AddOneInplace> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    x.add_(1);
    ctx->mark_dirty({x});
    return x;
  }
  static tensor_list backward(AutogradContext*, tensor_list grad_outputs) {
    return {grad_outputs[0]};
  }
};

// Sorts along the last dim: values are differentiable, indices are not (mark_non_differentiable).
struct SortFunction : ember::autograd::Function<SortFunction> {
  static tensor_list forward(AutogradContext* ctx, const Tensor& x) {
    auto [values, indices] = x.sort(-1);
    ctx->mark_non_differentiable({indices});
    ctx->save_for_backward({indices});
    ctx->saved_data["sizes"] = x.sizes();
    return {values, indices};
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
    const Tensor indices = ctx->get_saved_variables()[0];
    Tensor grad = ember::zeros(ctx->saved_data["sizes"].to_int_list(), grad_outputs[0].dtype());
    return {grad.scatter(-1, indices, grad_outputs[0])};
  }
};

// exp, with a backward that is not itself differentiable (once_differentiable).
struct ExpOnce : ember::autograd::Function<ExpOnce> {
  static constexpr bool once_differentiable = true;
  static Tensor forward(AutogradContext* ctx, const Tensor& x) {
    Tensor y = x.exp();
    ctx->save_for_backward({y});
    return y;
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
    return {grad_outputs[0] * ctx->get_saved_variables()[0]};
  }
};

}  // namespace examples
