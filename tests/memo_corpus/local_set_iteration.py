"""A set built locally from parts and iterated: ``next(iter({s.a, s.b}))`` depends on insertion order.

8 and 0 fall in the same slot of a small set, so ``{8, 0}`` iterates 8
first and ``{0, 8}`` iterates 0 first: the answer depends on which part
was inserted first, hence on both values.  This is deterministic for the
spec's own code; a fast path must replicate it exactly.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    Big: int = constant(8, "the value that shares a slot with 0", minimum=8, maximum=8)


class State(NamedTuple):
    a: int
    b: int
    first: int


def init(c):
    return [State(a=0, b=0, first=-1)]


@action("BigA")
def big_a(c, s):
    if s.a or s.b:
        return None
    return s._replace(a=c.Big)


@action("BigB")
def big_b(c, s):
    if s.a or s.b:
        return None
    return s._replace(b=c.Big)


@action("Pick")
def pick(c, s):
    if s.first != -1 or s.a == s.b:
        return None
    return s._replace(first=next(iter({s.a, s.b})))


@invariant("ZeroPicked", "The pick is never the big value.")
def zero_picked(c, s):
    return s.first != c.Big


SPEC = Spec(name="local-set-iteration", title="iterating a local set", constants=Config, init=init,
            actions=[big_a, big_b, pick], invariants=[zero_picked], deadlock_expected=True)
