"""A field that holds ``1`` in one state and ``True`` in another, read through ``str()``.

``1 == True`` and ``hash(1) == hash(True)``, so a table keyed on a part's value
sees one value where the spec's code sees two: ``str(True)`` is ``"True"``,
``str(1)`` is ``"1"``.  The states differ in ``via`` so both are reached; an
action run once on ``1`` and its result reused for ``True`` (or the value
stored back as the other one) misses the state where the label says True.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    Rounds: int = constant(2, "rounds of setting the flag", minimum=1, maximum=4)


class State(NamedTuple):
    flag: int
    """0, 1 or True (written by different actions)."""
    via: int
    rounds: int
    seen_true: bool


def init(c):
    return [State(flag=0, via=0, rounds=0, seen_true=False)]


@action("SetOne")
def set_one(c, s):
    if s.rounds >= c.Rounds:
        return None
    return s._replace(flag=1, via=1, rounds=s.rounds + 1)


@action("SetTrue")
def set_true(c, s):
    if s.rounds >= c.Rounds:
        return None
    return s._replace(flag=s.rounds >= 0, via=2, rounds=s.rounds + 1)


@action("Reset")
def reset(c, s):
    if s.flag == 0:
        return None
    return s._replace(flag=0)


@action("Label")
def label(c, s):
    """Remember whether the flag reads as the word True."""
    text = str(s.flag)
    if text == "True" and not s.seen_true:
        return s._replace(seen_true=True)
    return None


@invariant("NeverTrueText", "The flag never prints as True.")
def never_true_text(c, s):
    return not s.seen_true


SPEC = Spec(name="value-bool-int-str", title="1 and True through str()", constants=Config, init=init,
            actions=[set_one, set_true, reset, label], invariants=[never_true_text], deadlock_expected=True)
