"""``str(x)`` of ``0.0`` and ``-0.0``: equal floats, equal hashes, different text.

The checker accepts floats.  ``value`` starts at 1.0 and is set to ``-0.0``
(``0.0 * -1``) or ``0.0``, whichever action runs; the spec's own code sees
the sign.  A fast path that stores one zero, or reuses a result computed on
the other, misses the negative zero.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    Steps: int = constant(2, "steps after the value is set", minimum=1, maximum=4)


class State(NamedTuple):
    value: float
    """1.0 at the start, then 0.0 or -0.0 (written by different actions)."""
    via: int
    """Which action set the value (so that equal values set differently are different states)."""
    steps: int
    hit: bool


def init(c):
    return [State(value=1.0, via=0, steps=0, hit=False)]


@action("SetPos")
def set_pos(c, s):
    if s.value != 1.0 or s.hit:
        return None
    return s._replace(value=0.0, via=1)


@action("SetNeg")
def set_neg(c, s):
    if s.value != 1.0 or s.hit:
        return None
    return s._replace(value=0.0 * -1, via=2)


@action("Step")
def step(c, s):
    if s.value == 1.0 or s.steps >= c.Steps:
        return None
    return s._replace(steps=s.steps + 1)


@action("Probe")
def probe(c, s):
    if s.hit or s.value == 1.0:
        return None
    if s.value == 0 and str(s.value).startswith("-"):
        return s._replace(hit=True)
    return None


@invariant("NoHit", "The value is never a negative zero.")
def no_hit(c, s):
    return not s.hit


SPEC = Spec(name="float-zero-text", title="0.0 and -0.0 through str", constants=Config, init=init,
            actions=[set_pos, set_neg, step, probe], invariants=[no_hit], deadlock_expected=True)
