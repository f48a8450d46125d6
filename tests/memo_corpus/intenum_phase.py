"""An ``IntEnum`` for phases in the code, with plain ints in the state: ``Phase(s.phase).name``.

Enum members cannot be state values (the checker accepts ints, bools,
tuples and frozensets), so a newcomer stores ``int(Phase.BUSY)`` and turns
it back with ``Phase(s.phase)`` to read its name.  The lookup hashes and
compares the part; the name decides the successor.
"""

from enum import IntEnum
from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


class Phase(IntEnum):
    IDLE = 0
    BUSY = 1
    DONE = 2


@attrs.frozen
class Config:
    Jobs: int = constant(2, "jobs in all", minimum=1, maximum=3)


class State(NamedTuple):
    phase: int
    jobs: int
    width: int


def init(c):
    return [State(phase=int(Phase.IDLE), jobs=0, width=0)]


@action("Start")
def start(c, s):
    if Phase(s.phase) != Phase.IDLE or s.jobs >= c.Jobs:
        return None
    return s._replace(phase=int(Phase.BUSY), jobs=s.jobs + 1)


@action("Finish")
def finish(c, s):
    if s.phase != Phase.BUSY:
        return None
    return s._replace(phase=int(Phase.DONE if s.jobs == c.Jobs else Phase.IDLE))


@action("Name")
def name(c, s):
    width = len(Phase(s.phase).name)
    if width == s.width:
        return None
    return s._replace(width=width)


@invariant("ShortNames", "No phase name of four letters is recorded after the last job.")
def short_names(c, s):
    return not (s.jobs == c.Jobs and s.width == 4 and s.phase == Phase.DONE)


SPEC = Spec(name="intenum-phase", title="IntEnum phases over int parts", constants=Config, init=init,
            actions=[start, finish, name], invariants=[short_names], deadlock_expected=True)
