"""ember.autograd.functional: vjp, jvp, jacobian, hessian, vhp, hvp (torch.autograd.functional).

PyTorch writes these in Python over autograd.grad, so they are Python here too, over ember's C++
engine, with torch 1.13's semantics and error texts (`strict`, `create_graph`, tuple/Tensor
inputs and outputs, `v=None`).

Note [functional: vectorize and forward mode]
PyTorch's `vectorize=True` batches the rows of a Jacobian through vmap (`is_grads_batched`).
ember has no vmap, so `vectorize=True` computes the very same Jacobian with one autograd.grad per
row (the `vectorize=False` loop); only speed differs, and `strict=True` with `vectorize=True` is
still refused as PyTorch refuses it. `strategy="forward-mode"` (and a forward-mode outer
Jacobian for `hessian`) needs forward-mode AD, which ember does not have: it raises
NotImplementedError after the checks PyTorch makes first.
"""
import ember

from .. import _C

__all__ = ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"]

_Tensor = _C.TensorBase


# ---- argument normalisation ----------------------------------------------------------------

def _to_tuple(value, what, fn_name):
    """(was_tuple, tuple of Tensors); a non-Tensor element is a TypeError naming `what`."""
    was_tuple = isinstance(value, tuple)
    items = value if was_tuple else (value,)
    for idx, item in enumerate(items):
        if isinstance(item, _Tensor):
            continue
        where = "value at index {}".format(idx) if was_tuple else "given {}".format(what)
        raise TypeError("The {} given to {} must be either a Tensor or a tuple of Tensors but the"
                        " {} has type {}.".format(what, fn_name, where, type(item)))
    return was_tuple, items


def _unpack(result, was_tuple):
    """Undo the tuple wrapping: `was_tuple` is a bool, or (outer, inner) for nested results."""
    if isinstance(was_tuple, tuple):
        outer, inner = was_tuple
        if not inner:
            result = tuple(row[0] for row in result)
        return result if outer else result[0]
    return result if was_tuple else result[0]


def _fresh_inputs(tensors, create_graph, need_graph):
    """Inputs the function sees: a view keeping the user's graph when create_graph, else a
    detached leaf (requiring grad when `need_graph`)."""
    return tuple(t.view_as(t) if create_graph and t.requires_grad
                 else t.detach().requires_grad_(need_graph) for t in tensors)


def _detach_unless(tensors, create_graph):
    if create_graph:
        return tensors
    if isinstance(tensors[0], _Tensor):
        return tuple(t.detach() for t in tensors)
    return tuple(_detach_unless(row, create_graph) for row in tensors)


def _check_v(v, refs, refs_tuple):
    if len(v) != len(refs):
        if refs_tuple:
            raise RuntimeError("v is a tuple of invalid length: should be {} but got {}."
                               .format(len(refs), len(v)))
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (vi, ref) in enumerate(zip(v, refs)):
        if vi.size() != ref.size():
            raise RuntimeError("{}v has invalid size: should be {} but got {}.".format(
                "Entry {} in ".format(idx) if refs_tuple else "", ref.size(), vi.size()))


def _prepare_v(v, refs, refs_tuple, fn_name, create_graph, none_msg):
    if v is None:
        if len(refs) != 1 or refs[0].nelement() != 1:
            raise RuntimeError(none_msg)
        return None
    _, v = _to_tuple(v, "v", fn_name)
    v = _fresh_inputs(v, create_graph, need_graph=False)
    _check_v(v, refs, refs_tuple)
    return v


_V_NONE_INPUT = ("The vector v can only be None if the input to the user-provided function "
                 "is a single Tensor with a single element.")

_STRICT_TEXTS = {
    "outputs": ("Output {} of the user-provided function does not require gradients. The outputs"
                " must be computed in a differentiable manner from the input when running in"
                " strict mode."),
    "grad_inputs": ("The gradient with respect to input {} is independent of the inputs of the"
                    " user-provided function. This is not allowed in strict mode."),
    "jacobian": ("While computing the hessian, found that the jacobian of the user-provided"
                 " function with respect to input {} is independent of the input. This is not"
                 " allowed in strict mode. You should ensure that your function is twice"
                 " differentiable and that the jacobian depends on the inputs (this would be"
                 " violated by a linear function for example)."),
    "hessian": ("The hessian of the user-provided function with respect to input {} is"
                " independent of the input. This is not allowed in strict mode. You should"
                " ensure that your function is thrice differentiable and that the hessian"
                " depends on the inputs."),
}


def _strict_requires_grad(tensors, kind, strict):
    if not strict:
        return
    for idx, t in enumerate(tensors):
        if t is None:
            raise RuntimeError("The output of the user-provided function is independent of input"
                               " {}. This is not allowed in strict mode.".format(idx))
        if not t.requires_grad:
            raise RuntimeError(_STRICT_TEXTS[kind].format(idx))


# ---- gradients -----------------------------------------------------------------------------

