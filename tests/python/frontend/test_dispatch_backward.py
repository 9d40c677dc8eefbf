"""Overrides across backward and across C++ (issue 12): __torch_dispatch__ handlers and
TorchDispatchModes see backward's ops (the gradient of a wrapper is a wrapper), enum-like
arguments cross to Python as PyTorch's objects and round-trip, a TorchFunctionMode sees what C++
layers call, and backward's formulas stay hidden from __torch_function__. Each scenario runs on
ember and on Debian's PyTorch 1.13 and must give the same log."""
from importlib import import_module

import pytest

import ember

torch = pytest.importorskip("torch")


def show(T, x):
    """A printable form of a handler argument, the same for both libraries."""
    if isinstance(x, T.Tensor):
        return type(x).__name__
    if isinstance(x, (list, tuple)):
        return type(x)([show(T, y) for y in x])
    if isinstance(x, dict):
        return {k: show(T, v) for k, v in x.items()}
    return str(x).replace("torch.", "ember.")


def logging_wrapper(T, log):
    tree_map = import_module(f"{T.__name__}.utils._pytree").tree_map

    class LoggingTensor(T.Tensor):
        @staticmethod
        def __new__(cls, elem):
            r = T.Tensor._make_wrapper_subclass(cls, elem.size(), strides=elem.stride(),
                                                dtype=elem.dtype, device=elem.device,
                                                requires_grad=elem.requires_grad)
            r.elem = elem
            return r

        __torch_function__ = T._C._disabled_torch_function_impl

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            log.append(f"{func} {show(T, list(args))} {show(T, kwargs or {})}")

            def unwrap(e):
                return e.elem if isinstance(e, LoggingTensor) else e

            def wrap(e):
                return LoggingTensor(e) if isinstance(e, T.Tensor) else e

            out = func(*tree_map(unwrap, args), **tree_map(unwrap, kwargs or {}))
            return tree_map(wrap, out)

    return LoggingTensor


