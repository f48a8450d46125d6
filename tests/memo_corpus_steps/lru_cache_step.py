"""A ``functools.lru_cache`` helper called on a part of the parent and of the successor.

``rank(phase)`` is cached: on a hit its body does not run, so it reads
nothing of its argument; only the cache's ``hash()`` and ``==`` do.  The
cache is filled by whichever search ran first in the process.  ``Abort``
goes back from ``"commit"`` to ``"prepare"``, which lowers the rank.
"""

import functools
from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, step_property

EXPECTED = "violated"
PROPERTY = "PhaseNeverGoesBack"
PHASES = ("idle", "prepare", "commit", "done")


@attrs.frozen
class Config:
    Rounds: int = constant(2, "transactions", minimum=1, maximum=3)


class State(NamedTuple):
    phase: str
    rounds: int
    aborts: int


@functools.lru_cache(maxsize=None)
def rank(phase):
    return PHASES.index(phase)


def init(c):
    return [State(phase="idle", rounds=0, aborts=0)]


@action("Next")
def next_phase(c, s):
    if s.phase == "done":
        return None
    return s._replace(phase=PHASES[rank(s.phase) + 1])


@action("Restart")
def restart(c, s):
    if s.phase != "done" or s.rounds + 1 >= c.Rounds:
        return None
    return State("idle", s.rounds + 1, s.aborts)


@action("Abort")
def abort(c, s):
    if s.phase != "commit" or s.rounds == 0 or s.aborts:
        return None
    return State("prepare", s.rounds, 1)


@step_property("PhaseNeverGoesBack", "A step moves the phase forward, or starts a new round.")
def phase_never_goes_back(c, s, t):
    return rank(t.phase) >= rank(s.phase) or t.rounds > s.rounds


SPEC = Spec(name="lru-cache-step", title="an lru_cache helper in a step property", constants=Config, init=init,
            actions=[next_phase, restart, abort], properties=[phase_never_goes_back], deadlock_expected=True)
