"""SyncTerminationDetection: the abstract spec EWD840 refines, ported from TLA+.

Source: github.com/tlaplus/Examples, specifications/ewd840/SyncTerminationDetection.tla
(Stephan Merz; MIT-licensed repository).  Model: SyncTerminationDetection.cfg,
``N = 7``, ``INVARIANTS TypeOK TDCorrect``, ``PROPERTIES Quiescence Liveness``;
its manifest records 129 distinct states, 3,722 states generated, depth 1.

How the TLA+ is mapped:

* ``active`` is a tuple of bools over ``Node == 0 .. N-1``; ``terminationDetected`` a bool.
* ``Init`` chooses ``terminationDetected \\in {FALSE, terminated}``, a *set*: one
  initial state when ``terminated`` is FALSE, two when it is TRUE; likewise
  ``Terminate(i)``'s ``terminationDetected' \\in {terminationDetected, terminated'}``
  gives one successor per distinct element, as TLC enumerates the set.
* ``Wakeup(i, j)`` is enabled for every ``j``, ``j = i`` and an active ``j``
  included (those steps stutter); ``DetectTermination`` is enabled whenever
  every node is inactive (a stuttering step once termination is detected).
  TLC counts each such successor, so the states generated are TLC's.
* ``Spec == Init /\\ [][Next]_vars /\\ WF_vars(DetectTermination)``: ``weak(detect_termination)``.
* ``Quiescence == [](terminated => []terminated)`` is a step property here
  (once every node is inactive no step activates one: ``[](terminated =>
  terminated')``, the same on every behaviour); ``Liveness == terminated ~>
  terminationDetected`` a liveness property.

EWD840 refines it (``bench/published/ewd840.py``, property ``TDSpec``).
"""

from itertools import product
from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant, leads_to, liveness, step_property, weak


@attrs.frozen
class Config:
    N: int = constant(7, "number of nodes", minimum=1, maximum=10)


class State(NamedTuple):
    active: tuple[bool, ...]
    terminationDetected: bool


NODE = Domain("i", lambda c: range(c.N), str)
NODE_J = Domain("j", lambda c: range(c.N), str)


def terminated(c: Config, s: State) -> bool:
    """terminated == \\A n \\in Node : ~ active[n]"""
    return not any(s.active)


def init(c: Config) -> list[State]:
    """Init: any activation; termination detected at once only if every node is inactive."""
    out = []
    for a in product((False, True), repeat=c.N):
        for td in sorted({False, not any(a)}):  # terminationDetected \in {FALSE, terminated}
            out.append(State(tuple(a), td))
    return out


def _at(values: tuple, i: int, v: bool) -> tuple:
    out = list(values)
    out[i] = v
    return tuple(out)


@action("Terminate", i=NODE)
def terminate(c: Config, s: State, i: int) -> list[State] | None:
    """Node i terminates, and termination may (not must) be detected if every node is now inactive."""
    if not s.active[i]:
        return None
    active = _at(s.active, i, False)
    # terminationDetected' \in {terminationDetected, terminated'}: one successor per element of the set
    return [State(active, td) for td in sorted({s.terminationDetected, not any(active)})]


@action("Wakeup", i=NODE, j=NODE_J)
def wakeup(c: Config, s: State, i: int, j: int) -> State | None:
    """An active node i activates node j."""
    if not s.active[i]:
        return None
    return s._replace(active=_at(s.active, j, True))


@action("DetectTermination")
def detect_termination(c: Config, s: State) -> State | None:
    """Termination is detected once every node is inactive."""
    if any(s.active):
        return None
    return s._replace(terminationDetected=True)


@invariant("TypeOK", "active is a function from Node to BOOLEAN, terminationDetected a BOOLEAN.")
def type_ok(c: Config, s: State) -> bool:
    return len(s.active) == c.N and all(isinstance(x, bool) for x in s.active) and isinstance(
        s.terminationDetected, bool)


@invariant("TDCorrect", "terminationDetected => terminated")
def td_correct(c: Config, s: State) -> bool:
    return not s.terminationDetected or terminated(c, s)


@step_property("Quiescence", "[](terminated => []terminated): once every node is inactive, none is activated")
def quiescence(c: Config, s: State, t: State) -> bool:
    return not terminated(c, s) or terminated(c, t)


@liveness("Liveness", "terminated ~> terminationDetected")
def liveness_(c: Config):
    return leads_to(terminated, lambda c, s: s.terminationDetected)


SPEC = Spec(
    name="published-sync-termination-detection",
    title="SyncTerminationDetection",
    description="The abstract spec of termination detection on a ring with synchronous communication.",
    constants=Config,
    init=init,
    actions=[terminate, wakeup, detect_termination],
    invariants=[type_ok, td_correct],
    properties=[quiescence, liveness_],
    default_properties=["Quiescence", "Liveness"],
    fairness=[weak(detect_termination)],
)
