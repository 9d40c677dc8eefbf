"""ember.library.custom_op: a Python function as an operator (torch.library.custom_op).

`@custom_op("mylib::f", mutates_args=())` infers the schema from the function's annotations,
defines the op in a FRAGMENT Library and registers: the function as its kernel
(CompositeExplicitAutograd, or per device type), wrapped by the check that outputs alias no
input; a fake (Meta) kernel calling what `register_fake` gave; an Autograd kernel that runs the
formula of `register_autograd` through an autograd.Function (or errors at backward when there is
none); and, for mutating ops, the version bump of the mutated arguments after each call.
"""
import ast
import collections.abc
import contextlib
import inspect
import logging
import numbers
import types
import typing

from . import _C
from ._ops import ops as _ops

__all__ = ["custom_op", "CustomOpDef", "infer_schema"]

log = logging.getLogger(__name__)

OPDEFS = {}  # qualname -> CustomOpDef
_custom_op_libs = {}  # qualname -> the FRAGMENT Library of that op


def _opdef_of(qualname):
    return OPDEFS.get(qualname) if isinstance(qualname, str) else None


# ---- schema inference ----
def _base_types():
    import ember
    return [(ember.Tensor, "Tensor"), (bool, "bool"), (int, "SymInt"), (float, "float"),
            (str, "str"), (ember.dtype, "ScalarType"), (ember.device, "Device")]


_NUMBER = typing.Union[int, float, bool]


def _schema_type(annotation, *, allow_list_of_optional=True):
    """The schema type of a parameter annotation, or None when unsupported."""
    for py, name in _base_types():
        if annotation is py:
            return name
    if annotation in (_NUMBER, numbers.Number):
        return "Scalar"
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType) and len(args) == 2 and type(None) in args:
        inner = args[0] if args[1] is type(None) else args[1]
        t = _schema_type(inner, allow_list_of_optional=False)
        return None if t is None or t in ("str[]",) else t + "?"
    if origin in (list, collections.abc.Sequence) and len(args) == 1:
        item = args[0]
        iorigin, iargs = typing.get_origin(item), typing.get_args(item)
        if iorigin in (typing.Union, types.UnionType) and len(iargs) == 2 and type(None) in iargs:
            inner = iargs[0] if iargs[1] is type(None) else iargs[1]
            t = _schema_type(inner)
            return t + "?[]" if t == "Tensor" and allow_list_of_optional else None
        t = _schema_type(item)
        if t in ("Tensor", "SymInt", "float", "bool", "Scalar"):
            return t + "[]"
    return None


def _return_type(annotation, error_fn):
    import ember
    if annotation is None or annotation is type(None):
        return "()"
    simple = {ember.Tensor: "Tensor", int: "SymInt", float: "float", bool: "bool"}
    if annotation in simple:
        return simple[annotation]
    if annotation in (_NUMBER, numbers.Number):
        return "Scalar"
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (list, typing.List) and args == (ember.Tensor,):
        return "Tensor[]"
    if origin is tuple:
        parts = []
        for a in args:
            if a not in simple and not (typing.get_origin(a) in (list, typing.List)
                                        and typing.get_args(a) == (ember.Tensor,)):
                error_fn(f"Return has unsupported type {annotation}. The valid types are: Tensor, "
                         f"List[Tensor], int, float, bool, Number, or a tuple of them.")
            parts.append(simple.get(a, "Tensor[]"))
        return "(" + ", ".join(parts) + ")"
    error_fn(f"Return has unsupported type {annotation}. The valid types are: Tensor, "
             f"List[Tensor], int, float, bool, Number, or a tuple of them.")


def _resolve(annotation, fn):
    if isinstance(annotation, str):  # from __future__ import annotations
        return eval(annotation, getattr(fn, "__globals__", {}))  # noqa: S307
    return annotation


