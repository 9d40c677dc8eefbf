"""CPU autocast on models against torch 1.13: a small CNN + MLP with a loss under
`autocast("cpu")` (same weights in both) gives torch's output dtypes and values to bfloat16
tolerance, gradients in the parameters' dtype equal to torch's; the weight cast cache (one cast
of a weight per region, dropped when the outermost region exits); what torch_dispatch and
torch_function modes see inside a region; what a wrapper subclass's torch_dispatch sees."""
import numpy as np
import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

import ember
from ember.overrides import TorchFunctionMode as ETorchFunctionMode
from ember.utils._python_dispatch import TorchDispatchMode as ETorchDispatchMode


def build(lib):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(2, 4, 3, padding=1)
            self.bn = nn.BatchNorm2d(4)
            self.fc1 = nn.Linear(4 * 3 * 3, 8)
            self.fc2 = nn.Linear(8, 3)

        def forward(self, x):
            x = nn.functional.max_pool2d(nn.functional.relu(self.bn(self.conv(x))), 2)
            x = lib.flatten(x, 1)
            x = nn.functional.gelu(self.fc1(x))
            return self.fc2(x) + self.fc1.bias.sum()   # the weight cache: fc1's cast reused

    return Net()


def pair():
    torch.manual_seed(0)
    tm = build(torch)
    em = build(ember)
    em.load_state_dict({k: ember.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    x = np.random.RandomState(0).standard_normal((5, 2, 6, 6)).astype(np.float32)
    y = np.array([0, 2, 1, 1, 0])
    return tm, em, x, y


def step(lib, model, x, y):
    xt = lib.tensor(x)
    with lib.autocast("cpu"):
        out = model(xt)
        loss = lib.nn.functional.cross_entropy(out, lib.tensor(y))
    loss.backward()
    grads = {n: p.grad for n, p in model.named_parameters()}
    return out, loss, grads


def test_model_forward_backward_matches_torch():
    tm, em, x, y = pair()
    for train in (True, False):
        tm.train(train)
        em.train(train)
        tm.zero_grad()
        em.zero_grad()
        to, tl, tg = step(torch, tm, x, y)
        eo, el, eg = step(ember, em, x, y)
        assert str(eo.dtype) == "ember.bfloat16" and str(to.dtype) == "torch.bfloat16"
        assert str(el.dtype) == "ember.float32" and str(tl.dtype) == "torch.float32"
        np.testing.assert_allclose(eo.float().detach().numpy(), to.float().detach().numpy(), rtol=0.05, atol=0.05)
        np.testing.assert_allclose(el.item(), tl.item(), rtol=0.02)
        for name, g in tg.items():
            assert str(eg[name].dtype) == "ember.float32" == str(g.dtype).replace("torch", "ember")
            np.testing.assert_allclose(eg[name].numpy(), g.numpy(), rtol=0.1, atol=0.02, err_msg=name)


def test_grad_fn_chain_has_the_casts():
    for lib in (torch, ember):
        fc = lib.nn.Linear(3, 2)
        with lib.autocast("cpu"):
            out = fc(lib.ones(4, 3))
        names = sorted(type(n).__name__ for n, _ in out.grad_fn.next_functions if n is not None)
        assert out.grad_fn.name() == "AddmmBackward0"
        assert names == ["TBackward0", "ToCopyBackward0"]


def _dispatch_log(lib, Mode, fn):
    seen = []

    class Log(Mode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append((str(func), lib.is_autocast_cpu_enabled()))
            return func(*args, **(kwargs or {}))

    with lib.autocast("cpu"):
        with Log():
            fn()
    return seen


def test_dispatch_mode_sees_the_casts_and_the_cache():
    def run(lib, Mode):
        fc = lib.nn.Linear(3, 3)
        a, b = lib.ones(3, 3), lib.ones(3, 3)

        def body():
            lib.mm(a, b)
            fc(a)
            fc(a)            # the weight and bias casts are cached now
            lib.mm(fc.weight, fc.weight)
            lib.cat([a, b.bfloat16()])
            a + b
        return _dispatch_log(lib, Mode, body)

    got = run(ember, ETorchDispatchMode)
    want = run(torch, TorchDispatchMode)
    assert [f for f, _ in got] == [f for f, _ in want]
    assert all(not on for _, on in got) and all(not on for _, on in want)


def test_function_mode_sees_the_public_ops_only():
    def run(lib, Mode):
        seen = []

        class Log(Mode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                seen.append(func.__name__)
                return func(*args, **(kwargs or {}))

        fc = lib.nn.Linear(3, 3)
        with lib.autocast("cpu"):
            with Log():
                r = lib.mm(lib.ones(2, 3), fc.weight)
                fc(lib.ones(2, 3))
        return seen, str(r.dtype).split(".")[1]

    got, want = run(ember, ETorchFunctionMode), run(torch, TorchFunctionMode)
    assert got[1] == want[1] == "bfloat16"
    assert [n for n in got[0] if n in ("mm", "linear", "to", "_to_copy")] == \
        [n for n in want[0] if n in ("mm", "linear", "to", "_to_copy")] == ["mm", "linear"]


def test_cache_is_dropped_when_the_outermost_region_exits():
    def casts(lib, fn):
        n = []

        class Count(ETorchDispatchMode if lib is ember else TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                if "_to_copy" in str(func):
                    n.append(1)
                return func(*args, **(kwargs or {}))
        with Count():
            fn()
        return len(n)

    for lib in (torch, ember):
        w = lib.nn.Parameter(lib.ones(2, 2))
        x = lib.ones(2, 2)
        with lib.autocast("cpu"):
            assert casts(lib, lambda: lib.mm(x, w)) == 2
            with lib.autocast("cpu"):
                assert casts(lib, lambda: lib.mm(x, w)) == 1       # w's cast is cached
            assert casts(lib, lambda: lib.mm(x, w)) == 1           # an inner exit keeps it
            lib.clear_autocast_cache()
            assert casts(lib, lambda: lib.mm(x, w)) == 2
        with lib.autocast("cpu"):
            assert casts(lib, lambda: lib.mm(x, w)) == 2           # the outermost exit cleared it
        with lib.autocast("cpu", cache_enabled=False):
            assert casts(lib, lambda: lib.mm(w, w)) == 2
        with lib.autocast("cpu"):
            with lib.no_grad():
                assert casts(lib, lambda: lib.mm(w, w)) == 1       # still a leaf that requires grad
            v = w.detach()
            assert casts(lib, lambda: lib.mm(v, v)) == 2           # no grad: not cached


def test_double_integer_and_meta_tensors_are_not_cast():
    for lib in (torch, ember):
        with lib.autocast("cpu"):
            assert lib.mm(lib.ones(2, 2, dtype=lib.float64), lib.ones(2, 2, dtype=lib.float64)).dtype == lib.float64
            assert lib.mm(lib.ones(2, 2, dtype=lib.int64), lib.ones(2, 2, dtype=lib.int64)).dtype == lib.int64
            m = lib.empty(2, 2, device="meta")
            assert lib.mm(m, m).dtype == lib.float32
            assert lib.mm(lib.ones(2, 2).half(), lib.ones(2, 2)).dtype == lib.bfloat16
            assert (lib.ones(2) + lib.ones(2)).dtype == lib.float32           # off the lists


def test_composites_off_the_lists_autocast_their_parts():
    """einsum, tensordot and multi_dot are not on the lists, but the mm / bmm they run is; mv,
    dot, vdot and matrix_exp are ops of their own in torch and stay in their inputs' dtype."""
    for lib in (torch, ember):
        a, b = lib.ones(3, 3), lib.ones(3, 3)
        with lib.autocast("cpu"):
            assert lib.einsum("ij,jk->ik", a, b).dtype == lib.bfloat16
            assert lib.tensordot(a, b, 1).dtype == lib.bfloat16
            assert lib.linalg.multi_dot([a, b, a]).dtype == lib.bfloat16
            assert lib.nn.functional.prelu(a, lib.tensor([0.25])).dtype == lib.float32
            assert lib.mv(a, b[0]).dtype == lib.float32
            assert lib.dot(a[0], b[0]).dtype == lib.float32 and a[0].dot(b[0]).dtype == lib.float32
            assert lib.vdot(a[0], b[0]).dtype == lib.float32
            assert lib.matrix_exp(a).dtype == lib.float32
            assert lib.matrix_power(a, 2).dtype == lib.bfloat16
            assert lib.inner(a, b).dtype == lib.bfloat16


def test_wrapper_subclass_sees_the_casts():
    """A wrapper subclass's __torch_dispatch__ gets autocast's `_to_copy` of itself, then the op,
    with autocast off in the handler, as in torch."""
    def run(L):
        from importlib import import_module
        tree_map = import_module(L.__name__ + ".utils._pytree").tree_map
        log = []

        class W(L.Tensor):
            @staticmethod
            def __new__(cls, elem):
                return L.Tensor._make_wrapper_subclass(cls, elem.size(), dtype=elem.dtype, device=elem.device)

            def __init__(self, elem):
                self.elem = elem

            @classmethod
            def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
                log.append((str(func), L.is_autocast_cpu_enabled()))
                out = func(*tree_map(lambda x: x.elem if isinstance(x, W) else x, args), **(kwargs or {}))
                return tree_map(lambda x: W(x) if isinstance(x, L.Tensor) and not isinstance(x, W) else x, out)

        a = W(L.ones(2, 2))
        with L.autocast("cpu"):
            r = L.mm(a, a)
            s = a + a
        return log, type(r).__name__, str(r.dtype).split(".")[1], str(s.dtype).split(".")[1]

    assert run(ember) == run(torch) == (
        [("aten._to_copy.default", False), ("aten._to_copy.default", False), ("aten.mm.default", False),
         ("aten.add.Tensor", False)], "W", "bfloat16", "float32")


def test_recurrent_layers_match_torch():
    """nn.RNN steps through linear (bfloat16 under autocast, as torch 1.13's SimpleCell);
    LSTM and GRU stay float32 as in torch 1.13."""
    x = np.random.RandomState(1).standard_normal((4, 2, 3)).astype(np.float32)
    for name in ("RNN", "LSTM", "GRU"):
        torch.manual_seed(0)
        tm = getattr(torch.nn, name)(3, 5)
        em = getattr(ember.nn, name)(3, 5)
        em.load_state_dict({k: ember.tensor(v.numpy()) for k, v in tm.state_dict().items()})
        with torch.autocast("cpu"):
            to = tm(torch.tensor(x))[0]
        with ember.autocast("cpu"):
            eo = em(ember.tensor(x))[0]
        assert str(eo.dtype).split(".")[1] == str(to.dtype).split(".")[1], name
        np.testing.assert_allclose(eo.float().detach().numpy(), to.float().detach().numpy(), rtol=0.03, atol=0.03)
