"""``canonical_sorted``: a set's elements in an order fixed by their values alone, as TLC enumerates a set.

TLA+'s ``\\E m \\in msgs : A(m)`` has no order, but a checker expands it in
one, and with a VIEW (two states with one view are one state, the first
found) the counts depend on it: TLC enumerates a set in its own value order.
Python iterates a frozenset by hash, which changes with the process (strs)
and with the set's history, so a spec that needs a fixed order sorts.  The
key that sorts any spec value must know a set from a sequence, which a
spec's own code could only learn with ``type()`` or ``isinstance``, and the
memo tables refuse both (on a part being traced they see the wrapper, not
the value).  This function is the spec API's own, which the tables trust: it
asks a value for its class through ``__class__``, which a traced part
answers with its value's class, noting the read, so it gives the same order
on the tables as on the spec's own code.

The order: scalars (numbers, strings) first, by value; then sets, by size,
then by their elements in this order; then sequences and records (any
tuple), by length, then item by item.  A number and a string do not
compare, and sorting them together raises ``TypeError``, as Python's own
comparison does.
"""

# modelcheck: compile

from __future__ import annotations

from typing import Any, Iterable


def canonical_sorted(values: Iterable[Any]) -> list:
    """The elements of ``values`` (a set, a sequence, a state part) in the canonical order above."""
    return sorted(values, key=_order_key)


def _order_key(v: Any) -> tuple:
    # ``__class__``, not ``type()``: a traced part answers with its value's class.
    cls = v.__class__
    if cls is frozenset:
        return (1, len(v), sorted([_order_key(x) for x in v]))
    if issubclass(cls, tuple):
        return (2, len(v), tuple([_order_key(x) for x in v]))
    return (0, v)
