"""ember.autograd.Function against PyTorch 1.13: the same Function classes run on both libraries
(`lib` is torch or ember) and must give the same gradients, grad_fn names and error texts."""
import gc
import warnings
import weakref

import pytest
import torch

import ember
from autograd_helpers import tensor, values
from ember.autograd.function import once_differentiable

LIBS = [torch, ember]



def error_of(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type is part of what is compared
        # ember prints `ember.` where PyTorch prints `torch.` (ember.Size, ember.FloatTensor)
        return type(e).__name__, str(e).replace("torch.", "ember.")
    return None


def both(scenario):
    """Runs scenario(lib) on torch and ember; returns the two results (to compare)."""
    return scenario(torch), scenario(ember)


def make_exp(lib):
    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, i):
            r = i.exp()
            ctx.save_for_backward(r)
            return r

        @staticmethod
        def backward(ctx, g):
            (r,) = ctx.saved_tensors
            return g * r
    return Exp


def make_linear(lib):
    """LinearFunction: new style (setup_context) on ember; combined style on torch 1.13, which
    predates setup_context."""
    def backward(ctx, g):
        input, weight, bias = ctx.saved_tensors
        gi = g.mm(weight) if ctx.needs_input_grad[0] else None
        gw = g.t().mm(input) if ctx.needs_input_grad[1] else None
        gb = g.sum(0) if bias is not None and ctx.needs_input_grad[2] else None
        return gi, gw, gb

    def compute(input, weight, bias):
        out = input.mm(weight.t())
        return out + bias if bias is not None else out

    if lib is torch:
        class LinearFunction(torch.autograd.Function):
            @staticmethod
            def forward(ctx, input, weight, bias=None):
                ctx.save_for_backward(input, weight, bias)
                return compute(input, weight, bias)
        LinearFunction.backward = staticmethod(backward)
        return LinearFunction

    class LinearFunction(ember.autograd.Function):
        @staticmethod
        def forward(input, weight, bias=None):
            return compute(input, weight, bias)

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(*inputs)
    LinearFunction.backward = staticmethod(backward)
    return LinearFunction


def test_old_style_gradients_and_name():
    def run(lib):
        Exp = make_exp(lib)
        x = tensor(lib, [0.5, 1.0, -2.0], requires_grad=True)
        y = Exp.apply(x)
        name = y.grad_fn.name()
        cls = type(y.grad_fn).__name__
        y.sum().backward()
        acc = type(y.grad_fn.next_functions[0][0]).__name__
        return name, cls, values(y), values(x.grad), acc
    t, e = both(run)
    assert t == e
    assert e[:2] == ("ExpBackward", "ExpBackward")


def test_new_style_with_default_argument_and_needs_input_grad():
    def run(lib):
        Lin = make_linear(lib)
        x = tensor(lib, [[1., 2.], [3., 4.]], requires_grad=True)
        w = tensor(lib, [[1., 0.], [0.5, -1.], [2., 1.]])
        b = tensor(lib, [0.1, 0.2, 0.3], requires_grad=True)
        y = Lin.apply(x, w, b)
        y.sum().backward()
        y2 = Lin.apply(x, w)  # bias defaults to None
        return values(y), values(x.grad), values(w.grad), values(b.grad), values(y2)
    t, e = both(run)
    assert t == e


