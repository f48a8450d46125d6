"""EWD840: Dijkstra's termination detection on a ring (Dijkstra, Feijen, van Gasteren), ported from TLA+.

Source: github.com/tlaplus/Examples, specifications/ewd840/EWD840.tla (Stephan Merz;
MIT-licensed repository).  Model: EWD840.cfg, ``N = 3``, ``SPECIFICATION Spec``,
``INVARIANTS TypeOK TerminationDetection Inv``, ``PROPERTIES Liveness TDSpec``,
``CHECK_DEADLOCK FALSE``; its manifest records 302 distinct states, 2,001 states
generated, depth 10.

How the TLA+ is mapped:

* ``Node == 0 .. N-1`` are the ints 0 .. N-1; ``active`` is a tuple of bools,
  ``color`` a tuple of ints (``WHITE``/``BLACK``), ``tpos`` an int, ``tcolor`` an int.
* ``Init`` sets ``active``, ``color`` and ``tpos`` to any type-correct value: the
  initial states are every combination (2^N * 2^N * N of them, 192 for N = 3).
* ``Next == System \\/ Environment`` with ``System == InitiateProbe \\/ \\E i \\in
  Node \\ {0} : PassToken(i)`` and ``Environment == \\E i \\in Node : SendMsg(i) \\/
  Deactivate(i)``: four actions, named as in the TLA+.  TLC generates one
  successor per satisfied disjunct, also when the disjunction is an enabling
  condition, and one per witness of an ``\\E``: ``either(...)`` and ``exists(...)``
  say so where the TLA+ does (InitiateProbe's ``tcolor = "black" \\/ color[0] =
  "black"``, PassToken's three disjuncts, SendMsg's ``\\E j \\in Node \\ {i}``).
* Fairness ``WF_vars(System)``: ``weak(initiate_probe, pass_token)``, weak fairness
  of the disjunction of the two actions (all their instances).
* ``Liveness == terminated ~> terminationDetected`` is a liveness property;
  ``TypeOK``, ``TerminationDetection`` and ``Inv`` are invariants.
* ``TD == INSTANCE SyncTerminationDetection`` and ``TDSpec == TD!Spec``: the
  abstract spec is ported beside this one (``sync_termination_detection.py``);
  the instance substitutes the symbols of the same name, ``N``, ``active`` and
  ``terminationDetected``, this module's definition ``tpos = 0 /\\ tcolor =
  "white" /\\ color[0] = "white" /\\ ~ active[0]`` (``td_mapping``).
  ``--property TDSpec`` checks it (``refines``): every initial state maps to
  an initial state of SyncTerminationDetection (``TDSpec.Init``), every step
  to one of its steps or to stuttering (``TDSpec.Next``), and the mapped
  behaviours satisfy its ``WF_vars(DetectTermination)`` under EWD840's
  fairness (``TDSpec.Fairness``).  Like ``Liveness`` it is not checked by
  default (the model's PROPERTIES): name it.
  The non-properties ``TokenAlwaysBlack`` (an invariant)
  and ``NeverChangeColor`` (a step property) are offered, not checked by default.
"""

import os
from itertools import product
from typing import NamedTuple

import attrs

from modelcheck import (Domain, Spec, action, constant, either, exists, invariant, leads_to, liveness, refines,
                        step_property, weak)
from modelcheck.spec.loader import load_spec

WHITE, BLACK = 0, 1
COLORS = ("white", "black")


@attrs.frozen
class Config:
    N: int = constant(3, "number of nodes on the ring", minimum=1, maximum=6)


class State(NamedTuple):
    active: tuple[bool, ...]
    color: tuple[int, ...]
    tpos: int
    tcolor: int


NODE = Domain("i", lambda c: range(c.N), str)
NODE_NOT_0 = Domain("i", lambda c: range(1, c.N), str)


def init(c: Config) -> list[State]:
    """Init: any active, color and tpos; the token is black."""
    return [State(tuple(a), tuple(col), t, BLACK)
            for a in product((False, True), repeat=c.N)
            for col in product((WHITE, BLACK), repeat=c.N)
            for t in range(c.N)]


def _at(values: tuple, i: int, v) -> tuple:
    out = list(values)
    out[i] = v
    return tuple(out)


@action("InitiateProbe")
def initiate_probe(c: Config, s: State) -> list[State] | None:
    """Node 0 holding the token, with itself or the token black, passes a white token to node N-1."""
    if s.tpos != 0:
        return None
    t = State(s.active, _at(s.color, 0, WHITE), c.N - 1, WHITE)
    # /\ (tcolor = "black" \/ color[0] = "black")
    return either(t if s.tcolor == BLACK else None, t if s.color[0] == BLACK else None)