def logging_mode(T, log, with_kwargs=True):
    TorchDispatchMode = import_module(f"{T.__name__}.utils._python_dispatch").TorchDispatchMode

    class LoggingMode(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            log.append(f"{func} {show(T, kwargs or {})}" if with_kwargs else str(func))
            return func(*args, **(kwargs or {}))

    return LoggingMode()


def values(t):
    return [round(float(v), 5) for v in t.reshape(-1).tolist()]


# ---- 1. __torch_dispatch__ through backward ----

def scenario_wrapper_backward(T):
    log = []
    LoggingTensor = logging_wrapper(T, log)
    x = LoggingTensor(T.tensor([1.0, 2.0, 3.0], requires_grad=True))
    y = (x * 2).sum()
    log.append("-- backward")
    y.backward()
    log.append(f"grad {type(x.grad).__name__} {values(x.grad.elem)}")
    log.append("-- again (accumulates in place)")
    (x * 2).sum().backward()
    log.append(f"grad {type(x.grad).__name__} {values(x.grad.elem)}")
    return log


def scenario_wrapper_backward_saved_output(T):
    log = []
    LoggingTensor = logging_wrapper(T, log)
    x = LoggingTensor(T.tensor([0.5, -1.0], requires_grad=True))
    y = x.exp().sum()
    log.append("-- backward")
    y.backward()
    log.append(f"grad {type(x.grad).__name__} {values(x.grad.elem)}")
    return log


def scenario_mode_backward(T):
    log = []
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with logging_mode(T, log):
        (x * 2).sum().backward()
        log.append("-- second backward accumulates")
        (x * 2).sum().backward()
        log.append("-- exp saves its output")
        x.exp().sum().backward()
    log.append(f"grad {values(x.grad)}")
    return log


def scenario_mode_backward_grad_tensors(T):
    # (PyTorch's Python _make_grads also calls is_same_size on the given gradient: not logged.)
    log = []
    x = T.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    with logging_mode(T, log, with_kwargs=False):
        y = x * x
        y.backward(T.ones(2, 2))
        (g,) = T.autograd.grad((x * 3).sum(), x)
    log.append(f"grad {values(x.grad)} {values(g)}")
    return [line for line in log if line != "aten.is_same_size.default"]


def scenario_mode_backward_retain_grad(T):
    log = []
    x = T.ones(2, requires_grad=True)
    y = x * 2
    y.retain_grad()
    with logging_mode(T, log):
        (y * y).sum().backward()
    log.append(f"grads {values(y.grad)} {values(x.grad)}")
    return log


def scenario_detach(T):
    log = []
    with logging_mode(T, log, with_kwargs=False):
        T.ones(2).detach()
    LoggingTensor = logging_wrapper(T, log)
    w = LoggingTensor(T.ones(2))
    d = w.detach()
    log.append(type(d).__name__)
    return log


# ---- 2. enum-like arguments cross as PyTorch's objects and round-trip ----

def scenario_enum_arguments(T):
    # The memory formats handlers receive (dtype / layout / device: test_handler_receives_...).
    log = []
    TorchDispatchMode = import_module(f"{T.__name__}.utils._python_dispatch").TorchDispatchMode

    class MemoryFormats(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            log.append(f"{func} {show(T, (kwargs or {}).get('memory_format'))}")
            return func(*args, **(kwargs or {}))

    t = T.ones(1, 2, 3, 3)
    with MemoryFormats():
        a = T.empty_like(t, memory_format=T.channels_last)
        b = t.clone(memory_format=T.contiguous_format)
        c = t.contiguous(memory_format=T.channels_last)
        d = t.to(T.float64)
        e = T.ones_like(t, dtype=T.float64, layout=T.strided, device="cpu")
        f = T.zeros_like(t, memory_format=T.preserve_format)
    log.append(f"{a.is_contiguous(memory_format=T.channels_last)} {b.is_contiguous()} "
               f"{c.is_contiguous(memory_format=T.channels_last)} {d.dtype} {e.dtype} "
               f"{values(f.sum())}")
    return [line.replace("torch.", "ember.") for line in log]


def scenario_sized_int_lists(T):
    # int[2] arguments reach handlers with both numbers (a C++ layer's kernel size 2 is [2, 2]),
    # and their defaults ([0, 0] padding, [1, 1] dilation) are left out, as PyTorch's.
    log = []
    TorchDispatchMode = import_module(f"{T.__name__}.utils._python_dispatch").TorchDispatchMode

    class Args(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if "pool" in str(func):
                log.append(f"{func} {show(T, list(args))} {show(T, kwargs or {})}")
            return func(*args, **(kwargs or {}))

    x = T.arange(16.0).reshape(1, 1, 4, 4).requires_grad_()
    with Args():
        T.nn.MaxPool2d(2)(x).sum().backward()
    log.append(str(values(x.grad)))
    return log


# ---- 3. __torch_function__: backward's formulas stay hidden ----

def function_logging_mode(T, log):
    TorchFunctionMode = import_module(f"{T.__name__}.overrides").TorchFunctionMode

    class LoggingFunctionMode(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append(func.__name__)
            return func(*args, **(kwargs or {}))

    return LoggingFunctionMode()


def scenario_function_mode_backward(T):
    log = []
    x = T.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2).sum()
    with function_logging_mode(T, log):
        y.backward()
    log.append(str(values(x.grad)))
    return log


def scenario_function_mode_sees_user_code_in_backward(T):
    # autograd.backward is not overridable: the engine's formulas stay hidden, but the hooks and
    # the custom Function's backward it calls are user code that the mode sees. autograd.grad is
    # overridable: the mode sees grad. (PyTorch's Python _make_grads also reads requires_grad and
    # numel through the mode: not compared.)
    log = []

    class Twice(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g.mul(2)

    x = T.ones(2, requires_grad=True)
    for api in ("backward", "grad"):
        y = Twice.apply(x).exp()
        y.register_hook(lambda g: g.add(1))
        s = y.sum()
        with function_logging_mode(T, log):
            if api == "backward":
                T.autograd.backward(s)
            else:
                T.autograd.grad(s, x)
        log.append("--")
    return [name for name in log if name not in ("__get__", "numel")]


def scenario_function_subclass_backward(T):
    log = []

    class Sub(T.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            log.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs or {})

    x = T.tensor([1.0, 2.0]).as_subclass(Sub).requires_grad_()
    y = (x * 2).sum()
    log.append("-- backward")
    y.backward()
    log.append(f"{type(x.grad).__name__} {values(x.grad)}")
    return log


# ---- 3. a TorchFunctionMode sees the ops C++ layers call ----

def scenario_function_mode_sees_cpp_layers(T):
    log = []
    T.manual_seed(0)
    lin = T.nn.Linear(3, 2)
    seq = T.nn.Sequential(T.nn.Linear(3, 2), T.nn.ReLU(), T.nn.Linear(2, 1))
    x = T.ones(4, 3)
    nn = T.nn
    x4 = T.ones(2, 3, 4, 4)
    layers = [(nn.MaxPool2d(2), x4), (nn.AvgPool2d(2), x4), (nn.AdaptiveAvgPool2d(1), x4),
              (nn.Flatten(), x4), (nn.Softmax(1), x), (nn.LogSoftmax(1), x), (nn.Dropout(0.5), x),
              (nn.LayerNorm(3), x), (nn.Sigmoid(), x), (nn.Tanh(), x), (nn.GELU(), x),
              (nn.Identity(), x)]
    with function_logging_mode(T, log):
        lin(x)
        log.append("-- Sequential")
        seq(x)
        for layer, inp in layers:
            log.append(f"-- {type(layer).__name__}")
            layer(inp)
    log.append(f"{T.nn.functional.linear.__name__} {T.nn.functional.relu.__name__}")
    return log


def scenario_current_mode_inside_handlers(T):
    # A mode is off the stack while its own handler runs, whoever made the call (Python, or a C++
    # layer's forward, or backward).
    log = []
    pd = import_module(f"{T.__name__}.utils._python_dispatch")
    ov = import_module(f"{T.__name__}.overrides")

    class D(pd.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            log.append(f"{func} {pd._get_current_dispatch_mode()} "
                       f"{T._C._len_torch_dispatch_stack()}")
            return func(*args, **(kwargs or {}))

    class F(ov.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append(f"{func.__name__} {ov._get_current_function_mode()} "
                       f"{T._C._len_torch_function_stack()}")
            return func(*args, **(kwargs or {}))

    lin = T.nn.Linear(2, 2)
    x = T.ones(1, 2, requires_grad=True)
    with D() as d:
        log.append(str(pd._get_current_dispatch_mode() is d))
        x.exp().sum().backward()
    with F() as f:
        log.append(str(ov._get_current_function_mode() is f))
        lin(x)
    return log


SCENARIOS = [scenario_wrapper_backward, scenario_wrapper_backward_saved_output,
             scenario_mode_backward, scenario_mode_backward_grad_tensors,
             scenario_mode_backward_retain_grad, scenario_detach,
             scenario_enum_arguments, scenario_sized_int_lists, scenario_function_mode_backward,
             scenario_function_subclass_backward, scenario_function_mode_sees_cpp_layers,
             scenario_current_mode_inside_handlers,
             scenario_function_mode_sees_user_code_in_backward]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.__name__[len("scenario_"):])
def test_same_as_torch(scenario):
    expected = [line.replace("torch.", "ember.") for line in scenario(torch)]
    assert scenario(ember) == expected


def test_backward_log_of_a_wrapper_is_exactly_pytorchs():
    # Spelled out: the ops backward runs on a wrapper subclass, its kwargs as PyTorch's objects.
    log = scenario_wrapper_backward(ember)
    start = log.index("-- backward")
    assert log[start + 1:start + 7] == [
        "aten.ones_like.default ['LoggingTensor'] {'dtype': 'ember.float32', 'layout': "
        "'ember.strided', 'device': 'cpu', 'pin_memory': 'False', 'memory_format': "
        "'ember.preserve_format'}",
        "aten.expand.default ['LoggingTensor', ['3']] {}",
        "aten.mul.Tensor ['LoggingTensor', '2'] {}",
        "aten.detach.default ['LoggingTensor'] {}",
        "aten.detach.default ['LoggingTensor'] {}",
        "grad LoggingTensor [2.0, 2.0, 2.0]",
    ]


def test_handler_receives_python_enum_objects():
    seen = {}
    TorchDispatchMode = ember.utils._python_dispatch.TorchDispatchMode

    class Record(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.setdefault(str(func), dict(kwargs or {}))
            return func(*args, **(kwargs or {}))

    x = ember.ones(2, requires_grad=True)
    t = ember.ones(1, 2, 2, 2)
    with Record():
        x.sum().backward()
        t.clone(memory_format=ember.channels_last)
    ones = seen["aten.ones_like.default"]
    assert ones["dtype"] is ember.float32
    assert ones["layout"] is ember.strided
    assert ones["device"] == ember.device("cpu") and isinstance(ones["device"], ember.device)
    assert ones["pin_memory"] is False
    assert ones["memory_format"] is ember.preserve_format
    assert seen["aten.clone.default"]["memory_format"] is ember.channels_last
    # Handed back as they came, they select the same op.
    r = ember.ops.aten.ones_like.default(t, **ones)
    assert r.dtype == ember.float32 and r.shape == t.shape


def test_every_enum_schema_type_crosses_as_an_object():
    # Every argument type of the op table that ember boxes as a number stands for an enum: the
    # handler must see objects for them (reduction is an int in PyTorch's schemas too).
    enum_types = set()
    for _, _, schema in ember._C._op_table():
        for part in schema[schema.index("(") + 1:schema.rindex(") ->")].split(","):
            typ = part.strip().split(" ")[0]
            if typ.rstrip("?") in ("MemoryFormat", "Layout", "ScalarType", "Device"):
                enum_types.add(typ.rstrip("?"))
    assert enum_types == {"MemoryFormat", "Layout", "ScalarType", "Device"}
    seen = []
    TorchDispatchMode = ember.utils._python_dispatch.TorchDispatchMode

    class Record(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.extend((kwargs or {}).values())
            return func(*args, **(kwargs or {}))

    t = ember.ones(1, 2, 2, 2)
    with Record():
        ember.ones_like(t, dtype=ember.float64, layout=ember.strided, device="cpu",
                        memory_format=ember.channels_last)
    assert [type(v).__name__ for v in seen] == ["dtype", "layout", "device", "memory_format"]


def test_function_mode_sees_linear_inside_cpp_layers_only_once():
    log = []
    lin = ember.nn.Linear(3, 2)
    with function_logging_mode(ember, log):
        out = lin(ember.ones(1, 3))
        ember.nn.functional.linear(ember.ones(1, 3), lin.weight)
    assert log == ["ones", "linear", "ones", "linear"]
    assert out.shape == (1, 2)
    # The mode is popped while its handler runs, for C++ and Python alike, and gone after.
    assert ember._C._len_torch_function_stack() == 0


def test_function_mode_handler_result_replaces_cpp_layers_op():
    TorchFunctionMode = ember.overrides.TorchFunctionMode

    class Zero(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            return out * 0 if func.__name__ == "linear" else out

    lin = ember.nn.Linear(3, 2)
    seq = ember.nn.Sequential(lin, ember.nn.ReLU())
    with Zero():
        assert seq(ember.ones(1, 3)).abs().sum().item() == 0
    assert seq(ember.ones(1, 3)).shape == (1, 2)


def test_training_step_under_a_passthrough_mode_gives_the_same_gradients():
    # Every op of a CNN's forward and backward (convolution_backward returns None for the
    # gradients nobody asked for), an optimizer step and double backward go through a handler
    # that calls func(*args, **kwargs) back.
    TorchDispatchMode = ember.utils._python_dispatch.TorchDispatchMode
    seen = set()

    class Pass(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.add(str(func))
            return func(*args, **(kwargs or {}))

    def step(mode):
        ember.manual_seed(0)
        model = ember.nn.Sequential(ember.nn.Conv2d(3, 4, 3, padding=1), ember.nn.BatchNorm2d(4),
                                    ember.nn.ReLU(), ember.nn.MaxPool2d(2), ember.nn.Flatten(),
                                    ember.nn.Linear(64, 10))
        x = ember.randn(2, 3, 8, 8)
        opt = ember.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        y = ember.randn(3, requires_grad=True)
        with mode:
            loss = ember.nn.functional.cross_entropy(model(x), ember.tensor([1, 3]))
            loss.backward()
            opt.step()
            (g,) = ember.autograd.grad((y ** 3).sum(), y, create_graph=True)
            g.sum().backward()
        return [p.detach().clone() for p in model.parameters()] + [y.grad]

    import contextlib
    expected = step(contextlib.nullcontext())
    got = step(Pass())
    assert {"aten.convolution_backward.default", "aten.ones_like.default",
            "aten.native_batch_norm_backward.default"} <= seen
    assert all(ember.equal(a, b) for a, b in zip(got, expected))
