"""ember.autocast / ember.cpu.amp / ember.cuda.amp against torch 1.13: the thread's state and its
setters (argument checks and texts), the context manager and decorator (nesting, enabled=False
regions, cache_enabled), the warnings and errors of unsupported device types and dtypes,
GradScaler and custom_fwd / custom_bwd as a machine without CUDA has them, and the Tensor helpers
_autocast_to_reduced_precision / _autocast_to_full_precision."""
import functools
import warnings

import pytest
import torch

import ember


def ember_text(text):
    return text.replace("torch.", "ember.").replace("Torch not", "ember not").replace("'torch'", "'ember'")


def outcome(fn):
    """(result or exception type + text, [warning texts]) of fn(), for comparison."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = ("ok", fn())
        except Exception as e:  # noqa: BLE001
            r = (type(e).__name__, str(e))
    return r, [str(x.message) for x in w if issubclass(x.category, UserWarning)]


def same(fn_torch, fn_ember):
    (rt, wt), (re_, we) = outcome(fn_torch), outcome(fn_ember)
    if rt[0] == "ok":
        assert re_[0] == "ok", re_
    else:
        assert re_ == (rt[0], ember_text(rt[1]))
    assert we == [ember_text(x) for x in wt]
    return rt, re_


STATE = ["is_autocast_enabled", "is_autocast_cpu_enabled", "get_autocast_cpu_dtype",
         "get_autocast_gpu_dtype", "is_autocast_cache_enabled"]


def state(lib):
    return [str(getattr(lib, n)()).replace("torch.", "").replace("ember.", "") for n in STATE]


def test_default_state_is_torchs():
    assert state(ember) == state(torch) == ["False", "False", "bfloat16", "float16", "True"]


def test_region_sets_and_restores_the_state():
    for lib in (torch, ember):
        with lib.autocast("cpu"):
            inside = state(lib)
            with lib.autocast("cpu", enabled=False, cache_enabled=False):
                disabled = state(lib)
            assert state(lib) == inside
        assert state(lib) == ["False", "False", "bfloat16", "float16", "True"]
        assert inside == ["False", "True", "bfloat16", "float16", "True"]
        assert disabled == ["False", "False", "bfloat16", "float16", "False"]


def test_region_exits_on_exception():
    with pytest.raises(ValueError):
        with ember.autocast("cpu"):
            raise ValueError("x")
    assert not ember.is_autocast_cpu_enabled()
    assert ember.autocast_increment_nesting() == 1
    assert ember.autocast_decrement_nesting() == 0


def test_nesting_counts_like_torch():
    for lib in (torch, ember):
        seq = [lib.autocast_increment_nesting(), lib.autocast_increment_nesting(),
               lib.autocast_decrement_nesting(), lib.autocast_decrement_nesting(),
               lib.autocast_decrement_nesting(), lib.autocast_increment_nesting()]
        assert seq == [1, 2, 1, 0, -1, 0]


@pytest.mark.parametrize("call", [
    lambda L: L.autocast("cuda"),
    lambda L: L.autocast("cuda", enabled=False),
    lambda L: L.autocast("cuda", dtype=L.bfloat16),
    lambda L: L.autocast("cpu", dtype=L.float16),
    lambda L: L.autocast("cpu", dtype=L.float32),
    lambda L: L.autocast("cpu", dtype=L.bfloat16),
    lambda L: L.autocast("xla"),
    lambda L: L.autocast("cpu", dtype=3),
    lambda L: L.cuda.amp.autocast(),
    lambda L: L.cpu.amp.autocast(dtype=L.float16),
])
def test_construction_and_entry_warnings_and_errors(call):
    def enter(L):
        def run():
            ac = call(L)
            with ac:
                inside = (L.is_autocast_cpu_enabled(), L.is_autocast_enabled())
            return inside, ac._enabled, str(ac.fast_dtype).split(".")[-1]
        return run
    rt, re_ = same(enter(torch), enter(ember))
    assert rt == re_ or rt[0] != "ok"
    assert not ember.is_autocast_cpu_enabled()


def test_xpu_device_type_is_unknown_attribute():
    same(lambda: torch.autocast("xpu"), lambda: ember.autocast("xpu"))


@pytest.mark.parametrize("name,arg", [
    ("set_autocast_cpu_enabled", 1), ("set_autocast_cpu_enabled", None), ("set_autocast_enabled", "a"),
    ("set_autocast_cache_enabled", 1), ("set_autocast_cpu_dtype", 3), ("set_autocast_gpu_dtype", "x"),
    ("set_autocast_cpu_dtype", "float16"), ("set_autocast_gpu_dtype", "float32"),
])
def test_setter_argument_checks(name, arg):
    def call(L):
        a = getattr(L, arg) if arg in ("float16", "float32") else arg
        return lambda: getattr(L, name)(a)
    same(call(torch), call(ember))
    ember.set_autocast_gpu_dtype(ember.float16)
    torch.set_autocast_gpu_dtype(torch.float16)


@pytest.mark.parametrize("name", ["is_autocast_enabled", "clear_autocast_cache", "autocast_increment_nesting",
                                  "get_autocast_cpu_dtype"])
def test_no_argument_functions_refuse_arguments(name):
    same(lambda: getattr(torch, name)(1), lambda: getattr(ember, name)(1))


def test_setters_missing_argument():
    same(lambda: torch.set_autocast_cpu_enabled(), lambda: ember.set_autocast_cpu_enabled())


def test_decorator_runs_inside_a_region():
    for lib in (torch, ember):
        @lib.autocast("cpu")
        def f(a, b):
            """doc"""
            return lib.mm(a, b), lib.is_autocast_cpu_enabled()

        out, on = f(lib.ones(2, 2), lib.ones(2, 2))
        assert on and out.dtype == lib.bfloat16 and not lib.is_autocast_cpu_enabled()
        assert f.__name__ == "f" and f.__doc__ == "doc"
        assert f.__script_unsupported == '@autocast() decorator is not supported in script mode'

        @lib.cpu.amp.autocast(enabled=False)
        def g():
            return lib.is_autocast_cpu_enabled()
        with lib.autocast("cpu"):
            assert g() is False and lib.is_autocast_cpu_enabled()


def test_module_names_are_torchs():
    public = lambda m: sorted(n for n in dir(m) if not n.startswith("__"))  # noqa: E731
    assert public(ember.amp) == public(torch.amp)
    assert public(ember.cpu.amp) == public(torch.cpu.amp)
    assert public(ember.cuda.amp) == public(torch.cuda.amp)
    assert ember.autocast is ember.amp.autocast_mode.autocast
    assert issubclass(ember.cpu.amp.autocast, ember.autocast) and issubclass(ember.cuda.amp.autocast, ember.autocast)
    assert ember.amp.autocast_mode.__all__ == torch.amp.autocast_mode.__all__
    assert ember.cuda.amp.grad_scaler.__all__ == torch.cuda.amp.grad_scaler.__all__
    for name in ["is_autocast_enabled", "set_autocast_enabled", "get_autocast_gpu_dtype", "set_autocast_gpu_dtype",
                 "is_autocast_cpu_enabled", "set_autocast_cpu_enabled", "get_autocast_cpu_dtype",
                 "set_autocast_cpu_dtype", "is_autocast_cache_enabled", "set_autocast_cache_enabled",
                 "clear_autocast_cache", "autocast_increment_nesting", "autocast_decrement_nesting"]:
        assert callable(getattr(ember, name)) and callable(getattr(torch, name))


def test_cpu_and_cuda_amp_defaults():
    for lib in (torch, ember):
        ac = lib.cpu.amp.autocast()
        assert (ac.device, ac.fast_dtype, ac._enabled, ac._cache_enabled) == ("cpu", lib.bfloat16, True, True)
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            cu = lib.cuda.amp.autocast()
        assert (cu.device, cu.fast_dtype, cu._enabled) == ("cuda", lib.float16, False)


def test_grad_scaler_without_cuda():
    def run(L):
        def go():
            s = L.cuda.amp.GradScaler()
            p = L.nn.Parameter(L.ones(2))
            opt = L.optim.SGD([p], lr=0.5)
            loss = (p * 3).sum()
            scaled = s.scale(loss)
            scaled.backward()
            s.unscale_(opt)
            r = s.step(opt)
            s.update()
            s.load_state_dict({})
            return (scaled is loss, r, p.tolist(), s.is_enabled(), s.get_scale(), s.state_dict(),
                    s._get_growth_tracker(), s.scale([loss])[0] is loss)
        return go
    rt, re_ = same(run(torch), run(ember))
    assert rt == re_ == ("ok", (True, None, [-0.5, -0.5], False, 1.0, {}, 0, True))
    same(lambda: torch.cuda.amp.GradScaler(enabled=False).get_growth_factor(),
         lambda: ember.cuda.amp.GradScaler(enabled=False).get_growth_factor())
    assert ember.cuda.amp.GradScaler(enabled=False).is_enabled() is False
    assert [m.name for m in ember.cuda.amp.grad_scaler.OptState] == ["READY", "UNSCALED", "STEPPED"]


def test_custom_fwd_and_bwd_follow_cuda_autocast_state():
    def run(L):
        class MyMM(L.autograd.Function):
            @staticmethod
            @L.cuda.amp.custom_fwd(cast_inputs=L.float32)
            def forward(ctx, a, b):
                ctx.save_for_backward(a, b)
                return a.mm(b)

            @staticmethod
            @L.cuda.amp.custom_bwd
            def backward(ctx, grad):
                a, b = ctx.saved_tensors
                return grad.mm(b.t()), a.t().mm(grad)

        class Plain(L.autograd.Function):
            @staticmethod
            @L.cuda.amp.custom_fwd
            def forward(ctx, a):
                return a * 2

            @staticmethod
            @L.cuda.amp.custom_bwd
            def backward(ctx, g):
                return g * 2

        def go():
            a = L.ones(2, 2, requires_grad=True)
            with L.autocast("cpu"):
                y = MyMM.apply(a, L.ones(2, 2))
                z = Plain.apply(a)
            (y.float().sum() + z.sum()).backward()
            return str(y.dtype), str(z.dtype), str(a.grad.dtype), a.grad.tolist(), y.grad_fn._fwd_used_autocast
        return go
    rt, re_ = same(run(torch), run(ember))
    assert [str(x).replace("torch.", "ember.") for x in rt[1]] == [str(x) for x in re_[1]]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64"])
@pytest.mark.parametrize("flags", [(True, True), (False, True), (True, False), (False, False)])
def test_reduced_and_full_precision_helpers(dtype, flags):
    results = []
    for lib in (torch, ember):
        x = lib.ones(3, dtype=getattr(lib, dtype))
        r = x._autocast_to_reduced_precision(flags[0], flags[1], lib.float16, lib.bfloat16)
        f = x._autocast_to_full_precision(*flags)
        results.append((str(r.dtype).split(".")[1], r is x, str(f.dtype).split(".")[1], f is x))
    assert results[0] == results[1]


def test_state_is_thread_local():
    import threading
    for lib in (torch, ember):
        seen = []

        def worker():
            seen.append((lib.is_autocast_cpu_enabled(), lib.mm(lib.ones(2, 2), lib.ones(2, 2)).dtype))

        with lib.autocast("cpu"):
            th = threading.Thread(target=worker)
            th.start()
            th.join()
            here = lib.mm(lib.ones(2, 2), lib.ones(2, 2)).dtype
        assert seen == [(False, lib.float32)] and here == lib.bfloat16
