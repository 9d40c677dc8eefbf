"""prepare's observer hooks are C++ hooks (they fire whoever calls the module), and Python sees
them where torch 1.13 puts its own: `_forward_hooks` lists `_observer_forward_hook` (first, before
the user's hooks) and `_forward_pre_hooks` lists `_observer_forward_pre_hook` for memoryless
observers; entries can be deleted (Note [C++ hooks seen from Python])."""
import pytest

torch = pytest.importorskip("torch")
import importlib  # noqa: E402

import torch.ao.quantization as tq  # noqa: E402

import ember  # noqa: E402
import ember.ao.quantization as eq  # noqa: E402

# the modules (the packages' `quantize` attribute is the function)
tqq = importlib.import_module("torch.ao.quantization.quantize")
eqq = importlib.import_module("ember.ao.quantization.quantize")


def model(lib, q):
    return lib.nn.Sequential(q.QuantStub(), lib.nn.Conv2d(3, 4, 1), lib.nn.ReLU(),
                             lib.nn.Sequential(lib.nn.Conv2d(4, 2, 1)), q.DeQuantStub())


def hook_names(m):
    return {n: [getattr(h, "__name__", type(h).__name__) for h in mod._forward_hooks.values()]
            for n, mod in m.named_modules()}


def pre_hook_names(m):
    return {n: [getattr(h, "__name__", type(h).__name__) for h in mod._forward_pre_hooks.values()]
            for n, mod in m.named_modules()}


def prepared_pair(memoryless=False, user_hook=None):
    out = []
    for lib, q in ((torch, tq), (ember, eq)):
        m = model(lib, q).eval()
        if memoryless:
            m.qconfig = q.QConfig(
                activation=q.MovingAverageMinMaxObserver.with_args(averaging_constant=1),
                weight=q.default_weight_observer)
        else:
            m.qconfig = q.default_qconfig
        if user_hook:
            m[1].register_forward_hook(user_hook)
        q.prepare(m, inplace=True)
        out.append(m)
    return out


def test_forward_hooks_list_the_observer_hook_as_torch():
    t, e = prepared_pair()
    assert hook_names(e) == hook_names(t)
    assert hook_names(e)["1"] == ["_observer_forward_hook"]
    assert next(iter(e[1]._forward_hooks.values())) is eqq._observer_forward_hook
    assert next(iter(t[1]._forward_hooks.values())) is tqq._observer_forward_hook
    assert pre_hook_names(e) == pre_hook_names(t)


def test_observer_hook_comes_before_the_users_hooks():
    calls = []
    t, e = prepared_pair(user_hook=lambda m, i, o: calls.append(1))
    assert hook_names(e)["1"] == hook_names(t)["1"] == ["_observer_forward_hook", "<lambda>"]
    e(ember.rand(1, 3, 4, 4))
    assert calls == [1]


def test_pre_hook_form_for_memoryless_observers():
    t, e = prepared_pair(memoryless=True)
    assert pre_hook_names(e) == pre_hook_names(t)
    assert pre_hook_names(e)["1"] == ["_observer_forward_pre_hook"]
    assert next(iter(e[1]._forward_pre_hooks.values())) is eqq._observer_forward_pre_hook
    assert hook_names(e) == hook_names(t)


def test_hooks_still_fire_from_cpp_parents_after_reading_them():
    _, e = prepared_pair()
    assert len(e[3][0]._forward_hooks) == 1  # read through the Python view
    e(ember.rand(1, 3, 4, 4))  # the inner Sequential (C++) calls its Conv2d
    assert float(e[3][0].activation_post_process.max_val) > float("-inf")


@pytest.mark.parametrize("how", ["del", "pop", "popitem", "clear"])
def test_removing_the_observer_hook(how):
    _, e = prepared_pair()
    conv = e[3][0]
    hooks = conv._forward_hooks
    key = next(iter(hooks))
    if how == "del":
        del conv._forward_hooks[key]
    elif how == "pop":
        assert conv._forward_hooks.pop(key) is eqq._observer_forward_hook
    elif how == "popitem":
        assert conv._forward_hooks.popitem(last=False) == (key, eqq._observer_forward_hook)
    else:
        conv._forward_hooks.clear()
    assert len(conv._forward_hooks) == 0
    e(ember.rand(1, 3, 4, 4))
    assert float(conv.activation_post_process.max_val) == float("-inf")  # never observed
    assert float(e[1].activation_post_process.max_val) > float("-inf")   # the others still do
    with pytest.raises(KeyError):
        del conv._forward_hooks[key]


def test_keys_are_stable_between_reads_and_distinct_from_python_handles():
    _, e = prepared_pair()
    handle = e[1].register_forward_hook(lambda m, i, o: None)
    keys = list(e[1]._forward_hooks)
    assert keys == list(e[1]._forward_hooks)
    assert keys[1] == handle.id and keys[0] != handle.id
    handle.remove()
    assert hook_names(e)["1"] == ["_observer_forward_hook"]


def test_convert_drops_the_observer_hooks_and_keeps_the_users():
    calls = []
    t, e = prepared_pair(user_hook=lambda m, i, o: calls.append(1))
    assert len(e[1]._forward_hooks) == 2
    tq.convert(t, inplace=True)
    eq.convert(e, inplace=True)
    assert hook_names(e) == hook_names(t)
    assert hook_names(e)["1"] == ["<lambda>"]


def test_the_listed_observer_hook_runs_the_modules_observer():
    """Called as torch calls it, the listed function passes the output through the observer."""
    _, e = prepared_pair()
    conv = e[3][0]
    fn = next(iter(conv._forward_hooks.values()))
    assert fn is eqq._observer_forward_hook
    x = ember.rand(1, 4, 2, 2)
    out = fn(conv, (x,), x)  # torch's function runs the module's observer
    assert out is not None and float(conv.activation_post_process.max_val) == float(x.max())
