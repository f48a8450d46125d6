"""``renamed_set``: a spec's ``permute`` helper for sets of value indices, fast on plain sets and followable on
traced ones.

A symmetric check renames the same few small sets (ISRs, quorums) in every
permuted copy of every generated state, millions of times; building each
anew through a generator cost a quarter of ``permute`` on Kip320, so plain
sets are renamed through a bounded cache.  The memo tables also evaluate a
spec's ``permute`` on traced parts (to learn its decision trees, see
:mod:`modelcheck.memo.orbits`), and a cache must never see those: it would
hand one evaluation's traced part to the next, which is why the tables
refuse ``functools.lru_cache`` in a spec's own code.  This function is the
spec API's own, which the tables trust: it takes the cache only for a plain
``frozenset``, and renames anything else (a traced part included) directly;
both give equal sets.
"""

from __future__ import annotations

import functools
from typing import Any, Iterable


@functools.lru_cache(maxsize=1 << 16)
def _renamed_plain(perm: tuple[int, ...], values: frozenset) -> frozenset:
    return frozenset([perm[x] for x in values])


def renamed_set(perm: tuple[int, ...], values: Iterable[Any]) -> frozenset:
    """``frozenset(perm[x] for x in values)``: the set ``values`` of value indices under the renaming ``perm``."""
    if type(values) is frozenset:
        return _renamed_plain(perm, values)
    return frozenset([perm[x] for x in values])
