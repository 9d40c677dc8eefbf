"""ember.ops: the op table as objects, `ember.ops.aten.add.Tensor` (torch.ops / torch._ops).

An OpOverload is one row of the table ("aten::add.Tensor"); __torch_dispatch__ handlers receive
these as `func`, compare them with `is` (each is created once) and call them: a call goes to the
dispatcher as a C++ caller's would, with no __torch_function__ on the way, so inside a handler it
reaches the layers below (a dispatch mode is popped while its handler runs).

Operators defined at run time (ember.library) appear here too, looked up on first access
(`ember.ops.myns.foo`); calling one of those hands it to __torch_function__ first, as torch.ops
does for custom ops. Removing a Library drops its ops from here (_invalidate).
"""
import types as _types

from . import _C
from . import return_types  # noqa: F401  (ember.return_types, the named results of ops)

__all__ = ["ops", "OpOverload", "OpOverloadPacket"]


def _table():
    by_ns = {}
    for qualified, overload, schema in _C._op_table():
        ns, name = qualified.split("::", 1)
        by_ns.setdefault(ns, {}).setdefault(name, []).append((overload, schema))
    return by_ns


class OpOverload:
    def __init__(self, packet, overloadname, schema):
        self._overloadpacket = packet
        self._overloadname = overloadname
        self._schema = schema
        qualified = f"{packet._qualified_op_name}"
        self._name = qualified if overloadname == "default" else f"{qualified}.{overloadname}"
        self.__name__ = f"{packet._opname}.{overloadname}"
        self.__qualname__ = self.__name__
        self.__module__ = packet.__module__
        # "-> Tensor[]" results come back as lists, as torch.ops.aten gives them.
        self._op = _C._make_op_function(packet._opname, [self._name], False, True)
        self._runtime = packet._runtime

    @property
    def overloadpacket(self):
        return self._overloadpacket

    @property
    def op(self):
        return self._op

    @property
    def namespace(self):
        return self._overloadpacket._namespace

    def name(self):
        return self._name

    def __call__(self, *args, **kwargs):
        if self._runtime:
            return _call_runtime(self, self._op, args, kwargs)
        with _C.DisableTorchFunction():
            return self._op(*args, **kwargs)

    def __repr__(self):
        return (f"<OpOverload(op='{self._overloadpacket._namespace}.{self._overloadpacket._opname}',"
                f" overload='{self._overloadname}')>")

    def __str__(self):
        return f"{self._overloadpacket._namespace}.{self.__name__}"

    def __hash__(self):
        return id(self)

    def __eq__(self, other):
        return self is other


def _tensors_in(args, kwargs):
    out = []
    for a in (*args, *kwargs.values()):
        if isinstance(a, (list, tuple)):
            out.extend(a)
        else:
            out.append(a)
    return out


def _call_runtime(public_api, fn, args, kwargs):
    # A run-time op meets __torch_function__ here (func is the OpOverload / packet), then the
    # dispatcher's other layers with the function layer off (the handler's own call comes back
    # here with its subclass disabled or its mode popped).
    from .overrides import has_torch_function, handle_torch_function
    relevant = _tensors_in(args, kwargs)
    if has_torch_function(relevant):
        return handle_torch_function(public_api, relevant, *args, **kwargs)
    with _C.DisableTorchFunction():
        return fn(*args, **kwargs)


class OpOverloadPacket:
    def __init__(self, namespace, opname, overloads, runtime=False):
        self._runtime = runtime
        self._namespace = namespace
        self._opname = opname
        self._qualified_op_name = f"{namespace}::{opname}"
        self.__name__ = opname
        self.__module__ = f"ember._ops.{namespace}"
        self._overload_schemas = dict(overloads)
        self._overload_names = [name for name, _ in overloads]
        for name, schema in overloads:
            setattr(self, name, OpOverload(self, name, schema))

    def overloads(self):
        return list(self._overload_names)

    def __call__(self, *args, **kwargs):
        # The packet tries its overloads as ember.<op> does.
        fn = _C._make_op_function(self._opname, [
            self._qualified_op_name if n == "default" else f"{self._qualified_op_name}.{n}"
            for n in self._overload_names], False, True)
        if self._runtime:
            return _call_runtime(self, fn, args, kwargs)
        with _C.DisableTorchFunction():
            return fn(*args, **kwargs)

    def __getattr__(self, key):
        raise AttributeError(f"The underlying op of '{self._namespace}.{self._opname}' has no "
                             f"overload name '{key}'")

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self._namespace}.{self._opname}')>"

    def __str__(self):
        return f"{self._namespace}.{self._opname}"


class _OpNamespace(_types.ModuleType):
    def __init__(self, name, ops):
        super().__init__(f"ember.ops.{name}")
        self.__file__ = "ember.ops"
        self.name = name
        for opname, overloads in ops.items():
            setattr(self, opname, OpOverloadPacket(name, opname, overloads))

    def __getattr__(self, opname):
        # An op defined at run time (ember.library) is looked up on first access, then cached.
        if not opname.startswith("__"):
            qualified = f"{self.name}::{opname}"
            overloads = [(ov, schema) for name, ov, schema in _C._runtime_ops(self.name)
                         if name == qualified]
            if overloads:
                packet = OpOverloadPacket(self.name, opname, overloads, runtime=True)
                setattr(self, opname, packet)
                for overload in packet._overload_names:
                    op = getattr(packet, overload)
                    ops._by_name[op._name] = op
                return packet
        raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{opname}'")


class _Ops(_types.ModuleType):
    def __init__(self):
        super().__init__("ember.ops")
        self.loaded_libraries = set()
        self._by_name = {}
        for ns, table in _table().items():
            namespace = _OpNamespace(ns, table)
            setattr(self, ns, namespace)
            for packet in vars(namespace).values():
                if isinstance(packet, OpOverloadPacket):
                    for overload in packet._overload_names:
                        op = getattr(packet, overload)
                        self._by_name[op._name] = op

    def __getattr__(self, ns):
        # torch.ops.<any namespace> exists; its ops appear when a Library defines them.
        if ns.startswith("__"):
            raise AttributeError(f"module 'ember.ops' has no attribute '{ns}'")
        namespace = _OpNamespace(ns, {})
        setattr(self, ns, namespace)
        return namespace

    def load_library(self, path):
        """Loads a shared library whose EMBER_LIBRARY blocks register operators (they run as it
        loads); its ops then appear under ember.ops.<namespace>."""
        import ctypes
        import os
        path = os.path.realpath(path)
        ctypes.CDLL(path)
        self.loaded_libraries.add(path)

    def _lookup(self, qualified_name):
        """The OpOverload of "aten::add.Tensor" / "aten::detach"."""
        op = self._by_name.get(qualified_name)
        if op is None:  # a run-time op not looked up yet
            name, _, overload = qualified_name.partition(".")
            ns, opname = name.split("::", 1)
            packet = getattr(getattr(self, ns), opname)
            op = getattr(packet, overload or "default")
        return op

    def _invalidate(self, qualified_name):
        """Forgets the cached packet of run-time op "myns::foo" (redefined or removed)."""
        ns, opname = qualified_name.split("::", 1)
        opname = opname.split(".", 1)[0]
        namespace = self.__dict__.get(ns)
        if namespace is None:
            return
        packet = namespace.__dict__.get(opname)
        if isinstance(packet, OpOverloadPacket) and packet._runtime:
            delattr(namespace, opname)
            for overload in packet._overload_names:
                self._by_name.pop(getattr(packet, overload)._name, None)


ops = _Ops()