def infer_schema(prototype_function, /, *, mutates_args, op_name=None):
    """The schema of a function from its type annotations: "(Tensor x, SymInt k=1) -> Tensor"
    (prefixed with `op_name` when given). Arguments named in `mutates_args` ("unknown": every
    Tensor) become `Tensor(a{i}!)`."""
    sig = inspect.signature(prototype_function)

    def error_fn(what):
        raise ValueError(f"infer_schema(func): {what} Got func with signature {sig})")

    params = []
    seen_args = set()
    saw_kwarg = False
    for idx, (name, param) in enumerate(sig.parameters.items()):
        if param.kind not in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                              inspect.Parameter.KEYWORD_ONLY):
            error_fn("We do not support positional-only args, varargs, or varkwargs.")
        if param.kind == inspect.Parameter.KEYWORD_ONLY and not saw_kwarg:
            params.append("*")
            saw_kwarg = True
        if param.annotation is inspect.Parameter.empty:
            error_fn(f"Parameter {name} must have a type annotation.")
        annotation = _resolve(param.annotation, prototype_function)
        schema_type = _schema_type(annotation)
        if schema_type is None:
            error_fn(f"Parameter {name} has unsupported type {annotation}. The valid types are: "
                     f"Tensor, int, float, bool, str, Number, dtype, device, Optional and "
                     f"Sequence of those.")
        if (mutates_args == "unknown" and schema_type.startswith("Tensor")) or \
                (mutates_args != "unknown" and name in mutates_args):
            if not schema_type.startswith("Tensor"):
                error_fn(f"Parameter {name} is in mutable_args but only Tensors or collections of "
                         f"Tensors can be mutated")
            schema_type = f"Tensor(a{idx}!){schema_type[len('Tensor'):]}"
        seen_args.add(name)
        if param.default is inspect.Parameter.empty:
            params.append(f"{schema_type} {name}")
        else:
            if param.default is not None and not isinstance(param.default, (int, float, bool)):
                error_fn(f"Parameter {name} has an unsupported default value (we only support "
                         f"int, float, bool, None). Please file an issue on GitHub so we can "
                         f"prioritize this.")
            params.append(f"{schema_type} {name}={param.default}")
    if mutates_args != "unknown":
        not_seen = set(mutates_args) - seen_args
        if not_seen:
            error_fn(f"{not_seen} in mutates_args were not found in the custom op's signature. "
                     f"mutates_args should contain the names of all args that the custom op "
                     f"mutates.")
    ret_annotation = sig.return_annotation
    if ret_annotation is inspect.Signature.empty:
        error_fn("No return type annotation was provided. Please add one.")
    ret = _return_type(_resolve(ret_annotation, prototype_function), error_fn)
    result = f"({', '.join(params)}) -> {ret}"
    return result if op_name is None else op_name + result


# ---- schema strings (what custom_op needs of them) ----
def _split_top(s):
    parts, depth, cur = [], 0, ""
    for c in s:
        depth += c in "([" and 1 or 0
        depth -= c in ")]" and 1 or 0
        if c == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += c
    if cur.strip():
        parts.append(cur.strip())
    return parts


class _Arg:
    def __init__(self, text, kwarg_only):
        decl, _, default = text.partition("=")
        self.type, _, self.name = decl.strip().rpartition(" ")
        self.has_default = bool(_)
        self.default = None
        if self.has_default:
            try:
                self.default = ast.literal_eval(default.strip())
            except (ValueError, SyntaxError):
                self.default = default.strip()
        self.kwarg_only = kwarg_only
        self.is_write = "!" in self.type
        self.is_tensor = self.type.startswith("Tensor")


def _parse_args(schema):
    """The arguments of "(...) -> ..." / "name(...) -> ..."."""
    inner = schema[schema.index("(") + 1:schema.rindex("->")].strip()
    inner = inner[:inner.rindex(")")]
    args, kwarg_only = [], False
    for part in _split_top(inner):
        if part == "*":
            kwarg_only = True
            continue
        args.append(_Arg(part, kwarg_only))
    return args


def _tensors(obj):
    import ember
    if isinstance(obj, ember.Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in _tensors(o)]
    if isinstance(obj, dict):
        return [t for o in obj.values() for t in _tensors(o)]
    return []


def _check_aliasing(name, args, kwargs, result, get_module):
    seen = {}
    for t in _tensors((args, kwargs)):
        seen.setdefault(t.untyped_storage()._cdata, True)
    outs = set()
    for t in _tensors(result):
        key = t.untyped_storage()._cdata
        if key in seen or key in outs:
            raise RuntimeError(
                "Tensors returned from custom ops (1) must not be inputs to the custom op and (2) "
                "may not alias any inputs or other returns. Please clone the the offending output "
                "tensors (e.g. output.clone()) or refactor your code. Offending op: "
                f"{name} (with implementation in {get_module()})")
        outs.add(key)


# ---- the autograd kernel ----
class _InputsView:
    """The backward context as the formula sees it: needs_input_grad without the generated
    Function's trailing slot (the kwargs); everything else is the context's."""

    def __init__(self, ctx):
        object.__setattr__(self, "_ctx", ctx)

    @property
    def needs_input_grad(self):
        return self._ctx.needs_input_grad[:-1]

    def __getattr__(self, name):
        return getattr(self._ctx, name)

    def __setattr__(self, name, value):
        setattr(self._ctx, name, value)