def test_ctx_is_grad_fn_and_attributes_survive_until_backward():
    seen = {}

    class Scale(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.k = k
            ctx.tag = object()
            seen["ctx"] = ctx
            return x * k

        @staticmethod
        def backward(ctx, g):
            seen["in_backward"] = (ctx.k, ctx)
            return g * ctx.k, None

    x = tensor(ember, [1., 2.], requires_grad=True)
    y = Scale.apply(x, 3.0)
    assert y.grad_fn is seen["ctx"]
    assert y.grad_fn is y.grad_fn
    assert repr(y.grad_fn).startswith("<ember.autograd.function.ScaleBackward object at 0x")
    assert type(y.grad_fn).__name__ == "ScaleBackward"
    assert isinstance(y.grad_fn, ember.autograd.graph.Node)
    del seen["ctx"]
    gc.collect()
    y.sum().backward()
    assert seen["in_backward"][0] == 3.0
    assert seen["in_backward"][1] is y.grad_fn
    assert values(x.grad) == [3., 3.]


def test_ctx_and_saved_tensors_are_freed_with_the_graph():
    refs = {}

    class Keep(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            saved = x * 2
            refs["saved"] = weakref.ref(saved)
            ctx.save_for_backward(saved)
            refs["ctx"] = weakref.ref(ctx)
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            (s,) = ctx.saved_tensors
            return g * s

    x = tensor(ember, [1., 2.], requires_grad=True)
    y = Keep.apply(x)
    gc.collect()
    # Only the graph holds them now, and it keeps them until backward.
    assert refs["ctx"]() is not None
    y.sum().backward()
    assert values(x.grad) == [2., 4.]
    assert refs["ctx"]() is not None  # y still holds its graph
    del y
    gc.collect()
    assert refs["ctx"]() is None
    assert refs["saved"]() is None


def test_ctx_dies_with_output_even_without_backward():
    refs = {}

    class Id(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            refs["ctx"] = weakref.ref(ctx)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g

    y = Id.apply(ember.ones(2, requires_grad=True))
    assert refs["ctx"]() is not None
    del y
    assert refs["ctx"]() is None


def test_second_backward_and_saved_tensors_after_free():
    def run(lib):
        Exp = make_exp(lib)
        x = tensor(lib, [1.0, 2.0], requires_grad=True)
        y = Exp.apply(x)
        y.sum().backward()
        return (error_of(lambda: y.sum().backward()), error_of(lambda: y.grad_fn.saved_tensors))
    t, e = both(run)
    assert t == e
    assert "Trying to backward through the graph a second time" in e[0][1]


def test_saved_tensor_modified_in_place():
    def run(lib):
        Exp = make_exp(lib)
        x = tensor(lib, [1.0, 2.0, 3.0], requires_grad=True)
        y = Exp.apply(x)
        y.add_(1)
        return error_of(lambda: y.sum().backward())
    t, e = both(run)
    assert t == e
    assert "which is output 0 of ExpBackward, is at version 1" in e[1]


@pytest.mark.parametrize("case", ["too_few", "too_many", "extra_nones", "non_tensor_position",
                                  "not_a_tensor", "bad_shape", "dtype_cast"])
def test_backward_result_checks(case):
    def run(lib):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                if case == "too_few":
                    return (g,)
                if case == "too_many":
                    return g, None, g
                if case == "extra_nones":
                    return g, None, None, None
                if case == "non_tensor_position":
                    return g, g
                if case == "not_a_tensor":
                    return 5, None
                if case == "bad_shape":
                    return lib.ones(4), None
                return g.to(lib.float64), None
        x = tensor(lib, [1., 2., 3.], requires_grad=True)
        err = error_of(lambda: F.apply(x, 3).sum().backward())
        return err, values(x.grad), None if x.grad is None else str(x.grad.dtype)
    t, e = both(run)
    assert t[0] == e[0]
    assert t[1] == e[1]
    assert (t[2] or "").replace("torch", "ember") == (e[2] or "")


def test_non_tensor_outputs_get_none_gradients_and_needs_input_grad():
    def run(lib):
        got = {}

        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y, k):
                got["needs"] = ctx.needs_input_grad
                return x * 2, 5, [x]

            @staticmethod
            def backward(ctx, g, a, b):
                got["grads"] = (values(g), a, b)
                return g, None, None

        x = tensor(lib, [1., 2.], requires_grad=True)
        out = F.apply(x, lib.ones(2), 3)
        out[0].sum().backward()
        return got["needs"], got["grads"], out[1], type(out[2]).__name__, out[2][0] is x
    t, e = both(run)
    assert t == e
    assert e[0] == (True, False, False)


def test_mark_dirty_mark_non_differentiable_and_materialize():
    def run(lib):
        got = {}

        class AddOne(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.add_(1)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g

        class SortIdx(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                idx = tensor(lib, [1, 0])
                ctx.mark_non_differentiable(idx)
                return x * 1, idx

            @staticmethod
            def backward(ctx, g, gi):
                got["gi"] = (values(gi), str(gi.dtype))
                return g

        class NoMat(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 1, x * 2

            @staticmethod
            def backward(ctx, g1, g2):
                got["nomat"] = (values(g1), g2)
                return g1

        leaf = tensor(lib, [1., 2.], requires_grad=True)
        err_leaf = error_of(lambda: AddOne.apply(leaf))
        a = leaf * 1
        b = AddOne.apply(a)
        same = b is a
        name = b.grad_fn.name()
        b.sum().backward()
        out, idx = SortIdx.apply(leaf)
        out.sum().backward()
        o1, o2 = NoMat.apply(leaf)
        o1.sum().backward()
        returned = tensor(lib, [1., 2.], requires_grad=True)

        class Ident(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                return g
        r = Ident.apply(returned)
        err_view = error_of(lambda: r.add_(1))
        return (err_leaf, same, name, idx.requires_grad, got["gi"][0],
                got["gi"][1].split(".")[-1], got["nomat"], r is returned, r.grad_fn.name(),
                err_view)
    t, e = both(run)
    assert t == e
    assert e[0] == ("RuntimeError",
                    "a leaf Variable that requires grad has been used in an in-place operation.")


def test_ctx_method_argument_errors():
    def run(lib):
        class Save(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, 3)
                return x * 2

        class Dirty(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_dirty(3)
                return x * 2

        class NonDiff(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_non_differentiable(3)
                return x * 2
        x = lib.ones(2, requires_grad=True)
        return [error_of(lambda: F.apply(x)) for F in (Save, Dirty, NonDiff)]
    t, e = both(run)
    assert t == e


def test_mark_dirty_on_a_non_input_warns():
    class F(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            ctx.mark_dirty(y)
            return y

        @staticmethod
        def backward(ctx, g):
            return g
    with pytest.warns(UserWarning, match="Only input Tensors should be given to ctx.mark_dirty"):
        F.apply(ember.ones(2, requires_grad=True))


def test_apply_keyword_arguments_and_legacy_instances():
    def run(lib):
        Exp = make_exp(lib)
        x = lib.ones(2, requires_grad=True)
        kw = error_of(lambda: Exp.apply(x, k=3))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            inst = Exp()
        return kw, [(x.category.__name__, str(x.message).split(" should")[1]) for x in w], \
            error_of(lambda: inst(x))
    t, e = both(run)
    assert t == e


def test_no_input_requires_grad_records_nothing():
    def run(lib):
        Exp = make_exp(lib)
        y = Exp.apply(lib.ones(2))
        return y.requires_grad, y.grad_fn, values(y)
    t, e = both(run)
    assert t == e
    assert e[:2] == (False, None)


def test_double_backward_through_python_backward():
    def run(lib):
        class Cube(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 3

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * 3 * x ** 2
        x = tensor(lib, [1., 2., 3.], dtype=lib.double, requires_grad=True)
        (d,) = lib.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
        name = d.grad_fn.name()
        (d2,) = lib.autograd.grad(d.sum(), x)
        return values(d), name, values(d2)
    t, e = both(run)
    assert t == e


def test_once_differentiable():
    def run(lib):
        from_mod = (torch.autograd.function.once_differentiable if lib is torch
                    else once_differentiable)

        class Sq(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            @from_mod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 2 * x * g
        x = tensor(lib, [1., 2.], requires_grad=True)
        go = lib.ones(2, requires_grad=True)  # a differentiable grad_output
        (d,) = lib.autograd.grad(Sq.apply(x), x, go, create_graph=True)
        first = (values(d), d.requires_grad)
        return first, error_of(lambda: d.sum().backward())
    t, e = both(run)
    assert t == e
    assert e[1] == ("RuntimeError", "trying to differentiate twice a function that was marked "
                                    "with @once_differentiable")


def test_unimplemented_methods():
    def run(lib):
        class NoForward(lib.autograd.Function):
            pass

        class NoBackward(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2
        x = lib.ones(2, requires_grad=True)
        return error_of(lambda: NoForward.apply(x)), \
            error_of(lambda: NoBackward.apply(x).sum().backward())
    t, e = both(run)
    assert t == e


def test_both_backward_and_vjp_is_refused():
    class Both(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

        @staticmethod
        def vjp(ctx, g):
            return g
    with pytest.raises(RuntimeError, match="Implementing both 'backward' and 'vjp'"):
        Both.apply(ember.ones(2, requires_grad=True)).sum().backward()


def test_vjp_alone_is_used():
    class V(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def vjp(ctx, g):
            return g * 2
    x = ember.ones(2, requires_grad=True)
    V.apply(x).sum().backward()
    assert values(x.grad) == [2., 2.]


def test_exception_in_backward_propagates_unchanged():
    class Boom(ValueError):
        pass

    class F(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            raise Boom("from backward")
    with pytest.raises(Boom, match="from backward"):
        F.apply(ember.ones(2, requires_grad=True)).sum().backward()
