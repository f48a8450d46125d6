"""A State class whose own ``__hash__`` covers only some fields (equality stays the tuple's).

Hashing a subset of the fields is legal Python: equal states still hash
alike, and states that differ only outside the subset are still
different states.  Anything that treats the hash as the state's identity
(a fingerprint without a look at the state itself, a table keyed on
``hash()``) merges them and loses the successors of all but one.

The checker refuses such a spec before the search, on every path: it
fingerprints states by their values (as TLC does), so a record's equality
must be the tuple's; fingerprinting part of a state is what a view
(``Spec(fingerprint_view=...)``) is for.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "error"


@attrs.frozen
class Config:
    Limit: int = constant(2, "the largest value", minimum=1, maximum=3)


class State(NamedTuple):
    x: int
    y: int

    def __hash__(self):
        return hash(self[0])


def init(c):
    return [State(0, 0)]


@action("IncX")
def inc_x(c, s):
    if s.x >= c.Limit:
        return None
    return State(s.x + 1, s.y)


@action("IncY")
def inc_y(c, s):
    if s.y >= c.Limit:
        return None
    return State(s.x, s.y + 1)


@invariant("NotBothTop", "x and y never both reach the limit.")
def not_both_top(c, s):
    return not (s.x == s.y == c.Limit)


SPEC = Spec(name="state-custom-hash", title="a state class hashing some fields", constants=Config, init=init,
            actions=[inc_x, inc_y], invariants=[not_both_top], deadlock_expected=True)
