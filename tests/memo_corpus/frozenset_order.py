"""Iteration order of equal frozensets: ``next(iter(fs))`` and ``tuple(fs)`` depend on how the set was built.

``frozenset({0, 8})`` built by adding 8 to ``{0}`` and by adding 0 to ``{8}``
are equal and hash alike, but ints 0 and 8 share a slot in the smallest
table, so the one added first iterates first.  The spec's own code takes
"any member" with ``next(iter(...))`` (only the first state reached of two
equal ones is expanded, in every search, so its answer is deterministic):
``AddEight`` comes first, so the set kept iterates 8 before 0.
A fast path that rebuilds the set from stored items, or reuses a result
computed for an equal set, takes another member.

The checker rejects such a spec before the search, on every path: its
answers follow the order in which a frozenset iterates, so equal states
(which the checker treats as one) have no one answer, and which of them an
engine expands is not the spec's to choose.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "error"


@attrs.frozen
class Config:
    Rounds: int = constant(1, "rounds of taking a member", minimum=1, maximum=2)


class State(NamedTuple):
    members: frozenset
    taken: int
    rounds: int


def init(c):
    return [State(members=frozenset(), taken=-1, rounds=0)]


@action("AddZero")
def add_zero(c, s):
    if 0 in s.members:
        return None
    return s._replace(members=s.members | {0})


@action("AddEight")
def add_eight(c, s):
    if 8 in s.members:
        return None
    return s._replace(members=s.members | {8})


@action("Take")
def take(c, s):
    if len(s.members) < 2 or s.rounds >= c.Rounds:
        return None
    first = next(iter(s.members))
    return s._replace(taken=first * 10 + tuple(s.members)[-1], rounds=s.rounds + 1)


@invariant("ZeroFirst", "Taking a member never gives 8 first.")
def zero_first(c, s):
    return s.taken in (-1, 8)


SPEC = Spec(name="frozenset-order", title="frozenset iteration order", constants=Config, init=init,
            actions=[add_eight, add_zero, take], invariants=[zero_first], deadlock_expected=True)
