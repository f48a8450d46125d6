"""Two record classes of one shape, fields in another order: ``Fetch(replica, offset)``, ``Ack(offset, replica)``.

``Fetch(0, 1) == Ack(0, 1)`` (tuples compare by position), so a slot
holding either is the same value to the checker, yet ``m.offset`` is 1 for
the Fetch and 0 for the Ack.  A newcomer reads ``m.offset`` on whatever is
in the slot.  A fast path that splits a record into named fields from the
first class it met, or maps a field name to a position once, reads the
wrong item for the other class.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


class Fetch(NamedTuple):
    replica: int
    offset: int


class Ack(NamedTuple):
    offset: int
    replica: int


@attrs.frozen
class Config:
    Offset: int = constant(1, "the offset sent", minimum=1, maximum=3)


class State(NamedTuple):
    slot: tuple
    via: int
    acked: int


def init(c):
    return [State(slot=(), via=0, acked=-1)]


@action("SendFetch")
def send_fetch(c, s):
    if s.slot:
        return None
    return s._replace(slot=Fetch(replica=0, offset=c.Offset), via=1)


@action("SendAck")
def send_ack(c, s):
    if s.slot:
        return None
    return s._replace(slot=Ack(offset=0, replica=c.Offset), via=2)


@action("Handle")
def handle(c, s):
    if not s.slot or s.acked != -1:
        return None
    return s._replace(acked=s.slot.offset)


@invariant("NothingAckedAtZero", "Offset zero is never handled.")
def nothing_acked_at_zero(c, s):
    return s.acked != 0


SPEC = Spec(name="two-record-classes", title="two record classes of one shape", constants=Config, init=init,
            actions=[send_fetch, send_ack, handle], invariants=[nothing_acked_at_zero], deadlock_expected=True)
