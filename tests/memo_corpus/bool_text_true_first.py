"""A bool and an equal int through ``str`` and ``repr``, with ``True`` reached before ``1``.

Which of two equal values a table keeps may depend on which it met first;
here the bool comes first (``bool_text`` has the int first), so a fast path
that keeps the first object would print ``True`` where the spec's code
prints ``1``.
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


@action("SetBool")
def set_bool(c, s):
    if s.value != 0 or s.hit:
        return None
    return s._replace(value=True, via=1)


@action("SetInt")
def set_int(c, s):
    if s.value != 0 or s.hit:
        return None
    return s._replace(value=1, via=2)


@action("Step")
def step(c, s):
    if s.value == 0 or s.steps >= c.Steps:
        return None
    return s._replace(steps=s.steps + 1)


@action("Probe")
def probe(c, s):
    if s.hit or s.value == 0:
        return None
    text = str(s.value) + repr(s.value)
    if len(text) == 2:
        return s._replace(hit=True)
    return None


@invariant("NoHit", "The value never prints as a number.")
def no_hit(c, s):
    return not s.hit


SPEC = Spec(name="bool-text-true-first", title="str and repr, bool first", constants=Config, init=init,
            actions=[set_bool, set_int, step, probe], invariants=[no_hit], deadlock_expected=True)
