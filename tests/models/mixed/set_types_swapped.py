"""A field that holds ``{1.0, 2}`` in one state and the equal ``{1, 2.0}`` in another: the same element types,
on other elements.  The checker treats the two states as one and keeps the first met (``{1.0, 2}``), whose
largest element is the int ``2``, so ``Reveal`` (which asks for a float maximum) is never enabled and
``Small`` holds.  Tables that gave both sets one id could run ``Reveal`` on the wrong one."""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, invariant


@attrs.frozen
class C:
    pass


class S(NamedTuple):
    n: int
    amounts: frozenset


def init(c):
    return [S(0, frozenset())]


@action("SetIntMax")
def set_int_max(c, s):
    return S(1, frozenset({1.0, 2})) if s.n == 0 else None


@action("SetFloatMax")
def set_float_max(c, s):
    return S(1, frozenset({1, 2.0})) if s.n == 0 else None


@action("Reveal")
def reveal(c, s):
    return S(2, s.amounts) if s.n == 1 and str(max(s.amounts)) == "2.0" else None


@invariant("Small")
def small(c, s):
    return s.n < 2


SPEC = Spec(name="set-types-swapped", title="{1.0, 2} and {1, 2.0} in one field", constants=C, init=init,
            actions=[set_int_max, set_float_max, reveal], invariants=[small])
