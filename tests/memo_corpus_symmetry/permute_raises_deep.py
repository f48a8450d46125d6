"""A ``permute`` that raises ``KeyError`` on a phase its table forgot, reached only deep in the search.

Phases run ``init``, ``ready``, ``busy``, ``done``; the renaming ranks each
phase in ``RANK`` (to rebuild a sorted summary), which has no ``done``, and
a process finishes only once the clock has run out (past the states the
preflight walk samples).  A state needs a renamed copy only when its keys
are out of order or tied, so the error comes with the first such state
holding a finished process.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, Symmetry, action, constant, invariant

EXPECTED = "error"
PHASES = ("init", "ready", "busy", "done")
RANK = {"init": 0, "ready": 1, "busy": 2}


@attrs.frozen
class Config:
    N: int = constant(3, "processes", minimum=2, maximum=4)
    Clock: int = constant(4, "ticks before a process may finish", minimum=0, maximum=9)


class State(NamedTuple):
    phase: tuple
    summary: tuple
    """The processes' phases, sorted: a summary that renaming leaves as it is."""
    clock: int
    spun: tuple
    """Per process: whether it has spun once (the key ignores it)."""


P = Domain("p", lambda c: range(c.N), lambda p: f"p{p}")


def init(c):
    return [State(("init",) * c.N, ("init",) * c.N, 0, (False,) * c.N)]


@action("Advance", p=P)
def advance(c, s, p):
    i = PHASES.index(s.phase[p])
    if i == len(PHASES) - 1 or (PHASES[i + 1] == "done" and s.clock < c.Clock):
        return None
    phase = s.phase[:p] + (PHASES[i + 1],) + s.phase[p + 1:]
    return State(phase, tuple(sorted(phase)), s.clock, s.spun)


@action("Spin", p=P)
def spin(c, s, p):
    if s.spun[p]:
        return None
    return s._replace(spun=s.spun[:p] + (True,) + s.spun[p + 1:])


@action("Tick")
def tick(c, s):
    if s.clock >= c.Clock:
        return None
    return s._replace(clock=s.clock + 1)


@invariant("SummaryMatches", "The summary is the sorted phases.")
def summary_matches(c, s):
    return s.summary == tuple(sorted(s.phase))


def permute(c, s, perm):
    phase, spun = [None] * c.N, [False] * c.N
    for i, x in enumerate(s.phase):
        phase[perm[i]], spun[perm[i]] = x, s.spun[i]
    ranked = sorted(phase, key=lambda x: RANK[x])
    return State(tuple(phase), tuple(sorted(ranked)), s.clock, tuple(spun))


def signature(c, s, p):
    return PHASES.index(s.phase[p])


SPEC = Spec(name="permute-raises-deep", title="a permute that raises deep in the search", constants=Config,
            init=init, actions=[advance, spin, tick], invariants=[summary_matches],
            symmetry=Symmetry(lambda c: c.N, permute, signature), deadlock_expected=True)
