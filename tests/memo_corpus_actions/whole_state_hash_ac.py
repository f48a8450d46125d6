"""An action constraint on whole states: ``s == t``, ``hash(t)`` and ``repr``.

Stuttering steps (``Noop``) are let through by ``s == t``; any other step
is let through when the successor's hash, taken modulo 5, differs from the
parent's, or its ``repr`` sorts after the parent's.  Every part is an int,
so the hashes are the same from run to run.  The pruning is uneven and
reaches deep into the grid.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "holds"


@attrs.frozen
class Config:
    Size: int = constant(10, "the largest coordinate", minimum=3, maximum=12)


class State(NamedTuple):
    a: int
    b: int
    d: int


def init(c):
    return [State(a=0, b=0, d=0)]


@action("MoveA")
def move_a(c, s):
    if s.a >= c.Size:
        return None
    return s._replace(a=s.a + 1)


@action("MoveB")
def move_b(c, s):
    if s.b >= c.Size:
        return None
    return s._replace(b=s.b + 1)


@action("Wrap")
def wrap(c, s):
    return s._replace(d=(s.d + 1) % 4)


@action("Noop")
def noop(c, s):
    return State(s.a, s.b, s.d)


def scattered(c, s, t):
    return s == t or hash(t) % 5 != hash(s) % 5 or repr(t) > repr(s)


@invariant("InGrid", "The coordinates stay in the grid.")
def in_grid(c, s):
    return s.a <= c.Size and s.b <= c.Size


SPEC = Spec(name="whole-state-hash", title="whole states in an action constraint", constants=Config, init=init,
            actions=[move_a, move_b, wrap, noop], invariants=[in_grid], action_constraint=scattered,
            deadlock_expected=True)
