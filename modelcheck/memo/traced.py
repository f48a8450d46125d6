"""A state component that notes when it is first used, and otherwise behaves as its value.

A :class:`Traced` wraps one component's value: every operation (attribute
reads, comparisons, hashing, truth, length, iteration, indexing, arithmetic,
formatting, ``isinstance`` through ``__class__``) is done on the value, and
each appends the component's index to the evaluation's read log.
So one run of a spec function on a state of traced components gives its
result and the order in which it first used each component: the path of
its decision tree (:mod:`modelcheck.memo.tries`).

Python has ways to see through the wrapper (``type(x)``, identity,
pattern matching, ``isinstance`` where compiled, ...).  A spec that
applied them to a state's parts could take another path on the wrapper
than on the value without the log noting a read, so the tables serve only
specs whose code stays within :mod:`modelcheck.memo.allowlist`.

Compiled, ``Traced`` is an extension type (``traced.pxd``): each operation is
a C slot reading C fields, about 50 ns, where a Python class's operator
methods cost about 320 ns, and a learning step makes dozens of them.  Every
operation is therefore written out in the class body (an extension type
takes no methods added later), each the full operator on the value (so its
own reflected dispatch happens), never the value's dunder alone: ``3 < 5.0``
works although ``int.__lt__(3, 5.0)`` is NotImplemented.
"""

# modelcheck: compile

from __future__ import annotations

import math
import operator
from typing import Any

_get = object.__getattribute__
_OWN = frozenset(("_v", "_k", "_log"))

try:
    import cython  # read by Cython when ``modelcheck compile`` builds this module

    COMPILED: bool = cython.compiled
except ImportError:  # Cython is the optional ``compile`` extra
    COMPILED = False


