"""ember.library: operators defined at run time (torch.library).

A `Library` is a block of registrations in ember's op table (C++ ember::Library, the same one
EMBER_LIBRARY uses): `define` adds an op (`ember.ops.<ns>.<op>`), `impl` gives it a kernel per
dispatch key ("CPU", "Meta", "QuantizedCPU", "Autograd", "CompositeImplicitAutograd",
"CompositeExplicitAutograd"); Python callables are kernels. Everything a Library registered is
removed when it is garbage collected (or `_destroy()`ed). `custom_op` (ember/_custom_op.py) builds
on these. See docs/custom-ops.md.
"""
import contextlib
import functools
import inspect
import re
import sys
import traceback
import weakref

from . import _C
from ._ops import OpOverload, ops as _ops

__all__ = ["Library", "impl", "define", "fallthrough_kernel", "register_fake", "register_autograd",
           "register_kernel", "register_torch_dispatch", "impl_abstract", "custom_op", "CustomOpDef", "infer_schema", "opcheck"]

# (namespace/op/dispatch key) of every kernel registered from Python: a second registration of
# the same one is an error (as in PyTorch).
_impls = set()
_defs = set()
_reserved_namespaces = ["prim"]
# Libraries made by the functional APIs (define / impl / register_fake without lib=) live forever.
_keep_alive = []


def fallthrough_kernel():
    """A dummy kernel: `lib.impl(name, fallthrough_kernel, key)` registers a fallthrough."""
    raise NotImplementedError("fallthrough_kernel() should never be called.")


def _del_library(captured_impls, op_impls, captured_defs, op_defs, handles, m):
    captured_impls -= op_impls
    captured_defs -= op_defs
    for handle in handles:
        handle.destroy()
    m.reset()
    for name in op_defs:
        _ops._invalidate(name)


