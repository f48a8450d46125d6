"""An action constraint that returns ``t.queue and ...``: the empty tuple once the queue drains.

``and`` returns its first falsy operand, so when a step empties the queue
the constraint returns ``()``, not a bool, and the spec's own code stops
with an error.  The queue empties only after every item is taken, with
a grid of idle steps around it.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "error"


@attrs.frozen
class Config:
    Items: int = constant(5, "items queued at the start", minimum=2, maximum=6)


class State(NamedTuple):
    queue: tuple
    idle: int
    spin: int


def init(c):
    return [State(queue=tuple(range(c.Items)), idle=0, spin=0)]


@action("Take")
def take(c, s):
    if not s.queue:
        return None
    return s._replace(queue=s.queue[1:])


@action("Idle")
def idle(c, s):
    if s.idle >= 4:
        return None
    return s._replace(idle=s.idle + 1)


@action("Spin")
def spin(c, s):
    if s.spin >= 5:
        return None
    return s._replace(spin=s.spin + 1)


def drains_in_order(c, s, t):
    return t.queue and t.queue == s.queue[len(s.queue) - len(t.queue):]


@invariant("QueueShrinks", "The queue never grows.")
def queue_shrinks(c, s):
    return len(s.queue) <= c.Items


SPEC = Spec(name="nonbool-deep", title="an action constraint returning a non-bool deep", constants=Config,
            init=init, actions=[take, idle, spin], invariants=[queue_shrinks], action_constraint=drains_in_order,
            deadlock_expected=True)
