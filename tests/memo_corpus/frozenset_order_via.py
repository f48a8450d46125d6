"""Two equal frozensets with different iteration orders in two different states.

``frozenset_order`` keeps one of the two equal sets (the states are
equal).  Here ``via`` records which action built the set, so both states
exist: one iterates 8 first, the other 0 first.  The spec's own code takes
"any member" with ``next(iter(...))`` and gets 8 in one state, 0 in the
other.  A fast path that keys a result on the set's value reuses the first
answer for the second state.  (Iterating a set without sorting it is what
the checker's own advice warns against; it is still legal and
deterministic per state.)

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
    if not s.members or s.taken != -1:
        return None
    return s._replace(taken=next(iter(s.members)))


@invariant("NeverZeroTaken", "Taking a member never gives 0.")
def never_zero_taken(c, s):
    return s.taken != 0


SPEC = Spec(name="frozenset-order-via", title="equal frozensets iterating differently", constants=Config,
            init=init, actions=[big_first, zero_first, take], invariants=[never_zero_taken],
            deadlock_expected=True)
