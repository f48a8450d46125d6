"""State kept between calls in a function's attribute, reached through a local name.

``Mark`` appends to ``bump.calls`` on every call (through ``operator.iadd``,
a library function whose inside the review does not read: a ``.append()``
on the local name would be refused before the search) and marks the state late
once more than ``T`` calls were made: the spec is not a function of the
state, and only its own code, in a fresh process, says what it gives.  The
threshold is past the sampled states, so the determinism check does not see
it.  On the memo tables the first evaluations would be the tables' own, not
the search's: the tables must notice the list change, stand aside, and leave
the list as the search would have found it.
"""

import operator
from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant


def bump():
    return 0


bump.calls = []


class Box:
    items = []


@attrs.frozen
class Config:
    K: int = constant(40, "steps on each side of the grid", minimum=1, maximum=100)
    T: int = constant(2500, "calls of Mark before states turn late", minimum=0, maximum=10**9)
    InClass: bool = constant(False, "keep the calls in a class attribute instead of the function's")


class S(NamedTuple):
    a: int
    b: int
    late: int


def init(c):
    return [S(0, 0, 0)]


@action("IncA")
def inc_a(c, s):
    if s.a >= c.K:
        return None
    return s._replace(a=s.a + 1)


@action("IncB")
def inc_b(c, s):
    if s.b >= c.K:
        return None
    return s._replace(b=s.b + 1)


@action("Mark")
def mark(c, s):
    if s.late:
        return None
    calls = Box.items if c.InClass else bump.calls
    operator.iadd(calls, [1])
    if len(calls) > c.T:
        return s._replace(late=1)
    return None


@invariant("Fine", "always true: the counts are what is compared")
def fine(c, s):
    return True


SPEC = Spec(name="keeps-state", title="state kept between calls", constants=Config, init=init,
            actions=[inc_a, inc_b, mark], invariants=[fine], deadlock_expected=True)
