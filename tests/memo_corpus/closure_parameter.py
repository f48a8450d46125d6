"""``isinstance(x, bool)`` reached only through a closure over a factory's parameter.

The action the spec declares is made by ``probing(check)``: its body calls
``check``, a parameter of the factory, so reading the body alone never
names the function that tests the type.  A stand-in for the part is not a
bool, and a result reused for the equal value answers for the other type.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    Steps: int = constant(2, "steps after the value is set", minimum=1, maximum=4)


class State(NamedTuple):
    value: int
    """0 at the start, then True or 1 (written by different actions)."""
    via: int
    """Which action set the value (so that equal values set differently are different states)."""
    steps: int
    hit: bool


def init(c):
    return [State(value=0, via=0, steps=0, hit=False)]


@action("SetInt")
def set_int(c, s):
    if s.value != 0 or s.hit:
        return None
    return s._replace(value=1, via=1)


@action("SetBool")
def set_bool(c, s):
    if s.value != 0 or s.hit:
        return None
    return s._replace(value=True, via=2)


@action("Step")
def step(c, s):
    if s.value == 0 or s.steps >= c.Steps:
        return None
    return s._replace(steps=s.steps + 1)


def is_bool(value):
    return isinstance(value, bool)


def probing(check):
    def probe(c, s):
        if s.hit or s.value == 0:
            return None
        if check(s.value):
            return s._replace(hit=True)
        return None

    return probe


probe = action("Probe")(probing(is_bool))


@invariant("NoHit", "The value is never a bool.")
def no_hit(c, s):
    return not s.hit


SPEC = Spec(name="closure-parameter", title="a type test through a closure over a parameter", constants=Config, init=init,
            actions=[set_int, set_bool, step, probe], invariants=[no_hit], deadlock_expected=True)
