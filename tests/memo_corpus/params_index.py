"""Action parameters used as indices: a negative domain value, a bool domain, and ``replace_at``.

``Domain("offset", lambda c: (-1, 0, 1))`` lets ``s.slots[offset]`` read
the last slot for -1; a domain of ``(False, True)`` indexes a pair.  The
part an action reads is chosen by the parameter, so a fast path keyed on
"the item at the parameter's index" must resolve -1 as the last item and
``True`` as item 1, as Python does.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant
from modelcheck.spec.replace import replace_at

EXPECTED = "violated"
OFFSET = Domain("offset", lambda c: (-1, 0, 1), str)
SIDE = Domain("side", lambda c: (False, True), lambda b: "right" if b else "left")


@attrs.frozen
class Config:
    Limit: int = constant(2, "the largest value of a slot", minimum=1, maximum=3)


class State(NamedTuple):
    slots: tuple
    pair: tuple


def init(c):
    return [State(slots=(0, 0, 0), pair=(0, 0))]


@action("Bump", offset=OFFSET)
def bump(c, s, offset):
    if s.slots[offset] >= c.Limit:
        return None
    return s._replace(slots=replace_at(s.slots, offset % 3, s.slots[offset] + 1))


@action("Mirror", side=SIDE)
def mirror(c, s, side):
    if s.pair[side] == s.slots[-1]:
        return None
    return s._replace(pair=replace_at(s.pair, int(side), s.slots[-1]))


@invariant("RightBehind", "The right side of the pair never holds the limit.")
def right_behind(c, s):
    return s.pair[True] < c.Limit


SPEC = Spec(name="params-index", title="parameters as indices", constants=Config, init=init,
            actions=[bump, mirror], invariants=[right_behind], deadlock_expected=True)
