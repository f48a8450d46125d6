"""A step property that returns ``t.queue and ...``: the empty tuple once the queue drains.

``and`` returns its first falsy operand, so when a step empties the queue
the property returns ``()``, not a bool, and the spec's own code stops
with an error.  The queue starts full and empties only after four steps.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, step_property

EXPECTED = "error"
PROPERTY = "QueueDrainsInOrder"


@attrs.frozen
class Config:
    Items: int = constant(4, "items queued at the start", minimum=2, maximum=6)


class State(NamedTuple):
    queue: tuple
    taken: int
    idle: int


def init(c):
    return [State(queue=tuple(range(c.Items)), taken=0, idle=0)]


@action("Take")
def take(c, s):
    if not s.queue:
        return None
    return State(s.queue[1:], s.taken + 1, s.idle)


@action("Idle")
def idle(c, s):
    if s.idle >= 2:
        return None
    return s._replace(idle=s.idle + 1)


@step_property("QueueDrainsInOrder", "A step that takes an item leaves the rest in order.")
def queue_drains_in_order(c, s, t):
    return t.queue and t.queue == s.queue[len(s.queue) - len(t.queue):]


SPEC = Spec(name="nonbool-deep", title="a property returning a non-bool deep in the search", constants=Config,
            init=init, actions=[take, idle], properties=[queue_drains_in_order], deadlock_expected=True)