class Traced:
    """Component ``k`` of the state under evaluation, with value ``v``.

    Made once per (component, value) and reused by every evaluation: the log
    is one list, emptied before each.
    """

    __slots__ = ("_v", "_k", "_log")

    def __init__(self, v: Any, k: int, log: list) -> None:
        self._v = v
        self._k = k
        self._log = log

    def __getattribute__(self, name: str) -> Any:
        if name in _OWN:  # only uncompiled: compiled methods read the fields in C
            return _get(self, name)
        self._log.append(self._k)
        return getattr(self._v, name)  # ``__class__`` too: isinstance() sees the value's class

    def __hash__(self) -> Any:
        self._log.append(self._k)
        return hash(self._v)

    def __bool__(self) -> Any:
        self._log.append(self._k)
        return bool(self._v)

    def __len__(self) -> Any:
        self._log.append(self._k)
        return len(self._v)

    def __iter__(self) -> Any:
        self._log.append(self._k)
        return iter(self._v)

    def __reversed__(self) -> Any:
        self._log.append(self._k)
        return reversed(self._v)

    def __neg__(self) -> Any:
        self._log.append(self._k)
        return operator.neg(self._v)

    def __pos__(self) -> Any:
        self._log.append(self._k)
        return operator.pos(self._v)

    def __abs__(self) -> Any:
        self._log.append(self._k)
        return abs(self._v)

    def __invert__(self) -> Any:
        self._log.append(self._k)
        return operator.invert(self._v)

    def __index__(self) -> Any:
        self._log.append(self._k)
        return operator.index(self._v)

    # The conversions answer as the value's type does, not as ``int()``/``float()`` do: those parse a str,
    # which has no such method, and C code that converts a number (``math.sqrt``, ``%d``) refuses a str.

    def __int__(self) -> Any:
        self._log.append(self._k)
        return _converted(self._v, "__int__")

    def __float__(self) -> Any:
        self._log.append(self._k)
        return _converted(self._v, "__float__")

    def __complex__(self) -> Any:
        self._log.append(self._k)
        if getattr(type(self._v), "__complex__", None) is None:  # a real number: complex() takes its float
            return complex(_converted(self._v, "__float__"))
        return _converted(self._v, "__complex__")

    def __trunc__(self) -> Any:
        self._log.append(self._k)
        return math.trunc(self._v)

    def __floor__(self) -> Any:
        self._log.append(self._k)
        return math.floor(self._v)

    def __ceil__(self) -> Any:
        self._log.append(self._k)
        return math.ceil(self._v)

    def __repr__(self) -> Any:
        self._log.append(self._k)
        return repr(self._v)

    def __str__(self) -> Any:
        self._log.append(self._k)
        return str(self._v)

    def __length_hint__(self) -> Any:
        # Asked only where ``len`` raised TypeError: the value's own hint, else NotImplemented, so that
        # ``operator.length_hint(part, default)`` gives the default as for the value (not 0).
        self._log.append(self._k)
        hint = getattr(type(self._v), "__length_hint__", None)
        return NotImplemented if hint is None else hint(self._v)

    def __eq__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.eq(self._v, value_of(other) if type(other) is Traced else other)

    def __ne__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.ne(self._v, value_of(other) if type(other) is Traced else other)

    def __lt__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.lt(self._v, value_of(other) if type(other) is Traced else other)

    def __le__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.le(self._v, value_of(other) if type(other) is Traced else other)

    def __gt__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.gt(self._v, value_of(other) if type(other) is Traced else other)

    def __ge__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.ge(self._v, value_of(other) if type(other) is Traced else other)

    def __contains__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.contains(self._v, value_of(other) if type(other) is Traced else other)

    def __getitem__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.getitem(self._v, value_of(other) if type(other) is Traced else other)

    def __format__(self, other: Any) -> Any:
        self._log.append(self._k)
        return format(self._v, value_of(other) if type(other) is Traced else other)

    def __add__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.add(self._v, value_of(other) if type(other) is Traced else other)

    def __radd__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.add(value_of(other) if type(other) is Traced else other, self._v)

    def __sub__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.sub(self._v, value_of(other) if type(other) is Traced else other)

    def __rsub__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.sub(value_of(other) if type(other) is Traced else other, self._v)

    def __mul__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.mul(self._v, value_of(other) if type(other) is Traced else other)

    def __rmul__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.mul(value_of(other) if type(other) is Traced else other, self._v)

    def __matmul__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.matmul(self._v, value_of(other) if type(other) is Traced else other)

    def __rmatmul__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.matmul(value_of(other) if type(other) is Traced else other, self._v)

    def __truediv__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.truediv(self._v, value_of(other) if type(other) is Traced else other)

    def __rtruediv__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.truediv(value_of(other) if type(other) is Traced else other, self._v)

    def __floordiv__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.floordiv(self._v, value_of(other) if type(other) is Traced else other)

    def __rfloordiv__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.floordiv(value_of(other) if type(other) is Traced else other, self._v)

    def __mod__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.mod(self._v, value_of(other) if type(other) is Traced else other)

    def __rmod__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.mod(value_of(other) if type(other) is Traced else other, self._v)

    def __divmod__(self, other: Any) -> Any:
        self._log.append(self._k)
        return divmod(self._v, value_of(other) if type(other) is Traced else other)

    def __rdivmod__(self, other: Any) -> Any:
        self._log.append(self._k)
        return divmod(value_of(other) if type(other) is Traced else other, self._v)

    def __lshift__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.lshift(self._v, value_of(other) if type(other) is Traced else other)

    def __rlshift__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.lshift(value_of(other) if type(other) is Traced else other, self._v)

    def __rshift__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.rshift(self._v, value_of(other) if type(other) is Traced else other)

    def __rrshift__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.rshift(value_of(other) if type(other) is Traced else other, self._v)

    def __and__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.and_(self._v, value_of(other) if type(other) is Traced else other)

    def __rand__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.and_(value_of(other) if type(other) is Traced else other, self._v)

    def __or__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.or_(self._v, value_of(other) if type(other) is Traced else other)

    def __ror__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.or_(value_of(other) if type(other) is Traced else other, self._v)

    def __xor__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.xor(self._v, value_of(other) if type(other) is Traced else other)

    def __rxor__(self, other: Any) -> Any:
        self._log.append(self._k)
        return operator.xor(value_of(other) if type(other) is Traced else other, self._v)

    def __pow__(self, other: Any, mod: Any = None) -> Any:
        if type(self) is not Traced:
            # ``pow(2, 5, s.n)``: three-argument pow asks the modulus's type too, and compiled, this slot then
            # comes here with the two plain operands as they are (they share a type) and the modulus traced.
            return pow(self, other, value_of(mod))
        self._log.append(self._k)
        other = value_of(other) if type(other) is Traced else other
        return pow(self._v, other) if mod is None else pow(self._v, other, value_of(mod) if type(mod) is Traced else mod)

    def __rpow__(self, other: Any, mod: Any = None) -> Any:
        self._log.append(self._k)
        other = value_of(other) if type(other) is Traced else other
        return pow(other, self._v) if mod is None else pow(other, self._v, value_of(mod) if type(mod) is Traced else mod)

    def __round__(self, *args: Any) -> Any:
        self._log.append(self._k)
        return round(self._v, *args)

    # Values are immutable: these raise the value's own error.  Copying and pickling go through the
    # forwarded ``__reduce_ex__``: they copy the value, a use like any other.

    def __setitem__(self, key: Any, value: Any) -> None:
        self._log.append(self._k)
        operator.setitem(self._v, key, value)

    def __delitem__(self, key: Any) -> None:
        self._log.append(self._k)
        operator.delitem(self._v, key)

    # No ``__call__``: a state part is never callable, and a stand-in that had one would pass the checks C
    # code makes (``defaultdict(s.x)``, ``iter(s.x, 0)``) where the value fails them.


