"""How the specs write a set or a sequence of named things (replicas, brokers, batches) in views and sentences.

One definition, so every spec's traces, lanes and explanations write
``{r1, r3}`` the same way.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable


def named(xs: Iterable[Any], name: Callable[[Any], str], *, ordered: bool = False, brackets: str = "{}") -> str:
    """``{r1, r3}``: the names of ``xs``, ascending (or in their own order with ``ordered``), in ``brackets``."""
    items = xs if ordered else sorted(xs)
    return brackets[0] + ", ".join(name(x) for x in items) + brackets[1]
