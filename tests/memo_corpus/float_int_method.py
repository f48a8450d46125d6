"""``1`` and ``1.0`` through ``x.hex()``, a method only floats have, guarded by ``try``/``except AttributeError``.

Duck typing by catching ``AttributeError`` is ordinary Python.  ``value``
holds ``1`` or ``1.0``; a stand-in that forwards method calls answers for
the value it met first, or raises where the value would not.
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
    """0 at the start, then 1 or 1.0 (written by different actions)."""
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


@action("SetFloat")
def set_float(c, s):
    if s.value != 0 or s.hit:
        return None
    return s._replace(value=1.0, via=2)


@action("Step")
def step(c, s):
    if s.value == 0 or s.steps >= c.Steps:
        return None
    return s._replace(steps=s.steps + 1)


@action("Probe")
def probe(c, s):
    if s.hit or s.value == 0:
        return None
    try:
        text = s.value.hex()
    except AttributeError:
        return None
    if text.startswith("0x1"):
        return s._replace(hit=True)
    return None


@invariant("NoHit", "The value is never a float.")
def no_hit(c, s):
    return not s.hit


SPEC = Spec(name="float-int-method", title="float methods on an int/float part", constants=Config, init=init,
            actions=[set_int, set_float, step, probe], invariants=[no_hit], deadlock_expected=True)
