"""ember.autograd.functional (vjp, jvp, jacobian, hessian, vhp, hvp) against torch 1.13's
torch.autograd.functional: values, result structure and shapes, create_graph, strict-mode errors,
`v` checks, vectorize and forward-mode behaviour."""
import numpy as np
import pytest
import torch

import ember

EF = ember.autograd.functional
TF = torch.autograd.functional


def _pair(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    arrs = [rng.standard_normal(s) for s in shapes]
    return ([ember.tensor(a) for a in arrs], [torch.tensor(a) for a in arrs])


def _same(e, t, tol=1e-12):
    """Nested results: the same structure, shapes, dtypes and values."""
    if isinstance(t, torch.Tensor):
        assert isinstance(e, ember.Tensor), type(e)
        assert tuple(e.shape) == tuple(t.shape)
        assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1]
        np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)
        assert e.requires_grad == t.requires_grad
        return
    assert type(e) is type(t), (type(e), type(t))
    assert len(e) == len(t)
    for a, b in zip(e, t):
        _same(a, b, tol)


def _both(fn_name, func, shapes, v_shapes=None, seed=0, **kw):
    ein, tin = _pair(*shapes, seed=seed)
    args_e = [ein[0] if len(ein) == 1 else tuple(ein)]
    args_t = [tin[0] if len(tin) == 1 else tuple(tin)]
    if v_shapes is not None:
        ev, tv = _pair(*v_shapes, seed=seed + 1)
        args_e.append(ev[0] if len(ev) == 1 else tuple(ev))
        args_t.append(tv[0] if len(tv) == 1 else tuple(tv))
    res_e = getattr(EF, fn_name)(lambda *a: func(ember, *a), *args_e, **kw)
    res_t = getattr(TF, fn_name)(lambda *a: func(torch, *a), *args_t, **kw)
    _same(res_e, res_t)
    return res_e, res_t


def exp_reducer(lib, x):
    return x.exp().sum(dim=1)


def adder(lib, x, y):
    return 2 * x + 3 * y


def two_outputs(lib, x, y):
    return (x * y).sin(), (x.pow(2) * y).sum()


def pow_reducer(lib, x):
    return x.pow(3).sum()


def pow_adder(lib, x, y):
    return (2 * x.pow(2)).sum() + (3 * y.pow(2) * x.sum()).sum()


@pytest.mark.parametrize("create_graph", [False, True])
def test_vjp(create_graph):
    _both("vjp", exp_reducer, [(4, 3)], [(4,)], create_graph=create_graph)
    _both("vjp", adder, [(2,), (2,)], [(2,)], create_graph=create_graph)
    _both("vjp", two_outputs, [(3,), (3,)], [(3,), ()], create_graph=create_graph)
    _both("vjp", pow_reducer, [(2, 2)], None, create_graph=create_graph)  # v=None: scalar out


@pytest.mark.parametrize("create_graph", [False, True])
def test_jvp_double_backward_trick(create_graph):
    e, t = _both("jvp", exp_reducer, [(4, 3)], [(4, 3)], create_graph=create_graph)
    if create_graph:  # the double-backward trick leaves torch's grad_fn names
        assert type(e[1].grad_fn).__name__ == type(t[1].grad_fn).__name__ == "SqueezeBackward1"
    _both("jvp", adder, [(2,), (2,)], [(2,), (2,)], create_graph=create_graph)
    _both("jvp", two_outputs, [(3,), (3,)], [(3,), (3,)], create_graph=create_graph)
    _both("jvp", lambda lib, x: x * 3, [(1,)], None, create_graph=create_graph)


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("vectorize", [False, True])
def test_jacobian(create_graph, vectorize):
    kw = dict(create_graph=create_graph, vectorize=vectorize)
    _both("jacobian", exp_reducer, [(2, 3)], **kw)
    _both("jacobian", adder, [(2,), (2,)], **kw)
    _both("jacobian", two_outputs, [(3,), (3,)], **kw)
    _both("jacobian", lambda lib, x: (x * 2, x.sum()), [(2, 2)], **kw)
    # an output independent of an input: zeros of the input's shape
    _both("jacobian", lambda lib, x, y: x.exp(), [(3,), (2, 2)], **kw)
    # a constant output: zeros, not requiring grad
    _both("jacobian", lambda lib, x: lib.ones(2, dtype=lib.float64), [(3,)], **kw)


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("vectorize", [False, True])
def test_hessian(create_graph, vectorize):
    kw = dict(create_graph=create_graph, vectorize=vectorize)
    _both("hessian", pow_reducer, [(2, 2)], **kw)
    _both("hessian", pow_adder, [(2,), (3,)], **kw)
    _both("hessian", lambda lib, x: (x.sin() * x).sum().reshape(1, 1), [(3,)], **kw)


