"""torch.utils.checkpoint: activation checkpointing, in Python as PyTorch's (the algorithm is a
custom autograd Function over the engine; nothing of it is a kernel).

checkpoint(fn, *args) runs fn without recording a graph and saves only its inputs (and, with
preserve_rng_state, the default generator's state); backward re-runs fn with grad enabled from
the same RNG state, so dropout draws the same mask, and backpropagates through the recomputed
graph: gradients equal those of the uncheckpointed run.

Note [Non-reentrant checkpoint]: use_reentrant=False is PyTorch 1.13's algorithm over
saved-tensor hooks (ember.autograd.graph.saved_tensors_hooks): fn runs once with grad recording,
but every tensor its ops save is replaced by an empty placeholder; the first unpack of the
backward re-runs fn (same RNG state) under inner hooks that fill each placeholder, in save order,
with the recomputed tensor. The graph is fn's own, so parameters captured by fn get gradients,
keyword arguments reach fn, and `backward(inputs=...)` behaves as without checkpointing.
"""
import warnings
import weakref

import ember as torch
from ..autograd import Function

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointFunction",
           "check_backward_validity", "detach_variable", "get_device_states",
           "set_device_states"]


def detach_variable(inputs):
    if isinstance(inputs, tuple):
        out = []
        for inp in inputs:
            if not isinstance(inp, torch.Tensor):
                out.append(inp)
                continue
            x = inp.detach()
            x.requires_grad = inp.requires_grad
            out.append(x)
        return tuple(out)
    raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: ",
                       type(inputs).__name__)


def check_backward_validity(inputs):
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, torch.Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None")


def get_device_states(*args):
    # ember has no CUDA devices: no device generator states to keep.
    return [], []


def set_device_states(devices, states):
    for device in devices:
        torch.cuda.get_rng_state(device)  # raises: ember has no CUDA


def _run_saved(ctx, args):
    """The recomputation: fn on detached copies of the inputs, with grad on, from the forward's
    RNG state (restored afterwards: the recomputation does not advance the caller's RNG)."""
    inputs = list(ctx.inputs)
    for i, idx in enumerate(ctx.tensor_indices):
        inputs[idx] = ctx.saved_tensors[i]
    with torch.random.fork_rng(enabled=ctx.preserve_rng_state):
        if ctx.preserve_rng_state:
            torch.set_rng_state(ctx.fwd_cpu_state)
        detached_inputs = detach_variable(tuple(inputs))
        with torch.enable_grad():
            outputs = ctx.run_function(*detached_inputs, **ctx.kwargs)
    if isinstance(outputs, torch.Tensor):
        outputs = (outputs,)
    outputs_with_grad = []
    args_with_grad = []
    for i in range(len(outputs)):
        if torch.is_tensor(outputs[i]) and outputs[i].requires_grad:
            outputs_with_grad.append(outputs[i])
            args_with_grad.append(args[i])
    if len(outputs_with_grad) == 0:
        raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not "
                           "necessary")
    torch.autograd.backward(outputs_with_grad, args_with_grad)
    return tuple(inp.grad if isinstance(inp, torch.Tensor) else None for inp in detached_inputs)


def _save_inputs(ctx, run_function, preserve_rng_state, args, kwargs):
    ctx.run_function = run_function
    ctx.preserve_rng_state = preserve_rng_state
    ctx.kwargs = kwargs
    if preserve_rng_state:
        ctx.fwd_cpu_state = torch.get_rng_state()
    ctx.inputs = []
    ctx.tensor_indices = []
    tensor_inputs = []
    for i, arg in enumerate(args):
        if torch.is_tensor(arg):
            tensor_inputs.append(arg)
            ctx.tensor_indices.append(i)
            ctx.inputs.append(None)
        else:
            ctx.inputs.append(arg)
    ctx.save_for_backward(*tensor_inputs)


class CheckpointFunction(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        _save_inputs(ctx, run_function, preserve_rng_state, args, {})
        with torch.no_grad():
            outputs = run_function(*args)
        return outputs

    @staticmethod
    def backward(ctx, *args):
        return (None, None) + _run_saved(ctx, args)


def _checkpoint_without_reentrant(function, preserve_rng_state, args, kwargs):
    """Note [Non-reentrant checkpoint]."""
    fwd_cpu_state = torch.get_rng_state() if preserve_rng_state else None

    class Holder:  # a placeholder the graph owns; weakly keyed, so freed with the graph
        pass

    storage = weakref.WeakKeyDictionary()
    weak_holders = []

    def pack(_saved):
        holder = Holder()
        weak_holders.append(weakref.ref(holder))
        return holder

    def unpack(holder):
        if len(storage) == 0:
            filled = 0

            def inner_pack(inner):
                nonlocal filled
                filled += 1
                live = weak_holders[filled - 1]()
                if live is not None:  # a freed SavedVariable will never be read
                    storage[live] = inner.detach()  # not the recomputation's graph

            def inner_unpack(_packed):
                raise RuntimeError("You are calling backwards on a tensor that is never exposed. "
                                   "Please open an issue.")

            with torch.random.fork_rng(enabled=preserve_rng_state):
                if preserve_rng_state:
                    torch.set_rng_state(fwd_cpu_state)
                with torch.enable_grad(), \
                        torch.autograd.graph.saved_tensors_hooks(inner_pack, inner_unpack):
                    function(*args, **kwargs)
        if holder not in storage:
            raise RuntimeError(
                "Attempt to retrieve a tensor saved by autograd multiple times without checkpoint"
                " recomputation being triggered in between, this is not currently supported. Please"
                " open an issue with details on your use case so that we can prioritize adding this.")
        return storage[holder]

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        return function(*args, **kwargs)


def checkpoint(function, *args, use_reentrant=True, **kwargs):
    r"""Checkpoint a model or part of the model (torch.utils.checkpoint.checkpoint)."""
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_without_reentrant(function, preserve, args, kwargs)


def checkpoint_sequential(functions, segments, input, **kwargs):
    r"""Checkpoints a sequential model in ``segments`` chunks; the last chunk runs normally."""
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input
        return forward

    if isinstance(functions, torch.nn.Sequential):
        functions = list(functions.children())

    segment_size = len(functions) // segments
    # the last chunk has to be non-volatile
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input, preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
