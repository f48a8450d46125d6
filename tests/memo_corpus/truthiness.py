"""Truth of parts: ``if s.queue:``, ``bool(())``, ``any``/``all`` with generators, ``x or default``, the walrus.

``any()`` stops at the first true item and ``all()`` at the first false
one, so what they read depends on the values; ``s.queue or (0,)`` reads
only emptiness when the queue is empty.  A fast path that records reads
must record exactly those, and no fewer: a queue that is empty in one state
and ``(0,)`` in another takes different branches.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "violated"
ITEM = Domain("item", lambda c: range(2), str)


@attrs.frozen
class Config:
    Length: int = constant(3, "the longest queue", minimum=1, maximum=4)


class State(NamedTuple):
    queue: tuple
    served: int


def init(c):
    return [State(queue=(), served=0)]


@action("Push", item=ITEM)
def push(c, s, item):
    if len(s.queue) >= c.Length:
        return None
    return s._replace(queue=s.queue + (item,))


@action("Serve")
def serve(c, s):
    if not s.queue or s.served >= 3:
        return None
    head = (s.queue or (0,))[0]
    if (rest := s.queue[1:]) and all(x == head for x in rest) and not any(x == 1 - head for x in rest):
        return s._replace(queue=rest, served=min(3, s.served + 1 + head))
    return s._replace(queue=rest)


@invariant("FewServed", "No run of equal ones is served twice.")
def few_served(c, s):
    return s.served < 3


SPEC = Spec(name="truthiness", title="truth of parts, any, all and the walrus", constants=Config, init=init,
            actions=[push, serve], invariants=[few_served], deadlock_expected=True)
