"""A ``sometimes`` property and an invariant that hold or not depending on a frozenset's iteration order.

``sometimes`` properties are evaluated on every state, as invariants are;
a fast path that evaluates predicates through its tables must give the
same answer for "reached" too.  The property needs a state where the set
built 8-first is read; the invariant forbids the one built 0-first.

The checker rejects such a spec before the search, on every path: its
answers follow the order in which a frozenset iterates, so equal states
(which the checker treats as one) have no one answer, and which of them an
engine expands is not the spec's to choose.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant, sometimes

EXPECTED = "error"


@attrs.frozen
class Config:
    Big: int = constant(8, "the value that shares a slot with 0", minimum=8, maximum=8)


class State(NamedTuple):
    members: frozenset
    via: int


def init(c):
    return [State(members=frozenset(), via=0)]


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


@sometimes("BigLeads", "Some state's set iterates the big value first.")
def big_leads(c, s):
    return bool(s.members) and next(iter(s.members)) == c.Big


@invariant("ZeroNeverLeads", "No state's set iterates 0 first.")
def zero_never_leads(c, s):
    return not s.members or next(iter(s.members)) != 0


SPEC = Spec(name="sometimes-order", title="predicates over a frozenset's order", constants=Config, init=init,
            actions=[big_first, zero_first], invariants=[zero_never_leads], sometimes=[big_leads],
            deadlock_expected=True)
