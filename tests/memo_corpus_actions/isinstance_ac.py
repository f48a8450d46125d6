"""An action constraint that asks ``isinstance(t.value, bool)`` and ``type(s.value)``.

``Set`` stores ``True``, ``One`` the int ``1``: equal values.  The
constraint rejects a step that changes the value's type, so which of the
two a state holds depends on how it was reached first.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "holds"


@attrs.frozen
class Config:
    Rounds: int = constant(6, "rounds of the counter", minimum=2, maximum=9)


class State(NamedTuple):
    value: object
    n: int


def init(c):
    return [State(value=0, n=0)]


@action("Set")
def set_(c, s):
    return s._replace(value=True)


@action("One")
def one(c, s):
    return s._replace(value=1)


@action("Clear")
def clear(c, s):
    return s._replace(value=0)


@action("Tick")
def tick(c, s):
    if s.n >= c.Rounds:
        return None
    return s._replace(n=s.n + 1)


def type_kept(c, s, t):
    return isinstance(t.value, bool) == isinstance(s.value, bool) or type(s.value) is int


@invariant("ValueIsABit", "The value is 0 or 1.")
def value_is_a_bit(c, s):
    return s.value in (0, 1)


SPEC = Spec(name="isinstance-ac", title="isinstance and type in an action constraint", constants=Config,
            init=init, actions=[set_, one, clear, tick], invariants=[value_is_a_bit], action_constraint=type_kept,
            deadlock_expected=True)
