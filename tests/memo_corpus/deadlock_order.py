"""A deadlock that exists only in the state whose frozenset iterates 0 first.

``Take`` is enabled when the set's first member (``next(iter(...))``) is
the big value; the set built 8-first is met first and can move on, the
equal set built 0-first has no successor: a deadlock for the spec's own
code (``deadlock_expected`` is off, so the check reports it).  A fast path
that reuses the first set's "enabled" for the second reports none.

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
    Big: int = constant(8, "the value that shares a slot with 0", minimum=8, maximum=8)


class State(NamedTuple):
    members: frozenset
    via: int
    taken: int


def init(c):
    return [State(members=frozenset(), via=0, taken=-1)]


@action("BigFirst")
def big_first(c, s):
    if s.via:
        return None
    return s._replace(members=frozenset((c.Big, 0)), via=1)


@action("ZeroFirst")
def zero_first(c, s):
    if s.via:
        return None
    return s._replace(members=frozenset((0, c.Big)), via=2)


@action("Take")
def take(c, s):
    if not s.members or s.taken != -1 or next(iter(s.members)) != c.Big:
        return None
    return s._replace(taken=c.Big)


@action("Idle")
def idle(c, s):
    if s.taken == -1:
        return None
    return s


@invariant("TakenIsBig", "Only the big value is ever taken.")
def taken_is_big(c, s):
    return s.taken in (-1, c.Big)


SPEC = Spec(name="deadlock-order", title="a deadlock behind a frozenset's order", constants=Config, init=init,
            actions=[big_first, zero_first, take, idle], invariants=[taken_is_big])