class Library:
    """A block of operator registrations in namespace `ns`.

    kind "DEF" defines the namespace's ops (one per namespace), "FRAGMENT" adds more definitions
    (any number), "IMPL" registers kernels only; `dispatch_key` is the key `impl` uses by default.
    """

    def __init__(self, ns, kind, dispatch_key=""):
        if kind not in ("IMPL", "DEF", "FRAGMENT"):
            raise ValueError("Unsupported kind: ", kind)
        if ns in _reserved_namespaces and kind in ("DEF", "FRAGMENT"):
            raise ValueError(ns, " is a reserved namespace. Please try creating a library with "
                             "another name.")
        frame = traceback.extract_stack(limit=2)[0]  # the caller
        filename, lineno = frame.filename, frame.lineno
        self.m = _C._dispatch_library(kind, ns, dispatch_key, filename, lineno)
        self.ns = ns
        self._op_defs = set()
        self._op_impls = set()
        self._registration_handles = []
        self.kind = kind
        self.dispatch_key = dispatch_key
        self._finalizer = weakref.finalize(self, _del_library, _impls, self._op_impls, _defs,
                                           self._op_defs, self._registration_handles, self.m)

    def __repr__(self):
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def define(self, schema, alias_analysis="", *, tags=()):
        """Defines an op from its schema ("foo(Tensor x, int k=1) -> Tensor"); returns its name."""
        if alias_analysis not in ["", "FROM_SCHEMA", "CONSERVATIVE"]:
            raise RuntimeError(f"Invalid alias_analysis type {alias_analysis}")
        if self.m is None:
            raise RuntimeError("this Library was destroyed")
        result = self.m.define(schema, alias_analysis)
        name = schema.split("(")[0]
        qualname = name if "::" in name else self.ns + "::" + name
        _ops._invalidate(qualname)  # a packet cached before this overload existed
        self._op_defs.add(qualname)
        _defs.add(qualname)
        return result


    def impl(self, op_name, fn, dispatch_key="", *, with_keyset=False):
        """Registers `fn` as the kernel of `op_name` ("foo", "foo.overload", "ns::foo" or an
        OpOverload) for `dispatch_key` (default: the Library's, else
        CompositeImplicitAutograd)."""
        if not callable(fn):
            raise TypeError(f"Input function is required to be a callable but found type {type(fn)}")
        if with_keyset:
            raise NotImplementedError("Library.impl(..., with_keyset=True): ember's kernels get "
                                      "no DispatchKeySet")
        if dispatch_key == "":
            dispatch_key = self.dispatch_key
        name = _qualname_of(op_name)
        if not isinstance(name, str):
            raise RuntimeError("impl should be passed either a name or an OpOverload object as the "
                               "first argument")
        key = self.ns + "/" + name.split("::")[-1] + "/" + dispatch_key
        if key in _impls:
            raise RuntimeError(
                "This is not allowed since there's already a kernel registered from python "
                f"overriding {name.split('::')[-1]}'s behavior for {dispatch_key} dispatch key and "
                f"{self.ns} namespace.")
        if dispatch_key == "Meta":
            qualified = name if "::" in name else f"{self.ns}::{name}"
            if _C._dispatch_has_kernel_for_dispatch_key(qualified, "CompositeImplicitAutograd"):
                raise RuntimeError(
                    f"We should not register a meta kernel directly to the operator '{name}',"
                    " because it has a CompositeImplicitAutograd kernel in core."
                    " Instead we should let the operator decompose, and ensure that we have meta "
                    "kernels for the base ops that it decomposes into.")
        if self.m is None:
            raise RuntimeError("this Library was destroyed")
        effective = dispatch_key if dispatch_key != "" else "CompositeImplicitAutograd"
        if fn is fallthrough_kernel:
            self.m.impl_fallthrough(name, effective)
        else:
            self.m.impl(name, effective, fn)
        _impls.add(key)
        self._op_impls.add(key)

    def fallback(self, fn, dispatch_key="", *, with_keyset=False):
        """Only `Library("_", "IMPL").fallback(fallthrough_kernel, "Autograd")`: run-time ops
        without an Autograd kernel then run below autograd with no warning."""
        if dispatch_key == "":
            dispatch_key = self.dispatch_key
        if fn is not fallthrough_kernel or dispatch_key != "Autograd" or self.ns != "_":
            raise NotImplementedError("ember supports one fallback: Library('_', 'IMPL')."
                                      "fallback(fallthrough_kernel, 'Autograd')")
        self.m.fallback_fallthrough()

    def _register_fake(self, op_name, fn, _stacklevel=1):
        source = _get_source(_stacklevel + 1)
        qualname = f"{self.ns}::{op_name}"
        handle = _fake_entry(qualname).register(fn, source)
        self._registration_handles.append(handle)

    def _destroy(self):
        if self._finalizer.alive:
            self._finalizer()
        self.m = None


@contextlib.contextmanager
def _scoped_library(*args, **kwargs):
    """A Library for the duration of a `with` block (its registrations go at the end)."""
    lib = Library(*args, **kwargs)
    try:
        yield lib
    finally:
        lib._destroy()


def _get_source(stacklevel):
    frame = inspect.getframeinfo(sys._getframe(stacklevel))
    return f"{frame.filename}:{frame.lineno}"


def _library_or_fragment(qualname, lib):
    """`lib`, or a FRAGMENT Library of qualname's namespace that lives as long as the process."""
    if lib is not None:
        return lib
    namespace, _ = _parse_namespace(qualname)
    lib = Library(namespace, "FRAGMENT")
    _keep_alive.append(lib)
    return lib


def _parse_namespace(qualname):
    splits = qualname.split("::")
    if len(splits) != 2:
        raise ValueError(f"Expected `qualname` to be of the form \"namespace::name\", but got "
                         f"{qualname}. The qualname passed to the ember.library APIs must be of "
                         f"this form.")
    return splits[0], splits[1]


# ---- fake (meta) implementations ----
class _RegistrationHandle:
    def __init__(self, on_destroy):
        self._on_destroy = on_destroy

    def destroy(self):
        self._on_destroy()


