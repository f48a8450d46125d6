"""A NamedTuple record in one state and a plain tuple with the same items in another.

``Msg(1, 2) == (1, 2)`` and they hash alike, so the two states are one state
to the checker, but code can tell them apart: ``getattr(m, "kind", None)``,
``hasattr(m, "_fields")``, ``repr(m)``.  Here ``pending`` is set either by
building a ``Msg`` or by slicing one (a slice of a NamedTuple is a plain
tuple), as a newcomer easily does, and the receiver only understands
records.  The states differ in ``sent`` so both shapes are reached; a table
that splits the record into fields, or reuses a result for the equal tuple,
delivers what the spec's code drops (or the other way round).
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    Kinds: int = constant(2, "message kinds", minimum=1, maximum=3)


class Msg(NamedTuple):
    kind: int
    value: int


class State(NamedTuple):
    pending: tuple
    sent: int
    delivered: tuple


def init(c):
    return [State(pending=(), sent=0, delivered=())]


@action("SendRecord")
def send_record(c, s):
    if s.pending or s.sent >= c.Kinds:
        return None
    return s._replace(pending=Msg(s.sent, 7), sent=s.sent + 1)


@action("SendCopy")
def send_copy(c, s):
    """Copy the last delivered message again: a slice, so a plain tuple."""
    if s.pending or not s.delivered or s.sent >= c.Kinds + 1:
        return None
    return s._replace(pending=s.delivered[-1][:], sent=s.sent + 1)


@action("Receive")
def receive(c, s):
    m = s.pending
    if not m:
        return None
    kind = getattr(m, "kind", None)
    if kind is None:
        return s._replace(pending=(), delivered=s.delivered + ((9, 9),))
    return s._replace(pending=(), delivered=s.delivered + (Msg(kind, m.value),))


@invariant("OnlyRecords", "Every delivered message was understood.")
def only_records(c, s):
    return (9, 9) not in s.delivered


SPEC = Spec(name="value-record-tuple", title="a record and an equal plain tuple", constants=Config, init=init,
            actions=[send_record, send_copy, receive], invariants=[only_records], deadlock_expected=True)
