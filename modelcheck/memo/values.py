"""Component values and their ids: equal values of the same types share an id.

Python's equality is looser than a spec's meaning: ``(1, 2) == Record(1, 2)``,
``1 == True``.  Two states that differ only so have the same fingerprint
(``hash``), and the local engine keeps whichever it met first, as a whole
state.  Interning each component's value by equality alone would go
further and hand one component's value (a plain tuple) to another that
holds records, so ids are keyed by the value together with its types, all
the way down.
"""

# modelcheck: compile

from __future__ import annotations

from typing import Any, Callable

from modelcheck.memo.traced import Traced, value_of

_get = object.__getattribute__

try:
    import cython  # read by Cython when ``modelcheck compile`` builds this module

    COMPILED: bool = cython.compiled
except ImportError:  # Cython is the optional ``compile`` extra
    COMPILED = False


class NotCanonical(Exception):  # noqa: N818 - a reason, raised to the readable path
    """A successor holds a value that is not a canonical state part (the readable path names it)."""


def typed_key(v: Any) -> tuple:
    """``(types, value)``: equal only for equal values of the same types; traced parts read and unwrapped."""
    t = type(v)
    if t is int:
        return (int, v)
    if t is Traced:
        return typed_key(value_of(v))
    if t is tuple or t is frozenset or (isinstance(v, tuple) and hasattr(t, "_fields")):
        parts = [typed_key(x) for x in v]
        sig = (t, tuple(p[0] for p in parts) if t is not frozenset else frozenset(p[0] for p in parts))
        if any(p[1] is not x for p, x in zip(parts, v)):
            plain = [p[1] for p in parts]
            v = frozenset(plain) if t is frozenset else tuple(plain) if t is tuple else tuple.__new__(t, plain)
        return (sig, v)
    return (t, v)


def same_types(a: Any, b: Any) -> bool:
    """Whether the equal values ``a`` (plain) and ``b`` have the same types all the way down.

    ``b``'s traced parts count as their values, unread: the probe that found
    ``a`` has already compared them, and a successor often holds a parent's
    component inside a new value (a message carrying the sender's epoch).
    """
    if a is b:
        return True
    t = type(a)
    tb = type(b)
    if tb is Traced:
        b = _get(b, "_v")
        if a is b:
            return True
        tb = type(b)
    if t is not tb:
        return False
    if t is int:
        return True
    if t is tuple or (isinstance(a, tuple) and hasattr(t, "_fields")):
        if len(a) != len(b):
            return False
        for x, y in zip(a, b):
            if not same_types(x, y):
                return False
        return True
    if t is frozenset:
        for x in a:
            if type(x) is not int:
                return typed_key(a) == typed_key(b)
        for x in b:
            if type(x) is not int:
                return False
        return True
    return typed_key(a) == typed_key(b)


class Interner:
    """Component values by id, and ids by typed value.

    The common case is one dict probe by plain value: the id found is taken
    when its value has the same types (:func:`same_types`); otherwise the
    typed key (:func:`typed_key`) decides.
    """

    def __init__(self, canonical: Callable[[Any], bool]) -> None:
        self.values: list = []
        self.ids: dict = {}
        """Typed key -> id, for every value."""
        self.plain: dict = {}
        """Value -> the id of the first value equal to it."""
        self.canonical = canonical

    def __call__(self, v: Any) -> int:
        i = self.plain.get(v)
        if i is not None:
            same = mc_same_types(self.values[i], v, Traced, "_v") if COMPILED else -1
            if same == 1 or (same == -1 and same_types(self.values[i], v)):
                return i
        key = typed_key(v)
        i = self.ids.get(key)
        if i is None:
            v = key[1]
            if not self.canonical(v):
                raise NotCanonical(v)
            i = len(self.values)
            self.ids[key] = i
            self.values.append(v)
            self.plain.setdefault(v, i)
        return i
