"""An action constraint whose reads depend on the values: the mode decides which part it compares.

In mode 0 it compares ``a`` in the parent and the successor, in mode 1
``b``, in mode 2 nothing at all but the successor's mode.  The violation
needs ``a`` and ``b`` both at the top, reached through a path the
constraint keeps narrow.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    Size: int = constant(8, "the largest coordinate", minimum=3, maximum=10)


class State(NamedTuple):
    mode: int
    a: int
    b: int


def init(c):
    return [State(mode=0, a=0, b=0)]


@action("Mode")
def mode(c, s):
    return s._replace(mode=(s.mode + 1) % 3)


@action("UpA")
def up_a(c, s):
    if s.a >= c.Size:
        return None
    return s._replace(a=s.a + 1)


@action("UpB")
def up_b(c, s):
    if s.b >= c.Size:
        return None
    return s._replace(b=s.b + 1)


@action("Both")
def both(c, s):
    if s.a >= c.Size or s.b >= c.Size:
        return None
    return s._replace(a=s.a + 1, b=s.b + 1)


def by_mode(c, s, t):
    if s.mode == 0:
        return t.a == s.a
    if s.mode == 1:
        return t.b == s.b
    return t.mode != 1


@invariant("NotBothTop", "a and b are never both at the top.")
def not_both_top(c, s):
    return not (s.a == c.Size and s.b == c.Size)


SPEC = Spec(name="value-read-set", title="reads that depend on the values", constants=Config, init=init,
            actions=[mode, up_a, up_b, both], invariants=[not_both_top], action_constraint=by_mode,
            deadlock_expected=True)
