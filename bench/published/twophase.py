"""TwoPhase: the Two-Phase Commit protocol (Gray and Lamport), ported from TLA+.

Source: github.com/tlaplus/Examples, specifications/transaction_commit/TwoPhase.tla
(MIT-licensed repository).  Model: TwoPhase.cfg, ``RM = {r1, r2, r3}``,
``INVARIANT TPTypeOK``, deadlock checked (TLC's default); its manifest records 288
distinct states, 1,146 states generated, depth 11.

How the TLA+ is mapped:

* ``RM`` is a count (``r1`` .. ``rN`` are 0 .. N-1); the strings of ``rmState`` and
  ``tmState`` are small ints (``RM_STATES``, ``TM_STATES`` name them back).
* ``tmPrepared`` is a frozenset of RM indices.
* ``msgs``, the set of every message ever sent, is a frozenset of message
  records.  A record is a NamedTuple whose first field is its ``type`` (an int),
  so records of different types never compare equal, as in TLA+:
  ``[type |-> "Prepared", rm |-> rm]`` is ``Prepared(PREPARED_MSG, rm)`` and
  ``[type |-> "Commit"]`` / ``[type |-> "Abort"]`` are ``Decision(COMMIT_MSG)`` /
  ``Decision(ABORT_MSG)``.
* ``TPNext`` is a disjunction of seven actions, five of them under ``\\E rm \\in RM``:
  each is a modelcheck action, the ``rm`` ones with an ``rm`` parameter.  An action
  whose successor equals its state (``RMRcvCommitMsg(rm)`` for a manager already
  committed, ``TMRcvPrepared(rm)`` for one already counted) returns it: TLC counts
  that successor among the states generated too.
* ``TPTypeOK`` is an invariant.  The refinement ``TPSpec => TC!TCSpec`` is not in
  the model (TwoPhase.cfg checks only ``TPTypeOK``); ``TCConsistent`` over
  ``rmState`` is offered as an extra invariant, not checked by default.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

WORKING, PREPARED, COMMITTED, ABORTED = range(4)
RM_STATES = ("working", "prepared", "committed", "aborted")
TM_INIT, TM_COMMITTED, TM_ABORTED = range(3)
TM_STATES = ("init", "committed", "aborted")
PREPARED_MSG, COMMIT_MSG, ABORT_MSG = range(3)


class Prepared(NamedTuple):
    """[type |-> "Prepared", rm |-> rm]"""
    type: int
    rm: int


class Decision(NamedTuple):
    """[type |-> "Commit"] or [type |-> "Abort"]"""
    type: int


COMMIT = Decision(COMMIT_MSG)
ABORT = Decision(ABORT_MSG)


@attrs.frozen
class Config:
    RM: int = constant(3, "number of resource managers (TLA+: RM = {r1, ..., rN})", minimum=1, maximum=8)


class State(NamedTuple):
    rmState: tuple[int, ...]
    tmState: int
    tmPrepared: frozenset
    msgs: frozenset


RM = Domain("rm", lambda c: range(c.RM), lambda r: f"r{r + 1}")


def tp_init(c: Config) -> list[State]:
    """TPInit: every RM working, the TM in "init", nothing prepared, no message."""
    return [State((WORKING,) * c.RM, TM_INIT, frozenset(), frozenset())]


def _rm(st: tuple, rm: int, v: int) -> tuple:
    out = list(st)
    out[rm] = v
    return tuple(out)


@action("TMRcvPrepared", rm=RM)
def tm_rcv_prepared(c: Config, s: State, rm: int) -> State | None:
    """The TM receives a "Prepared" message from resource manager rm."""
    if s.tmState != TM_INIT:
        return None
    if Prepared(PREPARED_MSG, rm) not in s.msgs:
        return None
    return s._replace(tmPrepared=s.tmPrepared | {rm})


@action("TMCommit")
def tm_commit(c: Config, s: State) -> State | None:
    """The TM commits once every RM has sent "Prepared"."""
    if s.tmState != TM_INIT:
        return None
    if len(s.tmPrepared) != c.RM:  # tmPrepared = RM (it is a subset of RM)
        return None
    return s._replace(tmState=TM_COMMITTED, msgs=s.msgs | {COMMIT})


@action("TMAbort")
def tm_abort(c: Config, s: State) -> State | None:
    """The TM spontaneously aborts."""
    if s.tmState != TM_INIT:
        return None
    return s._replace(tmState=TM_ABORTED, msgs=s.msgs | {ABORT})


@action("RMPrepare", rm=RM)
def rm_prepare(c: Config, s: State, rm: int) -> State | None:
    """Resource manager rm prepares and sends "Prepared"."""
    if s.rmState[rm] != WORKING:
        return None
    return s._replace(rmState=_rm(s.rmState, rm, PREPARED), msgs=s.msgs | {Prepared(PREPARED_MSG, rm)})


@action("RMChooseToAbort", rm=RM)
def rm_choose_to_abort(c: Config, s: State, rm: int) -> State | None:
    """Resource manager rm spontaneously aborts (sending nothing)."""
    if s.rmState[rm] != WORKING:
        return None
    return s._replace(rmState=_rm(s.rmState, rm, ABORTED))


@action("RMRcvCommitMsg", rm=RM)
def rm_rcv_commit_msg(c: Config, s: State, rm: int) -> State | None:
    """Resource manager rm is told by the TM to commit."""
    if COMMIT not in s.msgs:
        return None
    return s._replace(rmState=_rm(s.rmState, rm, COMMITTED))


@action("RMRcvAbortMsg", rm=RM)
def rm_rcv_abort_msg(c: Config, s: State, rm: int) -> State | None:
    """Resource manager rm is told by the TM to abort."""
    if ABORT not in s.msgs:
        return None
    return s._replace(rmState=_rm(s.rmState, rm, ABORTED))


@invariant("TPTypeOK", "The type-correctness invariant.")
def tp_type_ok(c: Config, s: State) -> bool:
    def message_ok(m) -> bool:
        if len(m) == 2:
            return m[0] == PREPARED_MSG and 0 <= m[1] < c.RM
        return len(m) == 1 and m[0] in (COMMIT_MSG, ABORT_MSG)

    return (len(s.rmState) == c.RM and all(0 <= x <= 3 for x in s.rmState)
            and 0 <= s.tmState <= 2
            and all(0 <= r < c.RM for r in s.tmPrepared)
            and all(message_ok(m) for m in s.msgs))


@invariant("TCConsistent", "TC!TCConsistent: no RM aborted while another committed (not in TwoPhase.cfg).")
def tc_consistent(c: Config, s: State) -> bool:
    return not (ABORTED in s.rmState and COMMITTED in s.rmState)


def _show_msg(m) -> str:
    if m[0] == PREPARED_MSG:
        return f"[type |-> \"Prepared\", rm |-> r{m[1] + 1}]"
    return "[type |-> \"Commit\"]" if m[0] == COMMIT_MSG else "[type |-> \"Abort\"]"


SPEC = Spec(
    name="published-twophase",
    title="TwoPhase (tlaplus/Examples transaction_commit)",
    description="Two-phase commit: RMs send Prepared, the TM commits when all have, or aborts.",
    constants=Config,
    init=tp_init,
    actions=[tm_commit, tm_abort, tm_rcv_prepared, rm_prepare, rm_choose_to_abort, rm_rcv_commit_msg,
             rm_rcv_abort_msg],
    invariants=[tp_type_ok, tc_consistent],
    default_invariants=["TPTypeOK"],
    deadlock_expected=False,  # TwoPhase.cfg leaves CHECK_DEADLOCK at TLC's default, TRUE
    view=lambda c, s: {
        "rmState": {f"r{i + 1}": RM_STATES[v] for i, v in enumerate(s.rmState)},
        "tmState": TM_STATES[s.tmState],
        "tmPrepared": sorted(f"r{r + 1}" for r in s.tmPrepared),
        "msgs": sorted(_show_msg(m) for m in s.msgs),
    },
)
