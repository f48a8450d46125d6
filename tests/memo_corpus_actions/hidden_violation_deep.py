"""A violation reachable only through steps the action constraint rejects, at the far end of a grid.

``Crash`` is enabled only where ``a`` and ``b`` are both large, hundreds
of states in; the constraint lets a crash through only from the diagonal,
and ``Crash`` is never enabled there, so the spec holds.  A fast path that
checks invariants on a successor before the action constraint, or learns
the constraint wrongly late in the search, reports a violation.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "holds"


@attrs.frozen
class Config:
    Size: int = constant(9, "the largest coordinate", minimum=4, maximum=10)


class State(NamedTuple):
    a: int
    b: int
    d: int
    crashed: bool


def init(c):
    return [State(a=0, b=0, d=0, crashed=False)]


@action("MoveA")
def move_a(c, s):
    if s.crashed or s.a >= c.Size:
        return None
    return s._replace(a=s.a + 1)


@action("MoveB")
def move_b(c, s):
    if s.crashed or s.b >= c.Size:
        return None
    return s._replace(b=s.b + 1)


@action("MoveD")
def move_d(c, s):
    if s.crashed or s.d >= 4:
        return None
    return s._replace(d=s.d + 1)


@action("Crash")
def crash(c, s):
    if s.crashed or s.a < c.Size - 1 or s.b < c.Size - 2 or s.a == s.b:
        return None
    return s._replace(crashed=True)


def crash_on_diagonal(c, s, t):
    return not t.crashed or s.crashed or s.a == s.b


@invariant("NeverCrashed", "No state is crashed.")
def never_crashed(c, s):
    return not s.crashed


SPEC = Spec(name="hidden-violation-deep", title="a violation behind rejected steps", constants=Config, init=init,
            actions=[move_a, move_b, move_d, crash], invariants=[never_crashed],
            action_constraint=crash_on_diagonal, deadlock_expected=True)
