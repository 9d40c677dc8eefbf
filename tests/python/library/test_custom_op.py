"""ember.library.custom_op and register_fake / register_autograd (checklist 103-106)."""
import typing

import pytest

import ember
from ember import Tensor
from ember.library import Library, custom_op, infer_schema


def test_infer_schema():
    def f(x: Tensor, k: int, y: typing.Optional[Tensor] = None, *, s: float = 1.5) -> Tensor:
        return x
    assert infer_schema(f, mutates_args=()) == \
        "(Tensor x, SymInt k, Tensor? y=None, *, float s=1.5) -> Tensor"

    def g(x: Tensor, ys: typing.List[Tensor], flag: bool = True) -> typing.Tuple[Tensor, Tensor]:
        return x, x
    assert infer_schema(g, mutates_args={"x"}) == \
        "(Tensor(a0!) x, Tensor[] ys, bool flag=True) -> (Tensor, Tensor)"

    def h(x: Tensor, d: ember.dtype, dev: ember.device) -> None:
        pass
    assert infer_schema(h, mutates_args="unknown", op_name="h") == \
        "h(Tensor(a0!) x, ScalarType d, Device dev) -> ()"


def test_unannotated_parameter_103():
    def f(x):
        return x
    with pytest.raises(ValueError) as e:
        custom_op("lco_103::f", f, mutates_args=())
    assert "Parameter x must have a type annotation." in str(e.value)
    assert str(e.value).startswith("infer_schema(func): Parameter x must have a type annotation. "
                                   "Got func with signature (x))")

    def g(*xs: Tensor) -> Tensor:
        return xs[0]
    with pytest.raises(ValueError, match="We do not support positional-only args, varargs, or "
                                         "varkwargs."):
        custom_op("lco_103::g", g, mutates_args=())

    def k(x: Tensor, m: dict) -> Tensor:
        return x
    with pytest.raises(ValueError, match="Parameter m has unsupported type"):
        custom_op("lco_103::k", k, mutates_args=())

    def n(x: Tensor) -> Tensor:
        return x
    with pytest.raises(ValueError, match="were not found in the custom op's signature"):
        custom_op("lco_103::n", n, mutates_args={"y"})


def test_custom_op_basics():
    @custom_op("lco_basic::sin", mutates_args=())
    def mysin(x: Tensor) -> Tensor:
        return x.sin()
    assert repr(mysin) == "<CustomOpDef(lco_basic::sin)>"
    x = ember.tensor([0.5, 1.0])
    assert mysin(x).tolist() == x.sin().tolist()
    assert ember.ops.lco_basic.sin(x).tolist() == x.sin().tolist()
    assert str(ember.ops.lco_basic.sin.default._schema) == "lco_basic::sin(Tensor x) -> Tensor"


def test_returning_input_is_an_error_104():
    @custom_op("lco_104::f", mutates_args=())
    def f(x: Tensor) -> Tensor:
        return x
    with pytest.raises(RuntimeError) as e:
        f(ember.ones(2))
    assert str(e.value).startswith(
        "Tensors returned from custom ops (1) must not be inputs to the custom op and (2) may not "
        "alias any inputs or other returns. Please clone the the offending output tensors (e.g. "
        "output.clone()) or refactor your code. Offending op: f (with implementation in ")

    @custom_op("lco_104::view", mutates_args=())
    def v(x: Tensor) -> Tensor:
        return x.view(-1)
    with pytest.raises(RuntimeError, match="must not be inputs to the custom op"):
        v(ember.ones(2))


def test_no_autograd_formula_105():
    @custom_op("mylib105::f", mutates_args=())
    def f(x: Tensor) -> Tensor:
        return x * 2
    x = ember.ones(2, requires_grad=True)
    y = f(x)
    assert y.requires_grad
    with pytest.raises(RuntimeError) as e:
        y.sum().backward()
    assert str(e.value) == ("Trying to backward through mylib105.f.default but no autograd formula "
                            "was registered. Please use register_autograd to add one.")
    # Without grad the kernel runs as is.
    assert not f(ember.ones(2)).requires_grad


