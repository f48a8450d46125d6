"""``len()`` of a frozenset and of a tuple in the parent and in the successor.

Acknowledged offsets (a frozenset) may only grow and the queue (a tuple)
may grow by one at a time.  ``Forget`` drops an acknowledgement, but only
once three are held and the queue is empty: a shortest trace of 7 states.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, step_property

EXPECTED = "violated"
PROPERTY = "AcksOnlyGrow"
OFFSET = Domain("offset", lambda c: range(c.Offsets), str)


@attrs.frozen
class Config:
    Offsets: int = constant(5, "offsets a producer sends", minimum=1, maximum=6)


class State(NamedTuple):
    queue: tuple
    acked: frozenset
    forgot: bool


def init(c):
    return [State(queue=(), acked=frozenset(), forgot=False)]


@action("Send", offset=OFFSET)
def send(c, s, offset):
    if offset in s.queue or offset in s.acked:
        return None
    return s._replace(queue=s.queue + (offset,))


@action("Ack")
def ack(c, s):
    if not s.queue:
        return None
    return s._replace(queue=s.queue[1:], acked=s.acked | {s.queue[0]})


@action("Forget")
def forget(c, s):
    if s.forgot or s.queue or len(s.acked) < 3:
        return None
    return s._replace(acked=frozenset(sorted(s.acked)[1:]), forgot=True)


@step_property("AcksOnlyGrow", "No step loses an acknowledgement; the queue grows one at a time.")
def acks_only_grow(c, s, t):
    return len(t.acked) >= len(s.acked) and len(t.queue) <= len(s.queue) + 1


SPEC = Spec(name="len-shrink", title="len() of parts in a step", constants=Config, init=init,
            actions=[send, ack, forget], properties=[acks_only_grow], deadlock_expected=True)