@action("PassToken", i=NODE_NOT_0)
def pass_token(c: Config, s: State, i: int) -> list[State] | None:
    """Node i passes the token to i-1 (staining it if i is black) and becomes white."""
    if s.tpos != i:
        return None
    t = State(s.active, _at(s.color, i, WHITE), i - 1, BLACK if s.color[i] == BLACK else s.tcolor)
    # /\ (~ active[i] \/ color[i] = "black" \/ tcolor = "black")
    return either(t if not s.active[i] else None, t if s.color[i] == BLACK else None,
                  t if s.tcolor == BLACK else None)


@action("SendMsg", i=NODE)
def send_msg(c: Config, s: State, i: int) -> list[State] | None:
    """An active node i activates some j # i; it turns black if j > i."""
    if not s.active[i]:
        return None
    # \E j \in Node \ {i}
    return exists((j for j in range(c.N) if j != i),
                  lambda j: s._replace(active=_at(s.active, j, True), color=_at(s.color, i, BLACK) if j > i else s.color))


@action("Deactivate", i=NODE)
def deactivate(c: Config, s: State, i: int) -> State | None:
    """An active node becomes inactive."""
    if not s.active[i]:
        return None
    return s._replace(active=_at(s.active, i, False))


@invariant("TypeOK", "active, color, tpos and tcolor are of their types.")
def type_ok(c: Config, s: State) -> bool:
    return (len(s.active) == c.N and len(s.color) == c.N and all(x in (WHITE, BLACK) for x in s.color)
            and 0 <= s.tpos < c.N and s.tcolor in (WHITE, BLACK))


def terminated(c: Config, s: State) -> bool:
    """terminated == \\A i \\in Node : ~ active[i]"""
    return not any(s.active)


def termination_detected(c: Config, s: State) -> bool:
    """tpos = 0 /\\ tcolor = "white" /\\ color[0] = "white" /\\ ~ active[0]"""
    return s.tpos == 0 and s.tcolor == WHITE and s.color[0] == WHITE and not s.active[0]


@invariant("TerminationDetection", "terminationDetected => terminated")
def termination_detection(c: Config, s: State) -> bool:
    return not termination_detected(c, s) or terminated(c, s)


@invariant("Inv", "Dijkstra's inductive invariant: P0 \\/ P1 \\/ P2.")
def inv(c: Config, s: State) -> bool:
    p0 = all(not s.active[i] for i in range(c.N) if s.tpos < i)
    p1 = any(s.color[j] == BLACK for j in range(s.tpos + 1))
    p2 = s.tcolor == BLACK
    return p0 or p1 or p2


@invariant("TokenAlwaysBlack", "A non-property: tcolor = \"black\" (violated; not checked by default).")
def token_always_black(c: Config, s: State) -> bool:
    return s.tcolor == BLACK


@liveness("Liveness", "terminated ~> terminationDetected")
def liveness_(c: Config):
    return leads_to(terminated, termination_detected)


@step_property("NeverChangeColor", "A non-property: [][UNCHANGED color]_vars (violated).")
def never_change_color(c: Config, s: State, t: State) -> bool:
    return s.color == t.color


# TD == INSTANCE SyncTerminationDetection (N <- N, active <- active, terminationDetected <- terminationDetected)
SYNC_TD_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sync_termination_detection.py")


def _sync_td_state() -> type:
    """SyncTerminationDetection's state type (its spec is not kept here: a module declares one Spec)."""
    td = load_spec(SYNC_TD_FILE)
    return type(td.init(td.constants_class(N=1))[0])


TDState = _sync_td_state()


def td_mapping(c: Config, s: State):
    """The state of SyncTerminationDetection that ``s`` implements: its ``active``, and ``terminationDetected``."""
    return TDState(s.active, termination_detected(c, s))


TD_SPEC = refines(load_spec(SYNC_TD_FILE), td_mapping, constants=lambda c: {"N": c.N}, name="TDSpec",
                  description="TDSpec == TD!Spec: EWD840 implements SyncTerminationDetection")

SPEC = Spec(
    name="published-ewd840",
    title="EWD840 (tlaplus/Examples ewd840)",
    description="Dijkstra's token-ring termination detection.",
    constants=Config,
    init=init,
    actions=[initiate_probe, pass_token, send_msg, deactivate],
    invariants=[type_ok, termination_detection, inv, token_always_black],
    default_invariants=["TypeOK", "TerminationDetection", "Inv"],
    properties=[liveness_, never_change_color, TD_SPEC],
    fairness=[weak(initiate_probe, pass_token)],  # WF_vars(System), System == InitiateProbe \/ \E i : PassToken(i)
    deadlock_expected=True,  # EWD840.cfg: CHECK_DEADLOCK FALSE
    view=lambda c, s: {"active": list(s.active), "color": [COLORS[x] for x in s.color],
                       "tpos": s.tpos, "tcolor": COLORS[s.tcolor]},
)
