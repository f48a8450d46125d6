"""An action constraint that divides by the step's progress: a stuttering step divides by zero.

The constraint bounds how fast the level rises against the progress made,
``(t.level - s.level) / (progress(t) - progress(s)) <= 1``.  Every step
but ``Hold`` moves ``a`` or ``b``; ``Hold`` returns the state unchanged and
is enabled only at the far corner of the grid, deep in the search.  The
action constraint is evaluated on stuttering steps too, so the spec's own
code stops there with ``ZeroDivisionError``.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "error"


@attrs.frozen
class Config:
    Size: int = constant(8, "the largest coordinate", minimum=3, maximum=10)


class State(NamedTuple):
    a: int
    b: int
    level: int


def init(c):
    return [State(a=0, b=0, level=0)]


@action("MoveA")
def move_a(c, s):
    if s.a >= c.Size:
        return None
    return s._replace(a=s.a + 1, level=s.level + (s.a % 2))


@action("MoveB")
def move_b(c, s):
    if s.b >= c.Size:
        return None
    return s._replace(b=s.b + 1)


@action("Jump")
def jump(c, s):
    if s.a >= c.Size or s.level > c.Size:
        return None
    return s._replace(a=s.a + 1, level=s.level + 2)


@action("Hold")
def hold(c, s):
    if s.a < c.Size or s.b < c.Size - 1:
        return None
    return s


def progress(s):
    return s.a + s.b


def steady(c, s, t):
    return (t.level - s.level) / (progress(t) - progress(s)) <= 1


@invariant("LevelBounded", "The level never passes the progress.")
def level_bounded(c, s):
    return s.level <= s.a + s.b


SPEC = Spec(name="stutter-raises", title="an action constraint raising on stuttering steps", constants=Config,
            init=init, actions=[move_a, move_b, jump, hold], invariants=[level_bounded], action_constraint=steady,
            deadlock_expected=True)