def _make_autograd_impl(op, info):
    from .autograd import Function
    args_info = _parse_args(str(op._schema))
    has_kwarg_only = any(a.kwarg_only for a in args_info)
    positional = [a for a in args_info if not a.kwarg_only]

    def fill_defaults(args, kwargs):
        full = list(args) + [a.default for a in positional[len(args):]]
        kw = {a.name: kwargs.get(a.name, a.default) for a in args_info if a.kwarg_only}
        return tuple(full), kw

    def forward(ctx, *args):
        kwargs = args[-1]
        args = args[:-1]
        with _C._AutoDispatchBelowAutograd():
            result = op(*args, **kwargs)
        if info._setup_context_fn:
            inputs, kw = fill_defaults(args, kwargs)
            if has_kwarg_only:
                info._setup_context_fn(ctx=ctx, inputs=inputs, keyword_only_inputs=kw,
                                       output=result)
            else:
                info._setup_context_fn(ctx=ctx, inputs=inputs, output=result)
        return result

    def backward(ctx, *grads):
        if info._backward_fn:
            # The formula sees the op's inputs only (not the trailing kwargs slot).
            result = info._backward_fn(_InputsView(ctx), *grads)
            if isinstance(result, tuple):
                return (*result, None)
            return result, None
        raise RuntimeError(f"Trying to backward through {op} but no autograd formula was "
                           f"registered. Please use register_autograd to add one.")

    name = (f"GeneratedBackwardFor_{op._overloadpacket._namespace}_"
            f"{op._overloadpacket._opname}_{op._overloadname}")
    generated = type(name, (Function,), {"forward": staticmethod(forward),
                                         "backward": staticmethod(backward)})

    def autograd_impl(*args, **kwargs):
        if _C.is_grad_enabled() and any(t.requires_grad for t in _tensors(args)):
            return generated.apply(*args, kwargs)
        with _C._AutoDispatchBelowAutograd():
            return op(*args, **kwargs)
    return autograd_impl


# ---- custom_op ----
def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None, tags=None):
    """Wraps a function into an operator `name` ("mylib::f"); returns its CustomOpDef.

    Usable as `@custom_op("mylib::f", mutates_args=())` or `custom_op("mylib::f", fn,
    mutates_args=())`. The schema comes from the function's annotations unless `schema` is
    given; `device_types` ("cpu", "meta" or a list) restricts the function to those devices."""

    def inner(fn):
        if schema is None:
            schema_str = infer_schema(fn, mutates_args=mutates_args)
        else:
            schema_str = schema
        namespace, opname = name.split("::")
        result = CustomOpDef(namespace, opname, schema_str, fn)
        if schema is not None:
            expected = {a.name for a in _parse_args(schema_str) if a.is_write}
            if expected != set(mutates_args):
                raise ValueError(
                    f"Attempted to create a custom op with `mutates_args={mutates_args}` and "
                    f"`schema={schema}. The schema suggests that the op mutates {expected}which is "
                    f"different from what was provided to us in `mutates_args`. Please make these "
                    f"consistent.")
        result.register_kernel(device_types)(fn)
        return result

    if fn is None:
        return inner
    return inner(fn)


def _library_for(namespace, name):
    """A fresh FRAGMENT Library for custom op namespace::name, dropping a previous definition."""
    from .library import Library
    qualname = f"{namespace}::{name}"
    old = _custom_op_libs.pop(qualname, None)
    if old is not None:
        old._destroy()
    from .library import _fake_impls
    _fake_impls.pop(qualname, None)
    lib = Library(namespace, "FRAGMENT")
    _custom_op_libs[qualname] = lib
    return lib


