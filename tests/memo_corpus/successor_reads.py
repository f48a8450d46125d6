"""Reading the successor before returning it, and comparing whole states: ``t = s._replace(...)``, ``if t == START``.

A guard written on the new state (``if t.a > t.b + 1: return None``) reads
fields that came from the old state through ``_replace``; comparing with a
whole state reads every field.  A fast path must record those reads as
reads of the old state's parts.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    Limit: int = constant(3, "the largest value", minimum=1, maximum=5)


class State(NamedTuple):
    a: int
    b: int
    wraps: int


START = State(0, 0, 0)


def init(c):
    return [START]


@action("IncA")
def inc_a(c, s):
    t = s._replace(a=s.a + 1)
    if t.a > t.b + 1 or t.a > c.Limit:
        return None
    return t


@action("IncB")
def inc_b(c, s):
    t = s._replace(b=s.b + 1)
    if t.b > c.Limit:
        return None
    return t


@action("Wrap")
def wrap(c, s):
    t = State(0, 0, s.wraps + 1)
    if s == START or t == s or s.a != s.b or s.wraps >= 2:
        return None
    return t


@invariant("FewWraps", "The counters never wrap twice.")
def few_wraps(c, s):
    return s.wraps < 2


SPEC = Spec(name="successor-reads", title="guards on the successor and whole-state comparison", constants=Config,
            init=init, actions=[inc_a, inc_b, wrap], invariants=[few_wraps], deadlock_expected=True)
