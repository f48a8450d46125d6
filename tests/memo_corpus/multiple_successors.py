"""An action returning a list of successors: duplicates in the list, an order that depends on parts.

TLC counts both disjuncts when two yield the same successor, and so does
the checker (each list element is one generated state).  The list here is
built by a comprehension over a part, with a duplicate when two values
coincide; a fast path must give the same successors, the same number of
times, in the same order (the order decides which trace is reported).
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    Limit: int = constant(3, "the largest value", minimum=1, maximum=4)


class State(NamedTuple):
    a: int
    b: int


def init(c):
    return [State(0, 0)]


@action("Move")
def move(c, s):
    targets = [t for t in (s.a + 1, s.b + 1, max(s.a, s.b)) if t <= c.Limit]
    out = [s._replace(a=t) for t in targets] + [s._replace(b=t) for t in targets if t != s.b]
    return out or None


@invariant("NotBothTop", "a and b never both reach the limit.")
def not_both_top(c, s):
    return not (s.a == c.Limit and s.b == c.Limit)


SPEC = Spec(name="multiple-successors", title="a list of successors with duplicates", constants=Config,
            init=init, actions=[move], invariants=[not_both_top], deadlock_expected=True)
