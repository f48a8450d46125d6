"""A table built lazily on first use (``global``), extended from a generator kept across calls (``itertools.count``).

``_TRIANGLES`` is filled from a module-level generator as far as a call
needs, and ``_BUILT`` counts how often that happened: state outside the
state, but only a cache of a pure function (the n-th triangular number),
so the spec is deterministic.  A fast path must not assume that a helper's
reads are the same on every call: the first call reads through the
generator, later ones only index the list.
"""

import itertools
from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"
_NATURALS = itertools.count(1)
_TRIANGLES = [0]
_BUILT = 0


def triangle(n):
    global _BUILT
    while len(_TRIANGLES) <= n:
        _TRIANGLES.append(_TRIANGLES[-1] + next(_NATURALS))
        _BUILT += 1
    return _TRIANGLES[n]


@attrs.frozen
class Config:
    Limit: int = constant(5, "the largest step", minimum=1, maximum=8)


class State(NamedTuple):
    step: int
    total: int


def init(c):
    return [State(step=0, total=0)]


@action("Step")
def step(c, s):
    if s.step >= c.Limit:
        return None
    return s._replace(step=s.step + 1)


@action("Skip")
def skip(c, s):
    if s.step + 2 > c.Limit:
        return None
    return s._replace(step=s.step + 2)


@action("Sum")
def add_up(c, s):
    total = triangle(s.step)
    if total == s.total:
        return None
    return s._replace(total=total)


@invariant("TotalBelow", "The running total stays below 15.")
def total_below(c, s):
    return s.total < 15


SPEC = Spec(name="lazy-global", title="a lazily built global table", constants=Config, init=init,
            actions=[step, skip, add_up], invariants=[total_below], deadlock_expected=True)