class _FakeImplHolder:
    """The fake implementation of one op: registered at its Meta key (ember's meta tensors are
    its fake tensors)."""

    def __init__(self, qualname):
        self.qualname = qualname
        self.kernel = None  # (fn, source)
        self.lib = None

    def register(self, fn, source):
        if self.kernel is not None:
            raise RuntimeError(f"register_fake(...): the operator {self.qualname} already has an "
                               f"fake impl registered at {self.kernel[1]}.")
        if _C._dispatch_has_kernel_for_dispatch_key(self.qualname, "Meta"):
            raise RuntimeError(f"register_fake(...): the operator {self.qualname} already has an "
                               "DispatchKey::Meta implementation via a pre-existing ember.library or "
                               "TORCH_LIBRARY registration. Please either remove that registration "
                               "or don't call register_fake.")
        if _C._dispatch_has_kernel_for_dispatch_key(self.qualname, "CompositeImplicitAutograd"):
            raise RuntimeError(f"register_fake(...): the operator {self.qualname} already has an "
                               "implementation for this device type via a pre-existing registration "
                               "to DispatchKey::CompositeImplicitAutograd.CompositeImplicitAutograd "
                               "operators do not need an fake impl; instead, the operator will "
                               "decompose into its constituents and those can have fake impls "
                               "defined on them.")
        self.kernel = (fn, source)
        ns, name = _parse_namespace(self.qualname)
        self.lib = Library(ns, "FRAGMENT")
        self.lib.m.impl(name, "Meta", fn)

        def deregister():
            self.kernel = None
            if self.lib is not None:
                self.lib._destroy()
                self.lib = None
        return _RegistrationHandle(deregister)


_fake_impls = {}


def _fake_entry(qualname):
    if qualname not in _fake_impls:
        _fake_impls[qualname] = _FakeImplHolder(qualname)
    return _fake_impls[qualname]


# ---- the functional / decorator APIs ----
@functools.singledispatch
def define(qualname, schema, *, lib=None, tags=()):
    """Defines op `qualname` ("mylib::sin") with `schema` ("(Tensor x) -> Tensor").

    The legacy form `define(lib, schema, alias_analysis="")` returns a decorator registering the
    function as the op's kernel at the Library's key."""
    if not isinstance(qualname, str):
        raise ValueError(f"define(qualname, schema): expected qualname to be instance of str, got "
                         f"{type(qualname)}")
    _, name = _parse_namespace(qualname)
    lib = _library_or_fragment(qualname, lib)
    if not re.fullmatch(r"\(.*\) -> .*", schema):
        raise ValueError(f"define(qualname, schema, ...): expected schema to look like e.g. "
                         f"\"(Tensor x) -> Tensor\" but got \"{schema}\"")
    lib.define(name + schema, alias_analysis="", tags=tags)


@define.register
def _(lib: Library, schema, alias_analysis=""):
    def wrap(f):
        name = lib.define(schema, alias_analysis)
        lib.impl(name, f)
        return f
    return wrap


def _device_type_to_key(device_type):
    if device_type == "default":
        return "CompositeExplicitAutograd"
    return _C._dispatch_key_for_device(device_type)


_DISPATCH_KEYS = {"CPU", "Meta", "QuantizedCPU", "CUDA", "PrivateUse1", "Autograd", "AutogradCPU",
                  "AutogradMeta", "CompositeImplicitAutograd", "CompositeExplicitAutograd"}


@functools.singledispatch
def impl(qualname, types, func=None, *, lib=None):
    """Registers `func` as the kernel of `qualname` for device types ("cpu", "meta", "default")
    or dispatch keys ("CPU", "Autograd", ...). Usable as a decorator.

    The legacy form `impl(lib, name, dispatch_key="")` returns a decorator."""
    if isinstance(types, str):
        types = (types,)
    keys = {t if t in _DISPATCH_KEYS else _device_type_to_key(t) for t in types}

    def register(func):
        use_lib = _library_or_fragment(qualname, lib)
        for key in keys:
            use_lib.impl(qualname, func, key)
        return func

    if func is None:
        return register
    return register(func)


@impl.register
def _(lib: Library, name, dispatch_key=""):
    def wrap(f):
        lib.impl(name, f, dispatch_key)
        return f
    return wrap


def _qualname_of(op):
    from ._custom_op import CustomOpDef
    if isinstance(op, OpOverload):
        return op.name()
    if isinstance(op, CustomOpDef):
        return op._qualname
    return op


