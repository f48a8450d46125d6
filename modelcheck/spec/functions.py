"""TLA+ functions over model values: :class:`Function`, one Python value per TLA+ value.

A TLA+ function ``[r \\in RM |-> e]`` over a set of model values has no
natural Python form that is both canonical and renamable.  A dict is mutable
and unhashable; a tuple indexed by position needs ints; a tuple of ``(key,
value)`` pairs sorted by key is canonical, but once a symmetry renames the
keys it must be sorted again, and nothing tells it apart from a sequence of
pairs, whose order is the value and must be kept.

:class:`Function` is that tuple of pairs with a type of its own.  Whoever
builds one (its constructor, :meth:`Function.except_`, the symmetry's
renamer in :mod:`modelcheck.spec.renaming`) gets the pairs in the one
canonical key order, so two equal TLA+ functions are equal Python values with
one fingerprint, and a generic renamer knows to re-sort them.  It is a
NamedTuple (one field, ``pairs``), so fingerprints, ``==``, pickling (the
checkpoint reader admits this class by name) and rendering take it as they
take a spec's records.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any, Iterable, Iterator, Mapping, NamedTuple

_first = itemgetter(0)
_new = tuple.__new__


def order_key(v: Any) -> tuple:
    """A sort key that orders any canonical value, equal for equal values.

    Numbers (bools, ints, floats) come first by value, then strs, None,
    tuples (item by item) and frozensets (by their sorted items).  Python's
    own ``<`` is not enough: it refuses ``1 < "a"``, and on frozensets it is
    the subset relation, under which ``sorted`` gives an order that depends on
    the input's.
    """
    t = type(v)
    if t is str:
        return (1, v)
    if t is int or t is bool or t is float:
        return (0, v)
    if v is None:
        return (2,)
    if isinstance(v, tuple):
        return (3, tuple(order_key(x) for x in v))
    if isinstance(v, frozenset):
        return (4, tuple(sorted(order_key(x) for x in v)))
    raise TypeError(f"a {t.__name__} cannot be a key of a Function "
                    "(keys are ints, bools, floats, strs, None, tuples and frozensets)")


def _canonical(pairs: Iterable[Any]) -> tuple[tuple[Any, Any], ...]:
    """``pairs`` as a tuple of 2-tuples sorted by key; duplicate keys refused."""
    items = []
    for p in pairs:
        if type(p) is not tuple or len(p) != 2:
            raise TypeError(f"a Function is built from (key, value) pairs, got {p!r}")
        items.append(p)
    kinds = {type(k) for k, _ in items}
    if kinds == {str} or kinds == {int}:
        items.sort(key=_first)
    else:
        items.sort(key=lambda kv: order_key(kv[0]))
    for i in range(1, len(items)):
        if items[i - 1][0] == items[i][0]:
            raise ValueError(f"a Function maps each key once; {items[i][0]!r} is given twice")
    return tuple(items)


class _FunctionFields(NamedTuple):
    pairs: tuple[tuple[Any, Any], ...]
    """The (key, value) pairs, in canonical key order (:func:`order_key`)."""


class Function(_FunctionFields):
    """A TLA+ function, held as its ``(key, value)`` pairs in canonical key order.

    ``Function({r: "working" for r in c.RM})`` is ``[r \\in RM |-> "working"]``
    (a dict, or any iterable of pairs; each key once); ``f.at(r)`` is ``f[r]``;
    ``f.except_(r, v)`` is ``[f EXCEPT ![r] = v]``; ``f.domain()`` is
    ``DOMAIN f``.  The constructor sorts the pairs, so the order they are
    given in does not matter, and unpickling goes through it too.  ``len(f)``
    is 1 (a NamedTuple of one field): the domain's size is
    ``len(f.pairs)``.
    """

    __slots__ = ()

    def __new__(cls, pairs: Mapping[Any, Any] | Iterable[tuple[Any, Any]] = ()) -> Function:
        """The function of ``pairs`` (a mapping or (key, value) pairs), its pairs sorted by key."""
        if isinstance(pairs, Mapping):
            pairs = pairs.items()
        return _new(cls, (_canonical(tuple(p) if isinstance(p, list) else p for p in pairs),))

    def _replace(self, **fields: Any) -> Function:
        """As NamedTuple's, but through the constructor, so that the pairs stay sorted."""
        return type(self)(fields.get("pairs", self.pairs))

    def at(self, key: Any) -> Any:
        """``f[key]``; KeyError when ``key`` is not in the domain (TLC stops there too)."""
        for k, v in self.pairs:
            if k == key:
                return v
        raise KeyError(f"{key!r} is not in the function's domain")

    def except_(self, key: Any, value: Any) -> Function:
        """``[f EXCEPT ![key] = value]``; KeyError when ``key`` is not in the domain.

        The keys do not change, so the order is kept without sorting again.
        """
        pairs = self.pairs
        for i, (k, _) in enumerate(pairs):
            if k == key:
                return _new(type(self), (pairs[:i] + ((k, value),) + pairs[i + 1:],))
        raise KeyError(f"{key!r} is not in the function's domain")

    def domain(self) -> frozenset:
        """``DOMAIN f``."""
        return frozenset(k for k, _ in self.pairs)

    def keys(self) -> tuple:
        """The keys, in canonical order."""
        return tuple(k for k, _ in self.pairs)

    def values(self) -> tuple:
        """The values, in the order of the keys."""
        return tuple(v for _, v in self.pairs)

    def items(self) -> Iterator[tuple[Any, Any]]:
        """The (key, value) pairs, in canonical key order."""
        return iter(self.pairs)

    def __repr__(self) -> str:
        return f"Function({{{', '.join(f'{k!r}: {v!r}' for k, v in self.pairs)}}})"