def test_register_autograd():
    @custom_op("lco_ag::mul", mutates_args=())
    def mul(x: Tensor, *, val: float) -> Tensor:
        return x * val
    calls = []

    def setup_context(ctx, inputs, keyword_only_inputs, output):
        calls.append((len(inputs), keyword_only_inputs))
        ctx.val = keyword_only_inputs["val"]

    def backward(ctx, grad):
        return grad * ctx.val
    mul.register_autograd(backward, setup_context=setup_context)
    x = ember.ones(3, requires_grad=True)
    y = mul(x, val=3.0)
    (gx,) = ember.autograd.grad(y, x, ember.ones_like(y))
    assert gx.tolist() == [3., 3., 3.]
    assert calls == [(1, {"val": 3.0})]

    @custom_op("lco_ag::sin", mutates_args=())
    def mysin(x: Tensor) -> Tensor:
        return x.sin()

    def setup(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    def bwd(ctx, g):
        x, = ctx.saved_tensors
        return g * x.cos()
    ember.library.register_autograd("lco_ag::sin", bwd, setup_context=setup)
    x = ember.tensor([0.3, 0.7], requires_grad=True)
    mysin(x).sum().backward()
    assert ember.allclose(x.grad, x.detach().cos())


def test_mutating_op_106_and_version_bump():
    @custom_op("lco_106::add_one_", mutates_args={"x"})
    def add_one_(x: Tensor) -> None:
        x.numpy()[...] += 1  # behind ember's back: only the op's version bump records it
    x = ember.zeros(2)
    v = x._version
    assert add_one_(x) is None
    assert x.tolist() == [1., 1.] and x._version == v + 1
    with pytest.raises(RuntimeError) as e:
        add_one_.register_autograd(lambda ctx, g: g)
    assert str(e.value).startswith("Cannot register autograd formula for non-functional operator "
                                   "<CustomOpDef(lco_106::add_one_)> with schema ")
    assert "Please create a functional operator and register an autograd formula for that." \
        in str(e.value)


def test_register_fake_twice_on_library_op_106():
    lib = Library("mylib106", "FRAGMENT")
    lib.define("g(Tensor x) -> Tensor")
    lib.impl("g", lambda x: x * 2, "CPU")

    @ember.library.register_fake("mylib106::g", lib=lib)
    def g_fake(x):
        return ember.empty_like(x)
    out = ember.ops.mylib106.g(ember.ones(4, device="meta"))
    assert out.is_meta and out.shape == (4,)
    with pytest.raises(RuntimeError) as e:
        ember.library.register_fake("mylib106::g", lambda x: x, lib=lib)
    assert str(e.value).startswith("register_fake(...): the operator mylib106::g already has an "
                                   "fake impl registered at ")
    assert __file__ in str(e.value)
    # An op with a Meta kernel of its own.
    lib.define("h(Tensor x) -> Tensor")
    lib.impl("h", lambda x: ember.empty_like(x), "Meta")
    with pytest.raises(RuntimeError, match="already has an DispatchKey::Meta implementation via a "
                                           "pre-existing"):
        ember.library.register_fake("mylib106::h", lambda x: x, lib=lib)


def test_custom_op_fake_and_meta():
    @custom_op("lco_fake::lin", mutates_args=())
    def lin(x: Tensor, w: Tensor) -> Tensor:
        return x @ w.t()
    m = ember.ones(2, 3, device="meta")
    with pytest.raises(RuntimeError) as e:
        lin(m, ember.ones(4, 3, device="meta"))
    assert str(e.value) == ("There was no fake impl registered for <CustomOpDef(lco_fake::lin)>. "
                            "This is necessary for ember.compile/export/fx tracing to work. Please "
                            "use `lin.register_fake` to add an fake impl.")

    @lin.register_fake
    def _(x, w):
        return x.new_empty(x.shape[0], w.shape[0])
    out = lin(m, ember.ones(4, 3, device="meta"))
    assert out.is_meta and out.shape == (2, 4)


def test_register_kernel_and_set_kernel_enabled():
    @custom_op("lco_kern::f", mutates_args=())
    def f(x: Tensor) -> Tensor:
        return ember.zeros(1)

    @f.register_kernel("cpu")
    def _(x):
        return ember.ones(1)
    inp = ember.randn(1)
    assert f(inp).tolist() == [1.]
    with f.set_kernel_enabled("cpu", enabled=False):
        assert f(inp).tolist() == [0.]
    assert f(inp).tolist() == [1.]


def test_device_types_and_factory():
    @custom_op("lco_dev::cpu_only", mutates_args=(), device_types="cpu")
    def cpu_only(x: Tensor) -> Tensor:
        return x + 1
    assert cpu_only(ember.zeros(1)).tolist() == [1.]

    def nodev() -> Tensor:
        return ember.ones(1)
    with pytest.raises(ValueError) as e:
        custom_op("lco_dev::nodev", nodev, mutates_args=(), device_types="cpu")
    assert str(e.value) == ("Functions without tensor inputs are required to have a `device: "
                            "ember.device` argument")

    @custom_op("lco_dev::bar", mutates_args=(), device_types="cpu")
    def bar(device: ember.device) -> Tensor:
        return ember.ones(3)
    assert bar("cpu").tolist() == [1., 1., 1.]


def test_kwarg_only_tensor_and_schema_mismatch():
    def f(x: Tensor, *, y: Tensor) -> Tensor:
        return x + y
    with pytest.raises(NotImplementedError) as e:
        custom_op("lco_kw::f", f, mutates_args=())
    assert str(e.value) == ("custom_op with kwarg-only Tensor args. Please make your tensors not "
                            "kwarg-only. Got: f(Tensor x, *, Tensor y) -> Tensor")

    def g(x: Tensor) -> Tensor:
        return x.clone()
    with pytest.raises(ValueError, match="Attempted to create a custom op with `mutates_args="):
        custom_op("lco_kw::g", g, mutates_args=(), schema="(Tensor(a0!) x) -> Tensor")


def test_dispatch_mode_sees_custom_op():
    from ember.utils._python_dispatch import TorchDispatchMode

    @custom_op("lco_mode::f", mutates_args=())
    def f(x: Tensor) -> Tensor:
        return x + 1
    seen = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(func)
            return func(*args, **(kwargs or {}))
    one = ember.ones(1)
    with Log():
        f(one)
    assert seen == [ember.ops.lco_mode.f.default]


def test_redefining_custom_op_replaces_it():
    @custom_op("lco_redef::f", mutates_args=())
    def f(x: Tensor) -> Tensor:
        return x + 1

    @custom_op("lco_redef::f", mutates_args=())
    def f2(x: Tensor, k: int) -> Tensor:
        return x + k
    assert f2(ember.zeros(1), 5).tolist() == [5.]


def test_register_torch_dispatch_rule():
    from ember.utils._python_dispatch import TorchDispatchMode

    @custom_op("lco_rule::f", mutates_args=())
    def f(x: Tensor) -> Tensor:
        return x + 1

    class Mode(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))
    seen = []

    @f.register_torch_dispatch(Mode)
    def _(mode, func, types, args, kwargs):
        seen.append((type(mode), func))
        return args[0] * 10
    x = ember.ones(1)
    with Mode():
        assert f(x).tolist() == [10.]
        assert (x + 1).tolist() == [2.]  # other ops reach the mode's own handler
    assert seen == [(Mode, ember.ops.lco_rule.f.default)]


