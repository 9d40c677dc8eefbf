"""ember.library.opcheck: checks that an operator's registrations agree with what it does
(torch.library.opcheck): its schema (mutations, aliasing), its autograd registration, and its
fake (meta) implementation against the real kernel."""
from . import _C
from ._custom_op import _tensors
from ._ops import OpOverload, OpOverloadPacket

__all__ = ["opcheck", "OpCheckError"]


class OpCheckError(Exception):
    pass


def _leaves(obj):
    if isinstance(obj, (list, tuple)):
        return [x for o in obj for x in _leaves(o)]
    if isinstance(obj, dict):
        return [x for o in obj.values() for x in _leaves(o)]
    return [obj]


def _map_tensors(fn, obj):
    import ember
    if isinstance(obj, ember.Tensor):
        return fn(obj)
    if isinstance(obj, (list, tuple)):
        return type(obj)(_map_tensors(fn, o) for o in obj)
    if isinstance(obj, dict):
        return {k: _map_tensors(fn, v) for k, v in obj.items()}
    return obj


def _bind(op, args, kwargs):
    """(argument, value) for each argument of the op's schema that the call passes."""
    from ._custom_op import _parse_args
    params = _parse_args(str(op._schema))
    bound = []
    for i, a in enumerate(params):
        if not a.kwarg_only and i < len(args):
            bound.append((a, args[i]))
        elif a.name in kwargs:
            bound.append((a, kwargs[a.name]))
    return bound


def _clone(x):
    return x.detach().clone()


def test_schema(op, args, kwargs):
    """Arguments the schema does not mark mutable (`Tensor(a!)`) must keep their values, and
    results must not alias an argument the schema does not alias."""
    import ember
    bound = _bind(op, args, kwargs)
    before = [(a, [_clone(t) for t in _tensors(v)]) for a, v in bound]
    with ember.no_grad():
        out = op(*_map_tensors(lambda t: t, args), **kwargs)
    for (a, value), (_, saved) in zip(bound, before):
        now = _tensors(value)
        changed = any(not ember.equal(t, s) for t, s in zip(now, saved)
                      if not t.is_meta and t.dtype == s.dtype)
        if changed and not a.is_write:
            raise RuntimeError(f"Argument {a.name} is not defined as mutable but was mutated")
    storages = {}
    for a, v in bound:
        for t in _leaves(v):
            if isinstance(t, ember.Tensor) and not t.is_meta:
                storages.setdefault(t.untyped_storage()._cdata, a)
    for t in _leaves(out):
        if isinstance(t, ember.Tensor) and not t.is_meta:
            a = storages.get(t.untyped_storage()._cdata)
            if a is not None and "(" not in a.type:
                raise RuntimeError(f"Argument {a.name} is not defined to alias output but was "
                                   f"aliasing")


def test_autograd_registration(op, args, kwargs):
    """An op whose outputs require grad must have its autograd at an Autograd key (or decompose):
    outputs requiring grad that come from a backend kernel mean autograd was recorded in the
    wrong place."""
    import ember
    flat = _leaves((args, kwargs))
    tensors = [a for a in flat if isinstance(a, ember.Tensor)]
    if not any(t.requires_grad for t in tensors):
        raise RuntimeError("autograd_registration_check: no inputs have requires_grad=True so we "
                           "are unable to actually perform this test. Please pass inputs that do "
                           "require grad.")
    name = op.name()
    for key in ("Autograd", "CompositeImplicitAutograd"):
        if _C._dispatch_has_kernel_for_dispatch_key(name, key):
            return
    with _C._AutoDispatchBelowAutograd():  # autograd "nothing" mode: the kernels alone
        outs = op(*args, **kwargs)
    ids = {id(a) for a in flat}
    if any(isinstance(t, ember.Tensor) and t.requires_grad and id(t) not in ids
           for t in _leaves(outs)):
        raise AssertionError(
            f"{name}: at least one output of this operator has requires_grad=True but the "
            "operator does not have an autograd kernel defined at an autograd key (e.g. "
            "DispatchKey::Autograd). This could mean that you have incorrectly registered an "
            "autograd kernel to a non-Autograd DispatchKey, which may lead to silently incorrect "
            "results. If your operator consists of regular ember operations that consist of an "
            "autograd formula, then we recommend registering your operator to the "
            "CompositeImplicitAutograd. If you have an autograd.Function registered to a backend "
            "(CPU) key, the correct location for it is the Autograd key.")