def test_hessian_of_mlp_loss():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((5, 3))
    y = rng.standard_normal((5, 2))
    w1, b1 = rng.standard_normal((4, 3)), rng.standard_normal(4)
    w2, b2 = rng.standard_normal((2, 4)), rng.standard_normal(2)

    def loss(lib):
        xs, ys = lib.tensor(x), lib.tensor(y)

        def f(w1, b1, w2, b2):
            h = lib.tanh(xs @ w1.t() + b1)
            return ((h @ w2.t() + b2 - ys) ** 2).mean()
        return f

    params_e = tuple(ember.tensor(a) for a in (w1, b1, w2, b2))
    params_t = tuple(torch.tensor(a) for a in (w1, b1, w2, b2))
    he = EF.hessian(loss(ember), params_e)
    ht = TF.hessian(loss(torch), params_t)
    _same(he, ht, tol=1e-10)
    assert tuple(he[0][2].shape) == (4, 3, 2, 4)
    # hvp / vhp of the same loss
    v = tuple(np.ones(p.shape) * 0.1 for p in (w1, b1, w2, b2))
    _same(EF.hvp(loss(ember), params_e, tuple(ember.tensor(a) for a in v)),
          TF.hvp(loss(torch), params_t, tuple(torch.tensor(a) for a in v)), tol=1e-10)
    _same(EF.vhp(loss(ember), params_e, tuple(ember.tensor(a) for a in v)),
          TF.vhp(loss(torch), params_t, tuple(torch.tensor(a) for a in v)), tol=1e-10)


@pytest.mark.parametrize("fn_name", ["vhp", "hvp"])
@pytest.mark.parametrize("create_graph", [False, True])
def test_vhp_hvp(fn_name, create_graph):
    _both(fn_name, pow_reducer, [(2, 2)], [(2, 2)], create_graph=create_graph)
    _both(fn_name, pow_adder, [(2,), (3,)], [(2,), (3,)], create_graph=create_graph)
    _both(fn_name, lambda lib, x: x.pow(3).sum(), [(1,)], None, create_graph=create_graph)
    _both(fn_name, lambda lib, x, y: (x.pow(2)).sum(), [(2,), (3,)], [(2,), (3,)],
          create_graph=create_graph)  # y unused: zeros


def test_create_graph_keeps_the_graph_to_user_inputs():
    xe = ember.tensor([0.5, 1.5], dtype=ember.float64, requires_grad=True)
    xt = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
    je = EF.jacobian(lambda x: x.pow(3), xe, create_graph=True)
    jt = TF.jacobian(lambda x: x.pow(3), xt, create_graph=True)
    je.sum().backward()
    jt.sum().backward()
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy())
    # without create_graph the results are detached
    assert not EF.jacobian(lambda x: x.pow(3), xe).requires_grad


def _fn(body):
    return lambda lib: (lambda *a: body(lib, *a))


