"""A field that holds ``0.0`` in one state and ``-0.0`` in another: equal, so one state to the checker (the
first met, ``0.0``), on which ``Negative`` is never enabled and ``Small`` holds."""

import math
from typing import NamedTuple

import attrs

from modelcheck import Spec, action, invariant


@attrs.frozen
class C:
    pass


class S(NamedTuple):
    n: int
    x: float


def init(c):
    return [S(0, 1.0)]


@action("Zero")
def zero(c, s):
    return S(1, 0.0) if s.n == 0 else None


@action("NegativeZero")
def negative_zero(c, s):
    return S(1, -0.0) if s.n == 0 else None


@action("Negative")
def negative(c, s):
    return S(2, s.x) if s.n == 1 and math.copysign(1.0, s.x) < 0 else None


@invariant("Small")
def small(c, s):
    return s.n < 2


SPEC = Spec(name="signed-zero", title="0.0 and -0.0 in one field", constants=C, init=init,
            actions=[zero, negative_zero, negative], invariants=[small])