def _converted(v: Any, method: str) -> Any:
    """``v``'s own ``__int__``/``__float__``/``__complex__``, or the TypeError of a value without it."""
    f = getattr(type(v), method, None)
    if f is None:
        raise TypeError(f"{type(v).__name__} has no {method}")
    return f(v)


def value_of(x: Traced) -> Any:
    """The wrapped value, noting the component as used (every use goes into the log; the first counts)."""
    x._log.append(x._k)
    return x._v


def component_of(x: Traced) -> int:
    return x._k


def entries_shape(node: Any) -> Any:
    """The layout's tree (:mod:`modelcheck.memo.layout`) as :class:`SuccessorEntries` reads it: a component
    index, or ``(record class or None for a plain tuple, children, ~k of every component below)``."""
    if type(node) is int:
        return node
    children = node[2] if node[0] == "record" else node[1]
    shapes = tuple(entries_shape(c) for c in children)
    below: list[int] = []
    for c in shapes:
        below.extend([c] if type(c) is int else [~x for x in c[2]])
    return (node[1] if node[0] == "record" else None, shapes, tuple(~k for k in below))


class SuccessorEntries:
    """``entries(t, out, intern, s)``: what the layout's generated ``child_entry_of`` does, compiled.

    Appends, per component of the successor ``t`` of the traced state ``s``,
    ``~k`` where ``t`` holds component ``k`` of the parent as it was (its
    :class:`Traced`, or inside a record or tuple of ``s`` that ``t`` holds
    as the very object), else the id ``intern`` gives its value.  The
    generated code is interpreted Python, about a tenth of Kip320's learning
    time; here each step reads the Traced's fields in C, which is why it
    lives beside the class.  Where ``t``'s shape differs from the layout's,
    what was appended is taken back and ``fallback`` (the generated code)
    runs instead, to raise :class:`~modelcheck.memo.layout.LayoutMismatch`
    with the path.  tests/test_memo_assemble.py compares the two.
    """

    def __init__(self, shape: Any, fallback: Any) -> None:
        self.shape = shape
        self.fallback = fallback

    def __call__(self, t: Any, out: list, intern: Any, s: Any) -> None:
        n = len(out)
        if not _entries(self.shape, t, s, out, intern):
            del out[n:]
            self.fallback(t, out, intern, s)


def _entries(node: Any, t: Any, p: Any, out: list, intern: Any) -> bool:
    """Append the entries of ``t`` at ``node`` (``p``: the traced parent's part there, or None); False where
    ``t``'s shape is not the layout's."""
    if type(node) is int:
        if type(t) is Traced:
            tr = t
            out.append(~tr._k)
        else:
            out.append(intern(t))
        return True
    if p is not None and t is p:
        out.extend(node[2])
        return True
    cls = node[0]
    children = node[1]
    n = len(children)
    if (type(t) is not tuple if cls is None else type(t) is not cls) or len(t) != n:
        return False
    for i in range(n):
        c = children[i]
        # Compiled, an item is read as a tuple's (t[i] on a record would go through its class's __getitem__).
        x = mc_tuple_item(t, i) if COMPILED else t[i]
        q = None if p is None or type(c) is int else mc_tuple_item(p, i) if COMPILED else p[i]
        if not _entries(c, x, q, out, intern):
            return False
    return True
