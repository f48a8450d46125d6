"""``match`` with class patterns: ``case Msg(kind=0, value=v):``, ``case int():``, ``case tuple():``.

Messages as records and "nothing" as ``-1`` is a common encoding; a class
pattern tests ``isinstance`` and reads attributes.  A stand-in for a part
is an instance of neither ``Msg`` nor ``int`` unless it pretends to be, so
the wrong case wins.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "violated"
KIND = Domain("kind", lambda c: range(2), str)


class Msg(NamedTuple):
    kind: int
    value: int


@attrs.frozen
class Config:
    Sends: int = constant(2, "messages in all", minimum=1, maximum=3)


class State(NamedTuple):
    slot: object
    """-1 or a Msg."""
    sent: int
    got: int


def init(c):
    return [State(slot=-1, sent=0, got=0)]


@action("Send", kind=KIND)
def send(c, s, kind):
    if s.slot != -1 or s.sent >= c.Sends:
        return None
    return s._replace(slot=Msg(kind, s.sent), sent=s.sent + 1)


@action("Receive")
def receive(c, s):
    match s.slot:
        case int():
            return None
        case Msg(kind=0, value=v):
            return s._replace(slot=-1, got=s.got + v + 1)
        case Msg(kind=1):
            return s._replace(slot=-1, got=s.got + 10)
        case tuple():
            return s._replace(slot=-1, got=100)


@invariant("NoDoubleHigh", "Two high messages are never both received.")
def no_double_high(c, s):
    return s.got < 20


SPEC = Spec(name="match-class", title="match with class patterns", constants=Config, init=init,
            actions=[send, receive], invariants=[no_double_high], deadlock_expected=True)