def test_annotation_forms_and_results():
    def f(x: Tensor, ys: list[Tensor], w: Tensor | None = None, k: int = 2,
          sizes: typing.Optional[typing.Sequence[int]] = None) -> tuple[Tensor, Tensor]:
        return x, x
    assert infer_schema(f, mutates_args=()) == \
        "(Tensor x, Tensor[] ys, Tensor? w=None, SymInt k=2, SymInt[]? sizes=None) -> (Tensor, Tensor)"

    @custom_op("lco_res::split", mutates_args=())
    def split(x: Tensor, n: int) -> typing.List[Tensor]:
        return [x + i for i in range(n)]
    out = split(ember.zeros(1), 3)
    assert type(out) is list and [t.item() for t in out] == [0., 1., 2.]

    @custom_op("lco_res::pair", mutates_args=())
    def pair(x: Tensor) -> typing.Tuple[Tensor, int]:
        return x + 1, 7
    a, b = pair(ember.zeros(1))
    assert a.tolist() == [1.] and b == 7

    @custom_op("lco_res::total", mutates_args=())
    def total(x: Tensor, scale: float = 2.0) -> float:
        return float(x.sum()) * scale
    assert total(ember.ones(3)) == 6.0


def test_backward_sees_needs_input_grad_of_the_op_inputs():
    @custom_op("lco_nig::mul", mutates_args=())
    def mul(x: Tensor, y: Tensor) -> Tensor:
        return x * y
    seen = []

    def backward(ctx, g):
        seen.append(ctx.needs_input_grad)
        x, y = ctx.saved_tensors
        return g * y, g * x
    mul.register_autograd(backward,
                          setup_context=lambda ctx, inputs, output: ctx.save_for_backward(*inputs))
    x = ember.ones(2, requires_grad=True)
    mul(x, ember.full((2,), 3.0)).sum().backward()
    assert seen == [(True, False)]
    assert x.grad.tolist() == [3., 3.]


