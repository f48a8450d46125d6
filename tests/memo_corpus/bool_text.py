"""``"%s" % x``, ``"{}".format(x)`` and ``str.join``: a bool and an equal int print differently.

``value`` holds ``1`` (set first in the action order) or ``True``.  Text
made from a part is ordinary (labels, keys); the successor keeps only its
length, so the state stays canonical.  A fast path that stores one object
per equal value, or runs the code on a stand-in that prints as the other
value, counts another length.
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


@action("Probe")
def probe(c, s):
    if s.hit or s.value == 0:
        return None
    text = "%s|{}|".replace("{}", "{}".format(s.value)) % (s.value,) + ",".join(str(v) for v in (s.value,))
    if len(text) > 8:
        return s._replace(hit=True)
    return None


@invariant("NoHit", "The label stays short.")
def no_hit(c, s):
    return not s.hit


SPEC = Spec(name="bool-text", title="%-formatting, format and join", constants=Config, init=init,
            actions=[set_int, set_bool, step, probe], invariants=[no_hit], deadlock_expected=True)
