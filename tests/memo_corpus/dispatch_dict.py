"""Helpers reached through a dict (``DISPATCH[s.steps](v)``), one of which asks ``v.__class__``.

The dispatch table is an ordinary pattern for per-phase behaviour.  The
helper that looks at the class is only called in some phases, so a fast
path that checks the functions an action calls by name would have to
follow the dict's values to find it.  ``value`` holds ``1`` or ``True``.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


def _never(v):
    return False


def _is_flag(v):
    return v.__class__ == bool


DISPATCH = {0: _never, 1: _is_flag, 2: _is_flag, 3: _never, 4: _never}


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


@action("Probe")
def probe(c, s):
    if s.hit or s.value == 0:
        return None
    if DISPATCH[s.steps](s.value):
        return s._replace(hit=True)
    return None


@invariant("NoHit", "The checker never sees a bool.")
def no_hit(c, s):
    return not s.hit


SPEC = Spec(name="dispatch-dict", title="helpers through a dict", constants=Config, init=init,
            actions=[set_int, set_bool, step, probe], invariants=[no_hit], deadlock_expected=True)
