"""A state part that becomes None deep in the search, tested with ``is None``.

``x is None`` is the idiomatic test, and a part a fast path hands the code
in a wrapper is not None itself even when it stands for None: the test
would take the other branch.  Here ``slot`` holds an int until the count
reaches ten, may then be dropped to None, and only a ``Refill`` (guarded by
``slot is None``) lets the count go on; taking the guard the wrong way
reaches a count of twelve with no slot, which the invariant forbids.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "holds"


@attrs.frozen
class Config:
    Top: int = constant(12, "the highest count", minimum=11, maximum=20)


class State(NamedTuple):
    n: int
    slot: object


def init(c):
    return [State(0, 0)]


@action("Inc")
def inc(c, s):
    if s.slot is None or s.n >= c.Top:
        return None
    return s._replace(n=s.n + 1)


@action("Drop")
def drop(c, s):
    if s.n != c.Top - 2 or s.slot is None:
        return None
    return s._replace(slot=None)


@action("Refill")
def refill(c, s):
    if s.slot is not None:
        return None
    return s._replace(slot=s.n)


@invariant("NoTopWithoutSlot", "The count reaches the top only with a slot.")
def no_top_without_slot(c, s):
    return s.slot is not None or s.n < c.Top


SPEC = Spec(name="is-none-part", title="is None on a state part", constants=Config, init=init,
            actions=[inc, drop, refill], invariants=[no_top_without_slot], deadlock_expected=True)
