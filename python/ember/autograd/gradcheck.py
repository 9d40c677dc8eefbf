"""gradcheck / gradgradcheck: ember's C++ gradcheck (include/ember/autograd/gradcheck.h) for
Python callables, with torch.autograd.gradcheck's arguments. Complex inputs and outputs are
checked as PyTorch does (the conjugate Wirtinger derivative; complex outputs as their imaginary,
then real parts). check_forward_ad, check_batched_grad, check_batched_forward_grad and
check_fwd_over_rev need forward-mode AD or vmap, which ember does not have: asking for them raises
NotImplementedError where PyTorch would start that check."""
from .. import _C

GradcheckError = _C._autograd.GradcheckError

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              check_sparse_nnz=False, nondet_tol=0.0, check_undefined_grad=True,
              check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True,
              fast_mode=False):
    """Compares the gradients of `func(*inputs)` computed by autograd with finite differences
    for every input that requires grad; returns True, or raises GradcheckError (False with
    raise_exception=False)."""
    kw = dict(eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception,
              check_sparse_nnz=check_sparse_nnz, nondet_tol=nondet_tol,
              check_undefined_grad=check_undefined_grad, check_grad_dtypes=check_grad_dtypes,
              check_batched_grad=check_batched_grad,
              check_batched_forward_grad=check_batched_forward_grad,
              check_forward_ad=check_forward_ad, check_backward_ad=check_backward_ad,
              fast_mode=fast_mode)
    return _C._autograd._gradcheck(func, _as_tuple(inputs), kw)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False):
    """gradcheck of func's backward: of (inputs, grad_outputs) -> autograd.grad(func(inputs),
    inputs, grad_outputs, create_graph=True). Missing grad_outputs are random in [-1, 1)."""
    kw = dict(eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception,
              gen_non_contig_grad_outputs=gen_non_contig_grad_outputs, nondet_tol=nondet_tol,
              check_undefined_grad=check_undefined_grad, check_grad_dtypes=check_grad_dtypes,
              check_batched_grad=check_batched_grad, check_forward_ad=check_fwd_over_rev,
              check_backward_ad=check_rev_over_rev, fast_mode=fast_mode)
    grads = () if grad_outputs is None else _as_tuple(grad_outputs)
    return _C._autograd._gradgradcheck(func, _as_tuple(inputs), grads, kw)
