"""A synthetic model for engine tests and benchmarks: D counters, each 0..N.

Each action increments one counter (if below N) or resets one counter to 0
(if above 0).  Every vector in {0..N}^D is reachable, so there are exactly
``(N+1)**D`` distinct states, and the BFS depth is ``N*D + 1`` (the farthest
state, all counters at N, is N*D increments away).  A counter at 0 or N
enables one action, one strictly between enables two, so summing over the
states gives ``D*(N+1)**D + D*(N-1)*(N+1)**(D-1)`` successors, plus the
initial state in "states generated".  The optional invariant
``BelowLimit`` is violated by the first state whose counters sum to ``Limit``,
reached after ``Limit`` steps (a trace of ``Limit + 1`` states).
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant


@attrs.frozen
class Grid:
    Counters: int = constant(3, "number of counters", minimum=1, maximum=10)
    Max: int = constant(9, "largest value of a counter", minimum=1, maximum=1000)
    Limit: int = constant(-1, "BelowLimit fails when the counters sum to this (-1: never)", minimum=-1, maximum=10000)


class S(NamedTuple):
    values: tuple


COUNTER = Domain("counter", lambda c: range(c.Counters), lambda i: f"x{i}")


def init(c):
    yield S((0,) * c.Counters)


@action("Increment", i=COUNTER)
def increment(c, s, i):
    v = s.values
    if v[i] >= c.Max:
        return None
    return S(v[:i] + (v[i] + 1,) + v[i + 1:])


@action("Reset", i=COUNTER)
def reset(c, s, i):
    v = s.values
    if v[i] == 0:
        return None
    return S(v[:i] + (0,) + v[i + 1:])


@invariant("BelowLimit")
def below_limit(c, s):
    return c.Limit < 0 or sum(s.values) != c.Limit


SPEC = Spec(
    name="counter-grid",
    title="Counter grid (synthetic benchmark)",
    constants=Grid,
    init=init,
    actions=[increment, reset],
    invariants=[below_limit],
    deadlock_expected=False,
)
