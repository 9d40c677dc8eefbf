"""ember.ops: the op table as objects, `ember.ops.aten.add.Tensor` (torch.ops / torch._ops).

An OpOverload is one row of the table ("aten::add.Tensor"); __torch_dispatch__ handlers receive
these as `func`, compare them with `is` (each is created once) and call them: a call goes to the
dispatcher as a C++ caller's would, with no __torch_function__ on the way, so inside a handler it
reaches the layers below (a dispatch mode is popped while its handler runs).
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
        self._op = _C._make_op_function(packet._opname, [self._name], False)

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


class OpOverloadPacket:
    def __init__(self, namespace, opname, overloads):
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
            for n in self._overload_names], False)
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
        raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{opname}'")


class _Ops(_types.ModuleType):
    def __init__(self):
        super().__init__("ember.ops")
        self._by_name = {}
        for ns, table in _table().items():
            namespace = _OpNamespace(ns, table)
            setattr(self, ns, namespace)
            for packet in vars(namespace).values():
                if isinstance(packet, OpOverloadPacket):
                    for overload in packet._overload_names:
                        op = getattr(packet, overload)
                        self._by_name[op._name] = op

    def _lookup(self, qualified_name):
        """The OpOverload of "aten::add.Tensor" / "aten::detach"."""
        return self._by_name[qualified_name]


ops = _Ops()
