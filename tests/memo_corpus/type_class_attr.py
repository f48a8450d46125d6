"""``x.__class__ is bool``, ``getattr(x, "__class__")`` and ``issubclass`` imported inside the action.

No call to ``type`` or ``isinstance`` appears: the class is read as an
attribute, by name through ``getattr``, or by a helper imported inside the
action (``from numbers import Integral`` and ``issubclass``).  ``level`` holds
``True`` on one path and ``1`` on another.  A stand-in's ``__class__`` is its
own class unless it lies about it, so a fast path that lets the read through
answers for the stand-in.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    Steps: int = constant(2, "steps after the level is set", minimum=1, maximum=4)


class State(NamedTuple):
    level: int
    """0, True or 1."""
    steps: int
    seen: int


def init(c):
    return [State(level=0, steps=0, seen=0)]


@action("SetBool")
def set_bool(c, s):
    if s.level:
        return None
    return s._replace(level=True)


@action("SetInt")
def set_int(c, s):
    if s.level:
        return None
    return s._replace(level=1)


@action("Step")
def step(c, s):
    if not s.level or s.steps >= c.Steps:
        return None
    return s._replace(steps=s.steps + 1)


@action("Classify")
def classify(c, s):
    from numbers import Integral

    if not s.level or s.seen:
        return None
    cls = s.level.__class__
    name = getattr(s.level, "__class__").__name__
    if cls is bool and name == "bool" and issubclass(cls, Integral):
        return s._replace(seen=2)
    return None


@invariant("NeverBool", "The level is never seen as a bool.")
def never_bool(c, s):
    return s.seen == 0


SPEC = Spec(name="type-class-attr", title="__class__ and getattr", constants=Config, init=init,
            actions=[set_bool, set_int, step, classify], invariants=[never_bool], deadlock_expected=True)
