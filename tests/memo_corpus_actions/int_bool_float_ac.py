"""Parts holding ``1``, ``True`` and ``1.0``: equal values of different types, told apart by ``str``.

``Arm`` sets ``armed`` to ``True``, ``Count`` sets it to the int ``1`` or
``0``, ``Scale`` to ``1.0``; the states are equal to the visited set.  The
constraint compares ``str(t.armed)`` with ``str(s.armed)``, which tells
them apart, and rejects a step that changes the spelling without the value.
Which spelling a state keeps is the one met first.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "holds"


@attrs.frozen
class Config:
    Rounds: int = constant(5, "rounds of the counter", minimum=2, maximum=8)


class State(NamedTuple):
    armed: object
    n: int
    m: int


def init(c):
    return [State(armed=False, n=0, m=0)]


@action("Arm")
def arm(c, s):
    return s._replace(armed=True)


@action("Count")
def count(c, s):
    if s.n >= c.Rounds:
        return None
    return State(int(s.n % 2 == 0), s.n + 1, s.m)


@action("Scale")
def scale(c, s):
    if s.m >= 3:
        return None
    return State(float(s.armed), s.n, s.m + 1)


def same_spelling(c, s, t):
    return t.armed != s.armed or str(t.armed) == str(s.armed)


@invariant("ArmedIsOneOrZero", "The flag is one or zero.")
def armed_is_one_or_zero(c, s):
    return s.armed in (0, 1)


SPEC = Spec(name="int-bool-float-ac", title="1, True and 1.0 in an action constraint", constants=Config,
            init=init, actions=[arm, count, scale], invariants=[armed_is_one_or_zero],
            action_constraint=same_spelling, deadlock_expected=True)
