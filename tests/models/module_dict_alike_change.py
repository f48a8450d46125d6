"""A module-level dict changed through ``operator.setitem`` to a value equal to the old one but not alike.

``Flip`` sets ``FLAGS["on"]`` from ``1`` to ``True`` (equal, so a watch that
compares with ``==`` sees no change) once ``x`` is far along a grid walk;
``Hit`` reads ``str(FLAGS["on"])``.  The spec's own code runs ``Flip`` on
every state where it is enabled, so ``Hit`` sees ``'True'`` from then on;
tables that learnt ``Hit`` before would keep answering ``'1'``.  The change
must stop the tables, by type as well as by value.
"""

import operator
from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"
FLAGS = {"on": 1}


@attrs.frozen
class Config:
    K: int = constant(40, "steps along x", minimum=6, maximum=60)


class S(NamedTuple):
    x: int
    y: int
    w: int
    z: int


def init(c):
    return [S(0, 0, 0, 0)]


@action("IncX")
def inc_x(c, s):
    return s._replace(x=s.x + 1) if s.x < c.K else None


@action("IncY")
def inc_y(c, s):
    return s._replace(y=s.y + 1) if s.y < 30 else None


@action("IncW")
def inc_w(c, s):
    return s._replace(w=s.w + 1) if s.w < 6 else None


@action("Flip")
def flip(c, s):
    if s.x < 35 or s.z != 0:
        return None
    operator.setitem(FLAGS, "on", True)
    return None


@action("Hit")
def hit(c, s):
    if s.z != 0 or s.y != 3 or s.w != 0:
        return None
    return s._replace(z=9 if str(FLAGS["on"]) == "True" else 1)


@invariant("NotNine", "z never becomes 9.")
def not_nine(c, s):
    return s.z != 9


SPEC = Spec(name="module-dict-alike-change", title="a module dict changed to an equal value of another type",
            constants=Config, init=init, actions=[inc_x, inc_y, inc_w, flip, hit], invariants=[not_nine],
            deadlock_expected=True)
