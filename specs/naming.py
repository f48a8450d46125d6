"""How the specs write a replica, a broker, and a set or a sequence of named things, in views and sentences.

One definition, so every spec's traces, lanes and explanations write
``r1``, ``b2`` and ``{r1, r3}`` the same way.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

NO_ONE = -1
"""The index every spec here uses for "no replica" or "no broker" (each spec's ``NONE``)."""


def named(xs: Iterable[Any], name: Callable[[Any], str], *, ordered: bool = False, brackets: str = "{}") -> str:
    """``{r1, r3}``: the names of ``xs``, ascending (or in their own order with ``ordered``), in ``brackets``."""
    items = xs if ordered else sorted(xs)
    return brackets[0] + ", ".join(name(x) for x in items) + brackets[1]


def replica_name(r: int) -> str:
    """``r1`` for replica 0, as the TLA+ model values are named; ``None`` for no replica."""
    return "None" if r == NO_ONE else f"r{r + 1}"


def broker_name(b: int) -> str:
    """``b1`` for broker 0; ``none`` for no broker."""
    return "none" if b == NO_ONE else f"b{b + 1}"


def replica_set(rs: Iterable[int]) -> str:
    """``{r1, r3}``: replicas, ascending."""
    return named(rs, replica_name)


def broker_set(bs: Iterable[int]) -> str:
    """``{b1, b3}``: brokers, ascending."""
    return named(bs, broker_name)