def _grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """autograd.grad over the outputs that need it; all None when none does."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return ember.autograd.grad(tuple(o for o, _ in pairs), inputs, tuple(g for _, g in pairs),
                               allow_unused=True, create_graph=create_graph,
                               retain_graph=retain_graph)


_MISSING_TEXTS = {
    "back": ("The output of the user-provided function is independent of input {}. This is not"
             " allowed in strict mode."),
    "back_trick": ("The gradient with respect to the input is independent of entry {} in the"
                   " grad_outputs when using the double backward trick to compute forward mode"
                   " gradients. This is not allowed in strict mode."),
    "double_back": ("The jacobian of the user-provided function is independent of input {}."
                    " This is not allowed in strict mode."),
    "double_back_trick": ("The hessian of the user-provided function is independent of entry {}"
                          " in the grad_jacobian. This is not allowed in strict mode as it"
                          " prevents from using the double backward trick to replace forward"
                          " mode AD."),
}


def _zeros_for_missing(grads, refs, strict, create_graph, stage):
    """A zero Tensor for each None gradient (an error in strict mode, which also refuses a
    constant gradient when create_graph)."""
    out = []
    for idx, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_MISSING_TEXTS[stage].format(idx))
            g = ember.zeros_like(refs[idx])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError("The {} of the user-provided function is independent of input {}."
                               " This is not allowed in strict mode when create_graph=True."
                               .format(what, idx))
        out.append(g)
    return tuple(out)


def _last_backward(outs, wrt, v, refs, strict, create_graph, stage):
    """The final autograd.grad (recorded only when create_graph), zeros for what is missing."""
    with ember.set_grad_enabled(True if create_graph else ember.is_grad_enabled()):
        return _zeros_for_missing(_grad(outs, wrt, v, create_graph=create_graph), refs, strict,
                                  create_graph, stage)


def _results(outputs, outputs_tuple, res, res_tuple, create_graph):
    return (_unpack(_detach_unless(outputs, create_graph), outputs_tuple),
            _unpack(_detach_unless(res, create_graph), res_tuple))


def _scalar_output(outputs, is_outputs_tuple, fn_name):
    if is_outputs_tuple or not isinstance(outputs[0], _Tensor):
        raise RuntimeError("The function given to {} should return a single Tensor".format(fn_name))
    if outputs[0].nelement() != 1:
        raise RuntimeError("The Tensor returned by the function given to {} should contain a "
                           "single element".format(fn_name))


# ---- the products --------------------------------------------------------------------------

def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): the vector-Jacobian product at `inputs`, shaped like the inputs.
    `v` may be None only when func returns a single one-element Tensor."""
    with ember.enable_grad():
        inputs_tuple, inputs = _to_tuple(inputs, "inputs", "vjp")
        inputs = _fresh_inputs(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _to_tuple(func(*inputs), "outputs of the user-provided function",
                                           "vjp")
        _strict_requires_grad(outputs, "outputs", strict)
        v = _prepare_v(v, outputs, outputs_tuple, "vjp", create_graph,
                       "The vector v can only be None if the user-provided function returns a "
                       "single Tensor with a single element.")
    res = _last_backward(outputs, inputs, v, inputs, strict, create_graph, "back")
    return _results(outputs, outputs_tuple, res, inputs_tuple, create_graph)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v): the Jacobian-vector product, shaped like the outputs. Computed as
    PyTorch 1.13 does, by the double-backward trick: g(u) = u^T J is linear in u, and the
    gradient of g(u)·v with respect to u is J v."""
    with ember.enable_grad():
        inputs_tuple, inputs = _to_tuple(inputs, "inputs", "jvp")
        inputs = _fresh_inputs(inputs, create_graph, need_graph=True)
        v = _prepare_v(v, inputs, inputs_tuple, "jvp", create_graph, _V_NONE_INPUT)
        outputs_tuple, outputs = _to_tuple(func(*inputs), "outputs of the user-provided function",
                                           "jvp")
        _strict_requires_grad(outputs, "outputs", strict)
        dummy = tuple(ember.zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _grad(outputs, inputs, dummy, create_graph=True)
        _strict_requires_grad(grad_inputs, "grad_inputs", strict)
    res = _last_backward(grad_inputs, dummy, v, outputs, strict, create_graph, "back_trick")
    return _results(outputs, outputs_tuple, res, outputs_tuple, create_graph)


def _forward_mode_refused(create_graph, strict, vectorize):
    # The checks PyTorch makes before it reaches forward-mode AD, then ember's own refusal.
    if create_graph:
        raise NotImplementedError(
            'ember.autograd.functional.jacobian: `create_graph=True` and `strategy="forward-mode"`'
            ' are not supported together (yet). Please either set `create_graph=False` or '
            '`strategy="reverse-mode"`.')
    if strict:
        raise RuntimeError(
            'ember.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are '
            'not supported together (yet). Please either set `strict=False` or '
            '`strategy="reverse-mode"`.')
    if not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                  "Hessian isonly implemented for `vectorize=True`.")
    raise NotImplementedError(
        'ember.autograd.functional.jacobian: strategy="forward-mode" needs forward-mode AD, which '
        'ember does not have. Use strategy="reverse-mode" (the default): it computes the same '
        'Jacobian.')


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of func at inputs: J[i][j] has shape outputs[i].shape + inputs[j].shape
    (a Tensor when both are single Tensors, a tuple when one is, a tuple of tuples otherwise).
    `vectorize=True` gives the same result by the row loop (Note [functional: vectorize and
    forward mode]); `strategy="forward-mode"` raises NotImplementedError."""
    assert strategy in ("forward-mode", "reverse-mode"), (
        'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
        'function has more outputs than inputs, "forward-mode" tends to be more performant. '
        'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        _forward_mode_refused(create_graph, strict, vectorize)
    with ember.enable_grad():
        inputs_tuple, inputs = _to_tuple(inputs, "inputs", "jacobian")
        inputs = _fresh_inputs(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _to_tuple(func(*inputs), "outputs of the user-provided function",
                                           "jacobian")
        _strict_requires_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError(
                "ember.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                "supported together. Please either set `strict=False` or `vectorize=False`.")
        rows_of = []
        for i, out in enumerate(outputs):
            per_input = [[] for _ in inputs]
            flat = out.reshape(-1)
            for k in range(out.nelement()):
                row = _grad((flat[k],), inputs, retain_graph=True, create_graph=create_graph)
                for j, (g, inp) in enumerate(zip(row, inputs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(
                                "Output {} of the user-provided function is independent of input "
                                "{}. This is not allowed in strict mode.".format(i, j))
                        g = ember.zeros_like(inp)
                    elif strict and create_graph and not g.requires_grad:
                        # PyTorch names the output index here.
                        raise RuntimeError(
                            "The jacobian of the user-provided function is independent of input "
                            "{}. This is not allowed in strict mode when create_graph=True."
                            .format(i))
                    per_input[j].append(g)
            rows_of.append(tuple(
                ember.stack(gs, dim=0).view(out.size() + inp.size()) if gs
                else ember.zeros(out.size() + inp.size(), dtype=inp.dtype)
                for gs, inp in zip(per_input, inputs)))
        res = _detach_unless(tuple(rows_of), create_graph)
        return _unpack(res, (outputs_tuple, inputs_tuple))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar func: H[i][j] has shape inputs[i].shape + inputs[j].shape (a
    single Tensor for a single input). The Jacobian of the (differentiable) Jacobian."""
    inputs_tuple, inputs = _to_tuple(inputs, "inputs", "hessian")
    assert outer_jacobian_strategy in ("forward-mode", "reverse-mode"), (
        'Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_func(*inp):
        out = func(*inp)
        out_tuple, t_out = _to_tuple(out, "outputs of the user-provided function", "hessian")
        _strict_requires_grad(t_out, "outputs", strict)
        _scalar_output(t_out, out_tuple, "hessian")
        return out.squeeze()

    def gradient_func(*inp):
        jac = jacobian(scalar_func, inp, create_graph=True)
        _strict_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(gradient_func, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _unpack(res, (inputs_tuple, inputs_tuple))


def _scalar_func_gradient(func, inputs, fn_name, v, create_graph, strict):
    """Shared start of vhp / hvp: fresh inputs, checked v, scalar output and its gradient."""
    inputs_tuple, inputs = _to_tuple(inputs, "inputs", fn_name)
    inputs = _fresh_inputs(inputs, create_graph, need_graph=True)
    v = _prepare_v(v, inputs, inputs_tuple, fn_name, create_graph, _V_NONE_INPUT)
    outputs_tuple, outputs = _to_tuple(func(*inputs), "outputs of the user-provided function",
                                       fn_name)
    _strict_requires_grad(outputs, "outputs", strict)
    _scalar_output(outputs, outputs_tuple, fn_name)
    jac = _grad(outputs, inputs, create_graph=True)
    _strict_requires_grad(jac, "jacobian", strict)
    return inputs_tuple, inputs, v, outputs_tuple, outputs, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H) for a scalar func, shaped like the inputs."""
    with ember.enable_grad():
        inputs_tuple, inputs, v, outputs_tuple, outputs, jac = _scalar_func_gradient(
            func, inputs, "vhp", v, create_graph, strict)
    res = _last_backward(jac, inputs, v, inputs, strict, create_graph, "double_back")
    return _results(outputs, outputs_tuple, res, inputs_tuple, create_graph)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v) for a scalar func, shaped like the inputs; by the double-backward
    trick on the gradient, as PyTorch 1.13 (slower than vhp, equal to it for a symmetric H)."""
    with ember.enable_grad():
        inputs_tuple, inputs, v, outputs_tuple, outputs, jac = _scalar_func_gradient(
            func, inputs, "hvp", v, create_graph, strict)
        dummy = tuple(ember.zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _grad(jac, inputs, dummy, create_graph=True)
        # PyTorch checks `jac` again here (not double_back); the same check, the same text.
        _strict_requires_grad(jac, "hessian", strict)
    res = _last_backward(double_back, dummy, v, inputs, strict, create_graph, "double_back_trick")
    return _results(outputs, outputs_tuple, res, inputs_tuple, create_graph)