def test_faketensor(op, args, kwargs):
    """The fake (meta) implementation gives the real kernel's shapes and dtypes."""
    import ember

    def to_meta(t):
        return ember.empty_strided(t.shape, t.stride(), dtype=t.dtype, device="meta")
    with ember.no_grad():
        real = op(*_map_tensors(_clone, args), **_map_tensors(_clone, kwargs))
        fake = op(*_map_tensors(to_meta, args), **_map_tensors(to_meta, kwargs))
    real_l, fake_l = _leaves(real), _leaves(fake)
    if len(real_l) != len(fake_l):
        raise RuntimeError(f"{op.name()}: the fake implementation returned {len(fake_l)} values, "
                           f"the kernel {len(real_l)}")
    for i, (r, f) in enumerate(zip(real_l, fake_l)):
        if isinstance(r, ember.Tensor) != isinstance(f, ember.Tensor):
            raise RuntimeError(f"{op.name()}: output {i} is a {type(r).__name__} from the kernel "
                               f"but a {type(f).__name__} from the fake implementation")
        if isinstance(r, ember.Tensor) and (tuple(r.shape) != tuple(f.shape) or r.dtype != f.dtype):
            raise RuntimeError(f"{op.name()}: output {i} of the fake implementation has shape "
                               f"{tuple(f.shape)} and dtype {f.dtype}, the kernel's has shape "
                               f"{tuple(r.shape)} and dtype {r.dtype}")


ALL_TEST_UTILS = {"test_schema": test_schema,
                  "test_autograd_registration": test_autograd_registration,
                  "test_faketensor": test_faketensor}
DEFAULT_TEST_UTILS = ("test_schema", "test_autograd_registration", "test_faketensor")


def opcheck(op, args, kwargs=None, *, test_utils=DEFAULT_TEST_UTILS, raise_exception=True):
    """Runs the checks `test_utils` ("test_schema", "test_autograd_registration",
    "test_faketensor") on `op` called with `args` / `kwargs`. Returns {name: "SUCCESS" or the
    exception}; with raise_exception the first failure raises OpCheckError."""
    from ._custom_op import CustomOpDef
    if kwargs is None:
        kwargs = {}
    if isinstance(op, CustomOpDef):
        op = op._opoverload
    if isinstance(op, OpOverloadPacket):
        op = op.default if "default" in op.overloads() else op
    if not isinstance(op, OpOverload):
        raise ValueError(f"opcheck(op, ...): op must be instance of ember._ops.OpOverload, e.g. "
                         f"ember.ops.aten.sin.default, got {type(op)}")
    if isinstance(test_utils, str):
        test_utils = (test_utils,)
    if not set(test_utils).issubset(ALL_TEST_UTILS):
        raise ValueError(f"opcheck(op, ..., test_utils={test_utils}), expected test_utils to be "
                         f"subset of {tuple(ALL_TEST_UTILS.keys())} but it was not")
    results = {}
    for name in test_utils:
        try:
            ALL_TEST_UTILS[name](op, args, kwargs)
        except Exception as ex:  # noqa: BLE001  (reported per test, as PyTorch's)
            if raise_exception:
                raise OpCheckError(f"opcheck(op, ...): {name} failed with {ex} (scroll up for "
                                   f"stack trace)") from ex
            results[name] = ex
            continue
        results[name] = "SUCCESS"
    return results