STRICT_CASES = [
    # output independent of the input / not requiring grad
    ("vjp", _fn(lambda lib, x: lib.ones(2, dtype=lib.float64)), [1.0, 2.0], [1.0, 1.0]),
    ("jvp", _fn(lambda lib, x: lib.ones(2, dtype=lib.float64)), [1.0, 2.0], [1.0, 1.0]),
    ("jacobian", _fn(lambda lib, x: lib.ones(2, dtype=lib.float64)), [1.0, 2.0], None),
    ("vhp", _fn(lambda lib, x: x.detach().sum()), [1.0, 2.0], [1.0, 1.0]),
    # one input unused
    ("vjp", _fn(lambda lib, x, y: x * 2), ([1.0, 2.0], [3.0]), [1.0, 1.0]),
    ("jacobian", _fn(lambda lib, x, y: x * 2), ([1.0, 2.0], [3.0]), None),
    # linear function: the jacobian does not depend on the input
    ("hessian", _fn(lambda lib, x: (x * 2).sum()), [1.0, 2.0], None),
    ("vhp", _fn(lambda lib, x: (x * 2).sum()), [1.0, 2.0], [1.0, 1.0]),
    ("hvp", _fn(lambda lib, x: (x * 2).sum()), [1.0, 2.0], [1.0, 1.0]),
    # quadratic in x, y unused: the hessian w.r.t. y is missing
    ("vhp", _fn(lambda lib, x, y: (x * x).sum() + 0 * y.sum()), ([1.0, 2.0], [3.0]),
     ([1.0, 1.0], [1.0])),
    ("hvp", _fn(lambda lib, x, y: (x * x).sum() + y.sum()), ([1.0, 2.0], [3.0]),
     ([1.0, 1.0], [1.0])),
    ("jvp", _fn(lambda lib, x: x.detach() * 2 + 0 * x), [1.0, 2.0], [1.0, 1.0]),
]


def _run_both(fn, make_func, inp, v, **kw):
    out = []
    for lib, F in ((ember, EF), (torch, TF)):
        def conv(x):
            if isinstance(x, tuple):
                return tuple(lib.tensor(a, dtype=lib.float64) for a in x)
            return lib.tensor(x, dtype=lib.float64)
        args = [make_func(lib), conv(inp)] + ([] if v is None else [conv(v)])
        try:
            res = getattr(F, fn)(*args, **kw)
        except Exception as e:  # noqa: BLE001 - compared below
            out.append((type(e), str(e).replace("torch.", "ember.")))
        else:
            out.append(("ok", res))
    return out


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("case", range(len(STRICT_CASES)))
def test_strict_errors_as_torch(case, create_graph):
    fn, make_func, inp, v = STRICT_CASES[case]
    e, t = _run_both(fn, make_func, inp, v, strict=True, create_graph=create_graph)
    if t[0] == "ok":  # only the jvp case with a constant part passes without create_graph
        assert (case, create_graph) == (len(STRICT_CASES) - 1, False)
        assert e[0] == "ok"
        _same(e[1], t[1])
    else:
        assert t[0] is RuntimeError, t
        assert e == t
    # without strict: zeros where the dependency is missing, as torch
    e, t = _run_both(fn, make_func, inp, v, create_graph=create_graph)
    assert e[0] == t[0] == "ok"
    _same(e[1], t[1])


def test_strict_texts_spot_checks():
    with pytest.raises(RuntimeError, match=r"^Output 0 of the user-provided function does not "
                       r"require gradients\. The outputs must be computed"):
        EF.vjp(lambda x: ember.ones(2), ember.ones(2), ember.ones(2), strict=True)
    with pytest.raises(RuntimeError, match=r"^While computing the hessian, found that the "
                       r"jacobian of the user-provided function with respect to input 0"):
        EF.hessian(lambda x: (2 * x).sum(), ember.ones(2), strict=True)


