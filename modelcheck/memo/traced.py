"""A state component that notes when it is first used, and otherwise behaves as its value.

A :class:`Traced` wraps one component's value: every operation (attribute
reads, comparisons, hashing, truth, length, iteration, indexing, arithmetic,
formatting, ``isinstance`` through ``__class__``) is done on the value, and
each appends the component's index to the evaluation's read log.
So one run of a spec function on a state of traced components gives its
result and the order in which it first used each component: the path of
its decision tree (:mod:`modelcheck.memo.tries`).

Two things see through the wrapper: ``type(x)`` and identity (``x is y``,
``id(x)``).  A spec that applies them to a state's parts could take another
path on the wrapper than on the value without the log noting a read, so
:mod:`modelcheck.memo.guard` keeps such specs off the memo tables.
"""

# modelcheck: compile

from __future__ import annotations

import math
import operator
from typing import Any

_get = object.__getattribute__


class Traced:
    """Component ``k`` of the state under evaluation, with value ``v``.

    Made once per (component, value) and reused by every evaluation: the log
    is one list, emptied before each.
    """

    __slots__ = ("_v", "_k", "_log")

    def __init__(self, v: Any, k: int, log: list) -> None:
        object.__setattr__(self, "_v", v)
        object.__setattr__(self, "_k", k)
        object.__setattr__(self, "_log", log)

    def __getattribute__(self, name: str) -> Any:
        return getattr(value_of(self), name)  # ``__class__`` too: isinstance() sees the value's class



def value_of(x: Traced) -> Any:
    """The wrapped value, noting the component as used (every use goes into the log; the first counts)."""
    _get(x, "_log").append(_get(x, "_k"))
    return _get(x, "_v")


def component_of(x: Traced) -> int:
    return _get(x, "_k")


def _unary(fn: Any) -> Any:
    def op(self: Traced) -> Any:
        _get(self, "_log").append(_get(self, "_k"))
        return fn(_get(self, "_v"))
    return op


def _binary(fn: Any, reflected: bool = False) -> Any:
    if reflected:
        def op(self: Traced, other: Any) -> Any:
            _get(self, "_log").append(_get(self, "_k"))
            return fn(value_of(other) if type(other) is Traced else other, _get(self, "_v"))
    else:
        def op(self: Traced, other: Any) -> Any:
            _get(self, "_log").append(_get(self, "_k"))
            return fn(_get(self, "_v"), value_of(other) if type(other) is Traced else other)
    return op


# Each operation is the full operator on the value (so its own reflected dispatch happens), never the
# value's dunder alone: ``3 < 5.0`` works although ``int.__lt__(3, 5.0)`` is NotImplemented.
_UNARY = {
    "__hash__": hash, "__bool__": bool, "__len__": len, "__iter__": iter, "__reversed__": reversed,
    "__neg__": operator.neg, "__pos__": operator.pos, "__abs__": abs, "__invert__": operator.invert,
    "__index__": operator.index, "__int__": int, "__float__": float, "__complex__": complex,
    "__trunc__": math.trunc, "__floor__": math.floor, "__ceil__": math.ceil, "__repr__": repr, "__str__": str,
    "__length_hint__": operator.length_hint,
}
_BINARY = {
    "__eq__": operator.eq, "__ne__": operator.ne, "__lt__": operator.lt, "__le__": operator.le,
    "__gt__": operator.gt, "__ge__": operator.ge, "__contains__": operator.contains,
    "__getitem__": operator.getitem, "__format__": format, "__add__": operator.add, "__sub__": operator.sub,
    "__mul__": operator.mul, "__matmul__": operator.matmul, "__truediv__": operator.truediv,
    "__floordiv__": operator.floordiv, "__mod__": operator.mod, "__divmod__": divmod, "__pow__": pow,
    "__lshift__": operator.lshift, "__rshift__": operator.rshift, "__and__": operator.and_,
    "__or__": operator.or_, "__xor__": operator.xor,
}
_REFLECTED = ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "divmod", "pow", "lshift", "rshift",
              "and", "or", "xor")

for _name, _fn in _UNARY.items():
    setattr(Traced, _name, _unary(_fn))
for _name, _fn in _BINARY.items():
    setattr(Traced, _name, _binary(_fn))
for _name in _REFLECTED:
    setattr(Traced, f"__r{_name}__", _binary(_BINARY[f"__{_name}__"], reflected=True))


def _round(self: Traced, *args: Any) -> Any:
    return round(value_of(self), *args)


Traced.__round__ = _round  # type: ignore[attr-defined]


def _refuse(self: Traced, *args: Any) -> Any:
    raise TypeError("a state component cannot be changed, copied or pickled")


for _name in ("__setattr__", "__delattr__", "__setitem__", "__delitem__", "__reduce__", "__reduce_ex__",
              "__copy__", "__deepcopy__", "__call__"):
    setattr(Traced, _name, _refuse)
del _name
