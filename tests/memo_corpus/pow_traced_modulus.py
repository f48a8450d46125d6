"""Three-argument ``pow`` with a part as the modulus, or as the exponent beside a plain modulus.

``pow(2, 5, s.y)``: Python asks the modulus's type too, and a stand-in for
the part must answer as the value would, not crash the process;
``pow(2, s.x, 5)``: a stand-in for the exponent must not forget the
modulus (``2 ** 3`` is not ``2 ** 3 % 5``).  Either fires only deep in a
grid walk, past what a sample of early states shows.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    K: int = constant(12, "steps on each side of the grid", minimum=4, maximum=60)


class S(NamedTuple):
    x: int
    y: int
    z: int


def init(c):
    return [S(0, 0, 0)]


@action("IncX")
def inc_x(c, s):
    return s._replace(x=s.x + 1) if s.x < c.K else None


@action("IncY")
def inc_y(c, s):
    return s._replace(y=s.y + 1) if s.y < c.K else None


@action("ByModulus")
def by_modulus(c, s):
    if s.z != 0 or s.y < 3 or s.x < c.K - 1:
        return None
    return s._replace(z=1 if pow(2, 5, s.y) == 2 else 2)


@action("ByExponent")
def by_exponent(c, s):
    if s.z != 0 or s.y != 1 or s.x < c.K - 1:
        return None
    return s._replace(z=3 if pow(2, s.x, 5) == 1 else 4)


@invariant("NoOneOrThree", "z never becomes 1 or 3.")
def no_one_or_three(c, s):
    return s.z not in (1, 3)


SPEC = Spec(name="pow-traced-modulus", title="three-argument pow on parts", constants=Config, init=init,
            actions=[inc_x, inc_y, by_modulus, by_exponent], invariants=[no_one_or_three], deadlock_expected=True)
