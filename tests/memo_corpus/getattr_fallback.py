"""``__getattr__`` on the State class: derived fields computed on a missing attribute.

``s.total`` is not a field; the class's ``__getattr__`` computes it from
``self.left`` and ``self.right``.  Python calls ``__getattr__`` only when
normal lookup fails, so the derived name reads two fields.  A fast path
that sees ``s.total`` and looks for a field of that name, or runs the code
on a stand-in class without this hook, reads the wrong thing.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    Limit: int = constant(2, "the largest side", minimum=1, maximum=3)


class State(NamedTuple):
    left: int
    right: int
    peak: int

    def __getattr__(self, name):
        if name == "total":
            return self.left + self.right
        raise AttributeError(name)


def init(c):
    return [State(0, 0, 0)]


@action("Left")
def left(c, s):
    if s.left >= c.Limit:
        return None
    return s._replace(left=s.left + 1)


@action("Right")
def right(c, s):
    if s.right >= c.Limit:
        return None
    return s._replace(right=s.right + 1)


@action("Record")
def record(c, s):
    if s.total <= s.peak:
        return None
    return s._replace(peak=s.total)


@invariant("PeakBelow", "The peak stays below both sides full.")
def peak_below(c, s):
    return s.peak < 2 * c.Limit


SPEC = Spec(name="getattr-fallback", title="__getattr__ on the state class", constants=Config, init=init,
            actions=[left, right, record], invariants=[peak_below], deadlock_expected=True)
