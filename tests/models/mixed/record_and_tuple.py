"""A field that holds a record in one state and a plain tuple with the same items in another: equal, so one
state (the record, met first), whose ``repr`` names the record, so ``Plain`` is never enabled."""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, invariant


@attrs.frozen
class C:
    pass


class Pair(NamedTuple):
    x: int
    y: int


class S(NamedTuple):
    n: int
    p: tuple


def init(c):
    return [S(0, ())]


@action("Record")
def record(c, s):
    return S(1, Pair(1, 2)) if s.n == 0 else None


@action("Tuple")
def plain_tuple(c, s):
    return S(1, (1, 2)) if s.n == 0 else None


@action("Plain")
def plain(c, s):
    return S(2, s.p) if s.n == 1 and repr(s.p).startswith("(") else None


@invariant("Small")
def small(c, s):
    return s.n < 2


SPEC = Spec(name="record-and-tuple", title="a record and a tuple in one field", constants=C, init=init,
            actions=[record, plain_tuple, plain], invariants=[small])
