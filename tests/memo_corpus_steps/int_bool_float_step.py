"""A counter written as ``1``, ``True`` or ``1.0`` by different actions, compared through an f-string.

``1 == True == 1.0``, so a step from one to another keeps the value, while
``f"{t.n}"`` prints ``1``, ``True`` or ``1.0``.  Another part changes on
every step, so none of these steps stutters.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, step_property

EXPECTED = "violated"
PROPERTY = "TextFollowsValue"


@attrs.frozen
class Config:
    Steps: int = constant(4, "the most steps", minimum=2, maximum=6)


class State(NamedTuple):
    n: int
    steps: int


def init(c):
    return [State(n=0, steps=0)]


@action("SetInt")
def set_int(c, s):
    if s.steps >= c.Steps or s.n:
        return None
    return State(1, s.steps + 1)


@action("SetFloat")
def set_float(c, s):
    if s.steps >= c.Steps or s.n:
        return None
    return State(1.0, s.steps + 1)


@action("Recheck")
def recheck(c, s):
    if s.steps >= c.Steps or s.n != 1:
        return None
    return State(s.n == 1, s.steps + 1)


@action("ToFloat")
def to_float(c, s):
    if s.steps >= c.Steps or not s.n or s.steps < 2:
        return None
    return State(float(s.n), s.steps + 1)


@action("Clear")
def clear(c, s):
    if s.steps >= c.Steps:
        return None
    return State(0, s.steps + 1)


@step_property("TextFollowsValue", "A step that keeps the counter keeps how it prints, unless it rechecks it.")
def text_follows_value(c, s, t):
    return t.n != s.n or f"{t.n}" == f"{s.n}" or f"{t.n}" == "True"


SPEC = Spec(name="int-bool-float-step", title="1, True and 1.0 in a step", constants=Config, init=init,
            actions=[set_int, set_float, recheck, to_float, clear], properties=[text_follows_value], deadlock_expected=True)
