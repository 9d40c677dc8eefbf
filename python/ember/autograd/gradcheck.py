"""gradcheck / gradgradcheck: ember's C++ gradcheck (include/ember/autograd/gradcheck.h) for
Python callables, with torch.autograd.gradcheck's arguments."""
from .. import _C

GradcheckError = _C._autograd.GradcheckError

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


def _as_tuple(x):
    return (x,) if isinstance(x, _C.TensorBase) else tuple(x)


def _refuse_unsupported(**checks):
    # Checks of forward-mode AD, vmap and sparse tensors: ember has none of these.
    for name, requested in checks.items():
        if requested:
            raise NotImplementedError(f"gradcheck: {name}=True is not supported by ember (it has "
                                      "no forward-mode AD, vmap or sparse tensors)")


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              check_sparse_nnz=False, nondet_tol=0.0, check_undefined_grad=True,
              check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True,
              fast_mode=False):
    """Compares the gradients of `func(*inputs)` computed by autograd with finite differences
    for every input that requires grad; returns True, or raises GradcheckError (False with
    raise_exception=False)."""
    assert check_forward_ad or check_backward_ad, \
        "Expected at least one of check_forward_ad or check_backward_ad to be True"
    _refuse_unsupported(check_sparse_nnz=check_sparse_nnz, check_batched_grad=check_batched_grad,
                        check_batched_forward_grad=check_batched_forward_grad,
                        check_forward_ad=check_forward_ad)
    return _C._autograd._gradcheck(func, _as_tuple(inputs), eps, atol, rtol, raise_exception,
                                   nondet_tol, check_grad_dtypes, fast_mode)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False):
    """gradcheck of func's backward: of (inputs, grad_outputs) -> autograd.grad(func(inputs),
    inputs, grad_outputs, create_graph=True). Missing grad_outputs are random in [-1, 1)."""
    assert check_fwd_over_rev or check_rev_over_rev, \
        "Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True"
    _refuse_unsupported(check_batched_grad=check_batched_grad,
                        check_fwd_over_rev=check_fwd_over_rev)
    grads = () if grad_outputs is None else _as_tuple(grad_outputs)
    return _C._autograd._gradgradcheck(func, _as_tuple(inputs), grads, eps, atol, rtol,
                                       raise_exception, nondet_tol, check_grad_dtypes, fast_mode)
