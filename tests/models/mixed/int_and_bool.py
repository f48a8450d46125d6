"""A field that holds ``1`` in one state and ``True`` in another: the checker treats the two states as one
(they are equal), keeps the first met (``1``), and the spec's own code then never sees ``True`` there, so
``Reveal`` is never enabled and ``Small`` holds.  Tables that told ``1`` from ``True`` would find a third
state and a violation the spec does not have."""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, invariant


@attrs.frozen
class C:
    pass


class S(NamedTuple):
    n: int
    flag: int


def init(c):
    return [S(0, 0)]


@action("SetOne")
def set_one(c, s):
    return S(1, 1) if s.n == 0 else None


@action("SetTrue")
def set_true(c, s):
    return S(1, True) if s.n == 0 else None


@action("Reveal")
def reveal(c, s):
    return S(2, s.flag) if s.n == 1 and str(s.flag) == "True" else None


@invariant("Small")
def small(c, s):
    return s.n < 2


SPEC = Spec(name="int-and-bool", title="1 and True in one field", constants=C, init=init,
            actions=[set_one, set_true, reveal], invariants=[small])
