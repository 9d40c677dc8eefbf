# The code of PyTorch's note "Extending PyTorch" (docs/source/notes/extending.rst), section
# "Extending torch.nn", run on ember.
# Edits to the note's code: `import torch` -> `import ember as torch`, `from torch import nn` ->
# `from ember import nn`, `from torch.autograd import ...` -> `from ember.autograd import ...`;
# nothing else. The `Linear` module uses "the function implemented as in the listing above", so
# that listing (LinearFunction, separate forward/setup_context) is repeated here. Lines marked
# `# driver` are added: they build the module, print it and run it, printing what can be
# compared (the weights are random, so their relation to a plain mm is printed, not values).
# Expected output: expected/extending_nn.txt (see README.md).

import ember as torch  # driver: the note assumes these imports
from ember import nn  # driver
from ember.autograd import Function  # driver


class LinearFunction(Function):
    @staticmethod
    def forward(input, weight, bias):
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def setup_context(ctx, inputs, output):
        input, weight, bias = inputs
        ctx.save_for_backward(input, weight, bias)

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


class Linear(nn.Module):
    def __init__(self, input_features, output_features, bias=True):
        super().__init__()
        self.input_features = input_features
        self.output_features = output_features

        # nn.Parameter is a special kind of Tensor, that will get
        # automatically registered as Module's parameter once it's assigned
        # as an attribute. Parameters and buffers need to be registered, or
        # they won't appear in .parameters() (doesn't apply to buffers), and
        # won't be converted when e.g. .cuda() is called. You can use
        # .register_buffer() to register buffers.
        # nn.Parameters require gradients by default.
        self.weight = nn.Parameter(torch.empty(output_features, input_features))
        if bias:
            self.bias = nn.Parameter(torch.empty(output_features))
        else:
            # You should always register all possible parameters, but the
            # optional ones can be None if you want.
            self.register_parameter('bias', None)

        # Not a very smart way to initialize weights
        nn.init.uniform_(self.weight, -0.1, 0.1)
        if self.bias is not None:
            nn.init.uniform_(self.bias, -0.1, 0.1)

    def forward(self, input):
        # See the autograd section for explanation of what happens here.
        return LinearFunction.apply(input, self.weight, self.bias)

    def extra_repr(self):
        # (Optional)Set the extra information about this module. You can test
        # it by printing an object of this class.
        return 'input_features={}, output_features={}, bias={}'.format(
            self.input_features, self.output_features, self.bias is not None
        )


module = Linear(20, 30)  # driver
print(module)  # driver
print([name for name, p in module.named_parameters()])  # driver
print(bool(module.weight.abs().max() <= 0.1), bool(module.bias.abs().max() <= 0.1))  # driver
input = torch.randn(128, 20)  # driver
output = module(input)  # driver
print(output.shape, type(output.grad_fn).__name__)  # driver
print(torch.allclose(output, input.mm(module.weight.t()) + module.bias))  # driver
output.sum().backward()  # driver
print(module.weight.grad.shape, module.bias.grad.shape)  # driver
print(torch.allclose(module.bias.grad, torch.full((30,), 128.)))  # driver

module = Linear(3, 4, bias=False)  # driver
print(module)  # driver
print(module.bias, [name for name, p in module.named_parameters()])  # driver
print(nn.Sequential(Linear(3, 4), nn.ReLU(), Linear(4, 2, bias=False)))  # driver
