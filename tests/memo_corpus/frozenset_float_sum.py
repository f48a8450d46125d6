"""``sum()`` of floats over a frozenset: float addition is not associative, so the iteration order changes the sum.

``1e16 + -1e16 + 1.0`` is 1.0, ``1e16 + 1.0 + -1e16`` is 0.0.  The spec
keeps weights as floats in a frozenset (legal: no NaN) and compares their
sum with 0.0.  ``1e16`` and ``-1e16`` share a slot of the set's table, so
the set built from ``(1e16, -1e16, 1.0)`` iterates in that order (sum 1.0)
and the equal set built from ``(1.0, 1e16, -1e16)`` iterates 1e16, 1.0,
-1e16 (sum 0.0); the first is met first.  A fast path that reuses the sum
of one for the other misses the violation.

The checker rejects such a spec before the search, on every path: its
answers follow the order in which a frozenset iterates, so equal states
(which the checker treats as one) have no one answer, and which of them an
engine expands is not the spec's to choose.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "error"
FORWARD = (1e16, -1e16, 1.0)
BACKWARD = (1.0, 1e16, -1e16)


@attrs.frozen
class Config:
    Target: int = constant(0, "the sum to avoid", minimum=0, maximum=9)


class State(NamedTuple):
    weights: frozenset
    via: int
    exact: int


def init(c):
    return [State(weights=frozenset(), via=0, exact=-1)]


@action("Forward")
def forward(c, s):
    if s.via:
        return None
    return s._replace(weights=frozenset(FORWARD), via=1)


@action("Backward")
def backward(c, s):
    if s.via:
        return None
    return s._replace(weights=frozenset(BACKWARD), via=2)


@action("Weigh")
def weigh(c, s):
    if not s.weights or s.exact != -1:
        return None
    return s._replace(exact=int(sum(s.weights) == c.Target))


@invariant("NeverExact", "The sum of the weights is never exactly the target.")
def never_exact(c, s):
    return s.exact != 1


SPEC = Spec(name="frozenset-float-sum", title="a float sum over a frozenset", constants=Config, init=init,
            actions=[forward, backward, weigh], invariants=[never_exact], deadlock_expected=True)
