"""A NamedTuple record in one state and the equal plain tuple in another, told apart only by ``str``.

``str(Msg(0, 7))`` is ``"Msg(kind=0, value=7)"``, ``str((0, 7))`` is
``"(0, 7)"``; the two are equal and hash alike, so states differing only
there are one state.  ``via`` keeps them apart here.  No ``getattr``, no
``type``: only text, which a fast path may well allow.  A table that
stores the item values of a record and rebuilds one class, or reuses a
result for the equal tuple, prints the other text.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


class Msg(NamedTuple):
    kind: int
    value: int


@attrs.frozen
class Config:
    Value: int = constant(7, "the value sent", minimum=0, maximum=9)


class State(NamedTuple):
    slot: tuple
    via: int
    width: int


def init(c):
    return [State(slot=(), via=0, width=0)]


@action("SendRecord")
def send_record(c, s):
    if s.slot:
        return None
    return s._replace(slot=Msg(0, c.Value), via=1)


@action("SendTuple")
def send_tuple(c, s):
    if s.slot:
        return None
    return s._replace(slot=(0, c.Value), via=2)


@action("Log")
def log(c, s):
    width = len(str(s.slot))
    if width == s.width:
        return None
    return s._replace(width=width)


@invariant("ShortLog", "A logged message is short.")
def short_log(c, s):
    return s.width <= 10


SPEC = Spec(name="record-tuple-text", title="a record and an equal tuple through str", constants=Config,
            init=init, actions=[send_record, send_tuple, log], invariants=[short_log], deadlock_expected=True)