V_ERROR_CASES = [
    ("vjp", _fn(lambda lib, x: x * 2), [1.0, 2.0], None),            # v None, 2 outputs
    ("vjp", _fn(lambda lib, x: x * 2), [1.0, 2.0], [1.0, 2.0, 3.0]),  # wrong size
    ("vjp", _fn(lambda lib, x: (x, x)), [1.0, 2.0], ([1.0, 2.0],)),   # wrong tuple length
    ("vjp", _fn(lambda lib, x: (x, x)), [1.0, 2.0], ([1.0, 2.0], [1.0])),  # entry size
    ("vjp", _fn(lambda lib, x: x), [1.0, 2.0], ([1.0, 2.0], [1.0, 1.0])),  # not a tuple
    ("jvp", _fn(lambda lib, x: x * 2), [1.0, 2.0], None),
    ("jvp", _fn(lambda lib, x, y: x * y), ([1.0, 2.0], [1.0, 2.0]), ([1.0, 2.0],)),
    ("hvp", _fn(lambda lib, x: x.sum()), [1.0, 2.0], None),
    ("vhp", _fn(lambda lib, x: x * 2), [1.0, 2.0], [1.0, 1.0]),   # not a scalar
    ("hvp", _fn(lambda lib, x: (x.sum(), x.sum())), [1.0, 2.0], [1.0, 1.0]),  # a tuple
    ("hessian", _fn(lambda lib, x: x * x), [1.0, 2.0], None),
    ("hessian", _fn(lambda lib, x: (x.sum(),)), [1.0, 2.0], None),
    ("jacobian", _fn(lambda lib, x: [x]), [1.0, 2.0], None),      # a list output
    ("jacobian", _fn(lambda lib, x: (x, 3)), [1.0, 2.0], None),   # a non-Tensor in a tuple
]


@pytest.mark.parametrize("case", range(len(V_ERROR_CASES)))
def test_argument_errors_as_torch(case):
    fn, make_func, inp, v = V_ERROR_CASES[case]
    e, t = _run_both(fn, make_func, inp, v)
    assert t[0] in (RuntimeError, TypeError), t
    # torch prints `<class 'torch.Tensor'>` / `<class 'list'>`: compare up to the class path
    assert e[0] == t[0]
    assert e[1].split(" has type ")[0] == t[1].split(" has type ")[0]


def test_input_type_errors():
    with pytest.raises(TypeError, match=r"^The inputs given to jacobian must be either a Tensor or "
                       r"a tuple of Tensors but the given inputs has type <class 'list'>\.$"):
        EF.jacobian(lambda x: x, [ember.ones(2)])
    with pytest.raises(TypeError, match=r"but the value at index 1 has type <class 'int'>\.$"):
        EF.vjp(lambda x, y: x, (ember.ones(2), 3))


def test_vectorize_strict_and_forward_mode():
    x = ember.ones(2)
    with pytest.raises(RuntimeError, match=r"^ember\.autograd\.functional\.jacobian: `strict=True` "
                       r"and `vectorized=True` are not supported together\."):
        EF.jacobian(lambda x: x * 2, x, strict=True, vectorize=True)
    with pytest.raises(NotImplementedError, match="needs forward-mode AD, which ember does not "
                       "have"):
        EF.jacobian(lambda x: x * 2, x, vectorize=True, strategy="forward-mode")
    with pytest.raises(NotImplementedError, match="needs forward-mode AD"):
        EF.hessian(lambda x: x.pow(3).sum(), x, vectorize=True,
                   outer_jacobian_strategy="forward-mode")
    # the checks torch makes before forward AD, with torch's texts
    for kw in ({"create_graph": True}, {"strict": True}, {}):
        e, t = _run_both("jacobian", _fn(lambda lib, x: x * 2), [1.0, 2.0], None,
                         strategy="forward-mode", **kw)
        assert e == t
    with pytest.raises(AssertionError, match='Expected strategy to be either "forward-mode" or '
                       '"reverse-mode"'):
        EF.jacobian(lambda x: x, x, strategy="sideways")


def test_float32_inputs_keep_their_dtype():
    xe = ember.tensor([[0.5, -1.0], [2.0, 0.25]])
    xt = torch.tensor([[0.5, -1.0], [2.0, 0.25]])
    _same(EF.hessian(lambda x: (x.sin() * x).sum(), xe),
          TF.hessian(lambda x: (x.sin() * x).sum(), xt), tol=1e-6)
    _same(EF.jvp(lambda x: x.exp(), xe, ember.ones(2, 2)),
          TF.jvp(lambda x: x.exp(), xt, torch.ones(2, 2)), tol=1e-6)
