# The code of PyTorch's note "Extending PyTorch" (docs/source/notes/extending.rst), section
# "Extending torch.autograd", run on ember.
# Edits to the note's code: `import torch` -> `import ember as torch` and `from torch.autograd
# import ...` -> `from ember.autograd import ...`; nothing else. The note shows class definitions
# only, so the lines marked `# driver` are added: they call what the note defines, on fixed
# inputs, and print the results (the note's own gradcheck call is kept as it stands).
# Expected output: expected/extending_autograd.txt (see README.md).

import ember as torch  # driver: the note assumes torch and Function are imported
from ember.autograd import Function  # driver


# Inherit from Function
class LinearFunction(Function):

    # Note that forward, setup_context, and backward are @staticmethods
    @staticmethod
    def forward(input, weight, bias):
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    # inputs is a Tuple of all of the inputs passed to forward.
    # output is the output of the forward().
    def setup_context(ctx, inputs, output):
        input, weight, bias = inputs
        ctx.save_for_backward(input, weight, bias)

    # This function has only a single output, so it gets only one gradient
    @staticmethod
    def backward(ctx, grad_output):
        # This is a pattern that is very convenient - at the top of backward
        # unpack saved_tensors and initialize all gradients w.r.t. inputs to
        # None. Thanks to the fact that additional trailing Nones are
        # ignored, the return statement is simple even when the function has
        # optional inputs.
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None

        # These needs_input_grad checks are optional and there only to
        # improve efficiency. If you want to make your code simpler, you can
        # skip them. Returning gradients for inputs that don't require it is
        # not an error.
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)

        return grad_input, grad_weight, grad_bias

# Option 1: alias
linear = LinearFunction.apply

# driver: the alias needs all three arguments
x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)  # driver
w = torch.tensor([[1., 0.], [0.5, -1.], [2., 1.]], requires_grad=True)  # driver
b = torch.tensor([0.1, 0.2, 0.3], requires_grad=True)  # driver
y = linear(x, w, b)  # driver
print(y)  # driver
y.sum().backward()  # driver
print(x.grad)  # driver
print(w.grad)  # driver
print(b.grad)  # driver

# Option 2: wrap in a function, to support default args and keyword args.
def linear(input, weight, bias=None):
    return LinearFunction.apply(input, weight, bias)

print(linear(x, w))  # driver: bias defaults to None


class MulConstant(Function):
    @staticmethod
    def forward(tensor, constant):
        return tensor * constant

    @staticmethod
    def setup_context(ctx, inputs, output):
        # ctx is a context object that can be used to stash information
        # for backward computation
        tensor, constant = inputs
        ctx.constant = constant

    @staticmethod
    def backward(ctx, grad_output):
        # We return as many input gradients as there were arguments.
        # Gradients of non-Tensor arguments to forward must be None.
        return grad_output * ctx.constant, None

t = torch.tensor([1., 2., 3.], requires_grad=True)  # driver
y = MulConstant.apply(t, 2.5)  # driver
print(y)  # driver
y.sum().backward()  # driver
print(t.grad)  # driver


class MulConstant(Function):
    @staticmethod
    def forward(tensor, constant):
        return tensor * constant

    @staticmethod
    def setup_context(ctx, inputs, output):
        tensor, constant = inputs
        ctx.set_materialize_grads(False)
        ctx.constant = constant

    @staticmethod
    def backward(ctx, grad_output):
        # Here we must handle None grad_output tensor. In this case we
        # can skip unnecessary computations and just return None.
        if grad_output is None:
            return None, None

        # We return as many input gradients as there were arguments.
        # Gradients of non-Tensor arguments to forward must be None.
        return grad_output * ctx.constant, None

t = torch.tensor([1., 2., 3.], requires_grad=True)  # driver
y = MulConstant.apply(t, -3)  # driver
print(y)  # driver
(g,) = torch.autograd.grad(y, t, torch.tensor([1., 0.5, 2.]))  # driver
print(g)  # driver


class MyCube(torch.autograd.Function):
    @staticmethod
    def forward(x):
        # We wish to save dx for backward. In order to do so, it must
        # be returned as an output.
        dx = 3 * x ** 2
        result = x ** 3
        return result, dx

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        result, dx = output
        ctx.save_for_backward(x, dx)

    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        # In order for the autograd.Function to work with higher-order
        # gradients, we must add the gradient contribution of `dx`,
        # which is grad_dx * 6 * x.
        result = grad_output * dx + grad_dx * 6 * x
        return result

# Wrap MyCube in a function so that it is clearer what the output is
def my_cube(x):
    result, dx = MyCube.apply(x)
    return result

x = torch.tensor([1., 2., 3.], dtype=torch.double, requires_grad=True)  # driver
y = my_cube(x)  # driver
print(y)  # driver
(dy,) = torch.autograd.grad(y.sum(), x, create_graph=True)  # driver: 3x^2, differentiable
print(dy)  # driver
(d2y,) = torch.autograd.grad(dy.sum(), x)  # driver: 6x, through grad_dx
print(d2y)  # driver
print(torch.autograd.gradcheck(my_cube, (x,)))  # driver
print(torch.autograd.gradgradcheck(my_cube, (x,)))  # driver


from ember.autograd import gradcheck

# gradcheck takes a tuple of tensors as input, check if your gradient
# evaluated with these tensors are close enough to numerical
# approximations and returns True if they all verify this condition.
input = (torch.randn(20,20,dtype=torch.double,requires_grad=True), torch.randn(30,20,dtype=torch.double,requires_grad=True))
test = gradcheck(linear, input, eps=1e-6, atol=1e-4)
print(test)


# Combined forward and setup_context
class LinearFunction(Function):
    @staticmethod
    # ctx is the first argument to forward
    def forward(ctx, input, weight, bias=None):
        # The forward pass can use ctx.
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

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

linear = LinearFunction.apply  # driver: the alias works here, bias has a default
w.grad = b.grad = None  # driver
x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)  # driver
y = linear(x, w, b)  # driver
print(y)  # driver
y.sum().backward()  # driver
print(x.grad)  # driver
print(w.grad)  # driver
print(b.grad)  # driver
test = gradcheck(linear, input, eps=1e-6, atol=1e-4)  # driver: the note's check, combined style
print(test)  # driver
