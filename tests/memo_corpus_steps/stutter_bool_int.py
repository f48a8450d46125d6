"""A flag set to ``1`` and then confirmed as ``True``: a step to an equal state, so a stutter.

``Confirm`` returns the state with ``ready=True`` where it held ``1``; the
two states are equal, so the step is stuttering and the property is not
checked on it.  Checked there, ``str(s.ready) == str(t.ready)`` would fail
("1" against "True").  A fast path that tells a stutter by the values'
types, or by the action having written a part, checks it.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, step_property

EXPECTED = "holds"
PROPERTY = "ReadyKeepsItsText"


@attrs.frozen
class Config:
    Rounds: int = constant(3, "times the flag is armed", minimum=1, maximum=5)


class State(NamedTuple):
    ready: int
    """0, 1 or True."""
    rounds: int
    served: int


def init(c):
    return [State(ready=0, rounds=0, served=0)]


@action("Arm")
def arm(c, s):
    if s.ready or s.rounds >= c.Rounds:
        return None
    return s._replace(ready=1, rounds=s.rounds + 1)


@action("Confirm")
def confirm(c, s):
    if s.ready != 1:
        return None
    return s._replace(ready=True)


@action("Serve")
def serve(c, s):
    if not s.ready:
        return None
    return s._replace(ready=0, served=s.served + 1)


@step_property("ReadyKeepsItsText", "A step that leaves the flag set leaves how it prints.")
def ready_keeps_its_text(c, s, t):
    return not (s.ready and t.ready) or str(s.ready) == str(t.ready)


SPEC = Spec(name="stutter-bool-int", title="1 and True in a stuttering step", constants=Config, init=init,
            actions=[arm, confirm, serve], properties=[ready_keeps_its_text], deadlock_expected=True)
