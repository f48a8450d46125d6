"""A state constraint, and a step property that would fail, or raise, only on steps leaving the model.

``Burst`` always jumps past the cap, so its successors are outside the
model: generated, not explored, and the property is not checked on steps
to them.  There the property would raise (``LIMITS`` has no entry for
totals past the cap) or fail (the jump is larger than any limit).  A fast
path that checks the property before the constraint reports an error or a
violation the spec does not have.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, step_property

EXPECTED = "holds"
PROPERTY = "SmallSteps"
AMOUNT = Domain("amount", lambda c: (1, 2), str)
LIMITS = {0: 2, 1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2}


@attrs.frozen
class Config:
    Cap: int = constant(6, "the largest total inside the model", minimum=2, maximum=6)


class State(NamedTuple):
    total: int
    bursts: int


def init(c):
    return [State(total=0, bursts=0)]


@action("Add", amount=AMOUNT)
def add(c, s, amount):
    return s._replace(total=s.total + amount)


@action("Burst")
def burst(c, s):
    return State(s.total + 10, s.bursts + 1)


@action("Drain")
def drain(c, s):
    if s.total < 2:
        return None
    return s._replace(total=s.total - 2)


def within_cap(c, s):
    return s.total <= c.Cap


@step_property("SmallSteps", "No step moves the total by more than the limit for where it lands.")
def small_steps(c, s, t):
    return abs(t.total - s.total) <= LIMITS[t.total]


SPEC = Spec(name="constraint-outside", title="a step property and a state constraint", constants=Config,
            init=init, actions=[add, burst, drain], properties=[small_steps], state_constraint=within_cap,
            deadlock_expected=True)