class CustomOpDef:
    """What custom_op returns: the op and the methods that register more of its behaviour."""

    def __init__(self, namespace, name, schema, fn):
        self._namespace = namespace
        self._name = name
        self._schema = schema
        self._init_fn = fn
        self._backend_fns = {}
        self._abstract_fn = None
        self._setup_context_fn = None
        self._backward_fn = None
        self._disabled_kernel = set()
        self._lib = _library_for(namespace, name)
        self._register_to_dispatcher()
        OPDEFS[self._qualname] = self

    @property
    def _qualname(self):
        return f"{self._namespace}::{self._name}"

    def __repr__(self):
        return f"<CustomOpDef({self._qualname})>"

    @contextlib.contextmanager
    def set_kernel_enabled(self, device_type, enabled=True):
        """Disables (or re-enables) the kernel registered for `device_type` within the block:
        the function custom_op wrapped runs instead."""
        action = "enable" if enabled else "disable"
        originally_disabled = device_type in self._disabled_kernel
        if device_type not in self._backend_fns:
            log.warning("Attempted to %s kernel for %s but no kernel was registered for this "
                        "device type.", action, device_type)
        if not enabled:
            if originally_disabled:
                log.warning("Attempted to disable kernel for %s but it was already disabled.",
                            device_type)
            else:
                self._disabled_kernel.add(device_type)
        else:
            if not originally_disabled:
                log.warning("Attempted to enable kernel for  %s but it was already enabled.",
                            device_type)
            else:
                self._disabled_kernel.remove(device_type)
        try:
            yield
        finally:
            if originally_disabled:
                self._disabled_kernel.add(device_type)
            else:
                self._disabled_kernel.discard(device_type)

    def register_kernel(self, device_types, fn=None, /):
        """Registers `fn` as the implementation for `device_types` ("cpu", "meta", a list, or
        None for every device). Usable as a decorator."""

        def inner(fn):
            dtypes = [device_types] if device_types is None or isinstance(device_types, str) \
                else list(device_types)
            for device_type in dtypes:
                if device_type not in self._backend_fns:
                    def backend_impl(*args, _device_type=device_type, **kwargs):
                        result = self._backend_fns[_device_type](*args, **kwargs)

                        def get_module():
                            return inspect.getmodule(self._backend_fns[_device_type])
                        _check_aliasing(self._name, args, kwargs, result, get_module)
                        return result

                    key = "CompositeExplicitAutograd" if device_type is None \
                        else _C._dispatch_key_for_device(device_type)
                    self._lib.m.impl(self._name, key, backend_impl)

                def wrapped_fn(*args, _device_type=device_type, **kwargs):
                    if _device_type in self._disabled_kernel:
                        return self._init_fn(*args, **kwargs)
                    return fn(*args, **kwargs)
                self._backend_fns[device_type] = wrapped_fn
            return fn

        if device_types is not None and not any(a.is_tensor for a in self._args):
            if not any(a.type.startswith("Device") and a.name == "device" for a in self._args):
                raise ValueError("Functions without tensor inputs are required to have a "
                                 "`device: ember.device` argument")
        if fn is None:
            return inner
        return inner(fn)

    def register_fake(self, fn, /):
        """Registers the fake implementation: the op's result for meta tensors (shapes and
        dtypes only). Returns `fn`, so it works as a decorator."""
        self._abstract_fn = fn
        return fn

    def register_torch_dispatch(self, torch_dispatch_class, fn=None, /):
        """Registers `fn(mode_or_cls, func, types, args, kwargs)` as what `torch_dispatch_class`
        (a TorchDispatchMode or Tensor subclass) does for this op, in place of its
        __torch_dispatch__. Usable as a decorator."""
        from .library import register_torch_dispatch
        return register_torch_dispatch(self, torch_dispatch_class, fn)

    def register_autograd(self, backward, /, *, setup_context=None):
        """Registers the backward formula `backward(ctx, *grads)` (one gradient per positional
        input) and `setup_context(ctx, inputs, output)` (with `keyword_only_inputs` before
        `output` when the op has kwarg-only arguments), run in forward."""
        if any(a.is_write for a in self._args):
            raise RuntimeError(f"Cannot register autograd formula for non-functional operator "
                               f"{self} with schema {self._opoverload._schema}. Please create a "
                               f"functional operator and register an autograd formula for that.")
        self._backward_fn = backward
        self._setup_context_fn = setup_context

    def _register_to_dispatcher(self):
        lib = self._lib
        schema_str = self._name + self._schema
        self._args = _parse_args(schema_str)
        if any(a.kwarg_only and a.is_tensor for a in self._args):
            raise NotImplementedError(f"custom_op with kwarg-only Tensor args. Please make your "
                                      f"tensors not kwarg-only. Got: {schema_str}")
        lib.define(schema_str)
        self._opoverload = _ops._lookup(self._qualname)
        returns = self._schema[self._schema.rindex("->") + 2:].strip()

        def fake_impl(*args, **kwargs):
            if self._abstract_fn is None:
                if returns == "()":
                    return None
                raise RuntimeError(f"There was no fake impl registered for {self}. This is "
                                   f"necessary for ember.compile/export/fx tracing to work. Please "
                                   f"use `{self._init_fn.__name__}.register_fake` to add an fake "
                                   f"impl.")
            return self._abstract_fn(*args, **kwargs)

        lib.m.impl(self._name, "Meta", fake_impl)
        lib.m.impl(self._name, "Autograd", _make_autograd_impl(self._opoverload, self))
        if any(a.is_write for a in self._args):
            _C._set_bump_mutated_versions(self._qualname, "default", True)

    def __call__(self, *args, **kwargs):
        return self._opoverload(*args, **kwargs)