def test_cuda_kernels_are_kept_but_unused():
    @custom_op("lco_cuda::f", mutates_args=(), device_types=("cpu", "cuda"))
    def f(x: Tensor) -> Tensor:
        return x * 2

    @f.register_kernel("cuda")
    def _(x):
        raise AssertionError("ember has no CUDA tensors")
    assert f(ember.ones(1)).tolist() == [2.]
    lib = Library("lco_cuda", "FRAGMENT")
    lib.define("g(Tensor x) -> Tensor")
    lib.impl("g", lambda x: x + 1, "CPU")
    lib.impl("g", lambda x: x, "CUDA")
    assert ember.ops.lco_cuda.g(ember.ones(1)).tolist() == [2.]
    with pytest.raises(ValueError, match="Unknown dispatch key 'XLA'"):
        lib.impl("g", lambda x: x, "XLA")
    with pytest.raises(ValueError, match="Unknown dispatch key 'AutogradCUDA'"):
        lib.impl("g", lambda x: x, "AutogradCUDA")


def test_register_autograd_on_library_ops():
    lib = Library("lco_libag", "FRAGMENT")
    lib.define("cube(Tensor x) -> Tensor")
    lib.impl("cube", lambda x: x * x * x, "CPU")
    ember.library.register_autograd(
        "lco_libag::cube", lambda ctx, g: g * 3 * ctx.x * ctx.x,
        setup_context=lambda ctx, inputs, output: setattr(ctx, "x", inputs[0]), lib=lib)
    x = ember.tensor([2.], requires_grad=True)
    ember.ops.lco_libag.cube(x).backward()
    assert x.grad.tolist() == [12.]
    lib.define("bump(Tensor(a!) x) -> ()")
    with pytest.raises(RuntimeError) as e:
        ember.library.register_autograd("lco_libag::bump", lambda ctx, g: g, lib=lib)
    assert str(e.value) == ("Cannot register autograd formula for non-functional operator "
                            "lco_libag.bump.default with schema lco_libag::bump(Tensor(a!) x) -> (). "
                            "Please create a functional operator and register an autograd formula "
                            "for that.")