def register_fake(op, func=None, /, *, lib=None, _stacklevel=1):
    """Registers the fake (meta) implementation of an op: what it returns for tensors without
    data, computed from their shapes and dtypes. Usable as a decorator."""
    from ._custom_op import CustomOpDef, _opdef_of
    if not isinstance(op, (str, OpOverload, CustomOpDef)):
        raise ValueError(f"register_fake({op}): got unexpected type for op: {type(op)}")
    op = _qualname_of(op) if not isinstance(op, CustomOpDef) else op
    opdef = op if isinstance(op, CustomOpDef) else _opdef_of(op)
    if opdef is not None:
        return opdef.register_fake if func is None else opdef.register_fake(func)
    stacklevel = _stacklevel

    def register(func):
        _, op_name = _parse_namespace(op)
        use_lib = _library_or_fragment(op, lib)
        use_lib._register_fake(op_name, func, _stacklevel=stacklevel + 1)
        return func

    if func is None:
        return register
    stacklevel += 1
    return register(func)


def impl_abstract(qualname, func=None, *, lib=None, _stacklevel=1):
    """The former name of register_fake (FutureWarning)."""
    import warnings
    warnings.warn("`ember.library.impl_abstract` was renamed to `ember.library.register_fake`. "
                  "Please use that instead; we will remove `ember.library.impl_abstract` in a "
                  "future version of ember.", FutureWarning, stacklevel=2)
    return register_fake(qualname, func, lib=lib, _stacklevel=_stacklevel + 1)


def register_kernel(op, device_types, func=None, /, *, lib=None):
    """Registers a kernel for `device_types` ("cpu", "meta", None for all) of a custom op or of
    a Library op. Usable as a decorator."""
    from ._custom_op import CustomOpDef, _opdef_of
    opdef = op if isinstance(op, CustomOpDef) else _opdef_of(_qualname_of(op))
    if opdef is not None:
        return opdef.register_kernel(device_types, func) if func is not None else \
            opdef.register_kernel(device_types)
    if device_types is None:
        device_types = "CompositeExplicitAutograd"
    return impl(_qualname_of(op), device_types, func, lib=lib)


def register_torch_dispatch(op, torch_dispatch_class, func=None, /, *, lib=None):
    """Registers `func(mode_or_cls, func, types, args, kwargs)` as what `torch_dispatch_class`
    (a TorchDispatchMode or a Tensor subclass) does for operator `op`, in place of its
    __torch_dispatch__. Usable as a decorator."""
    from .utils import _python_dispatch
    qualname = _qualname_of(op)
    if not isinstance(qualname, str):
        raise ValueError(f"register_torch_dispatch({op}): got unexpected type for op: {type(op)}")
    name = _ops._lookup(qualname).name()

    def register(func):
        _python_dispatch._torch_dispatch_rules[(name, torch_dispatch_class)] = func
        return func

    if func is None:
        return register
    return register(func)


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    """Registers `backward` (and `setup_context`) as the autograd formula of a custom op or of a
    Library op (an Autograd kernel built from an autograd.Function)."""
    from ._custom_op import CustomOpDef, _opdef_of, _make_autograd_impl
    opdef = op if isinstance(op, CustomOpDef) else _opdef_of(_qualname_of(op))
    if opdef is not None:
        return opdef.register_autograd(backward, setup_context=setup_context)
    qualname = _qualname_of(op)
    if not isinstance(qualname, str):
        raise ValueError(f"register_autograd({op}): got unexpected type for op: {type(op)}")
    _, name = _parse_namespace(qualname)
    overload = _ops._lookup(qualname)
    schema = str(overload._schema)
    if "!" in schema.split("->")[0]:
        raise RuntimeError(f"Cannot register autograd formula for non-functional operator {overload} "
                           f"with schema {schema}. Please create a functional operator and "
                           f"register an autograd formula for that.")

    class _Info:
        _backward_fn = backward
        _setup_context_fn = setup_context

    _library_or_fragment(qualname, lib).impl(name, _make_autograd_impl(overload, _Info), "Autograd")


from ._custom_op import custom_op, CustomOpDef, infer_schema  # noqa: E402
from ._opcheck import opcheck  # noqa: E402
