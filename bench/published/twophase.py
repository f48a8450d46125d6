"""TwoPhase: the Two-Phase Commit protocol (Gray and Lamport), ported from TLA+.

Source: github.com/tlaplus/Examples, specifications/transaction_commit/TwoPhase.tla
(MIT-licensed repository).  Model: TwoPhase.cfg, ``RM = {r1, r2, r3}``,
``INVARIANT TPTypeOK``, deadlock checked (TLC's default); its manifest records 288
distinct states, 1,146 states generated, depth 11.

How the TLA+ is mapped (nothing re-encoded: the model's constant, strings and
model values are as TLA+ writes them):

* ``RM`` is the model's constant as TwoPhase.cfg gives it, ``RM = {r1, r2, r3}``: a
  set of model values (``--const 'RM={r1, r2, r3}'``; a model value is the str of
  its name).
* ``rmState``, the function ``[RM -> {"working", ...}]``, is a ``modelcheck.Function``
  (its ``(rm, state)`` pairs in key order: ``rmState.at(rm)`` is ``rmState[rm]``,
  ``rmState.except_(rm, v)`` is ``[rmState EXCEPT ![rm] = v]``); ``tmState`` is a
  string as in TLA+.
* ``tmPrepared`` is a frozenset of RMs.
* ``msgs``, the set of every message ever sent, is a frozenset of message
  records.  A record is a NamedTuple whose first field is its ``type``, so records
  of different types never compare equal, as in TLA+: ``[type |-> "Prepared",
  rm |-> rm]`` is ``Prepared("Prepared", rm)`` and ``[type |-> "Commit"]`` /
  ``[type |-> "Abort"]`` are ``Decision("Commit")`` / ``Decision("Abort")``.
* ``TPNext`` is a disjunction of seven actions, five of them under ``\\E rm \\in RM``:
  each is a modelcheck action, the ``rm`` ones with an ``rm`` parameter.  An action
  whose successor equals its state (``RMRcvCommitMsg(rm)`` for a manager already
  committed, ``TMRcvPrepared(rm)`` for one already counted) returns it: TLC counts
  that successor among the states generated too.
* ``TPTypeOK`` is an invariant.  The refinement ``TPSpec => TC!TCSpec`` is not in
  the model (TwoPhase.cfg checks only ``TPTypeOK``); ``TCConsistent`` over
  ``rmState`` is offered as an extra invariant, not checked by default.
* ``SYMMETRY Permutations(RM)``, which TwoPhase.cfg does not declare, is
  ``Symmetry.over(lambda c: c.RM)`` (``--symmetry``): every state is built of strs,
  NamedTuples, frozensets and a Function, which the generic renaming renames exactly.
  With it and three RMs TLC 2.20 finds 80 distinct states (orbits), 318 generated,
  depth 11; so does this port.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Function, Spec, Symmetry, action, constant, invariant

RM_STATES = ("working", "prepared", "committed", "aborted")
TM_STATES = ("init", "committed", "aborted")


class Prepared(NamedTuple):
    """[type |-> "Prepared", rm |-> rm]"""
    type: str
    rm: str


class Decision(NamedTuple):
    """[type |-> "Commit"] or [type |-> "Abort"]"""
    type: str


COMMIT = Decision("Commit")
ABORT = Decision("Abort")


@attrs.frozen
class Config:
    RM: frozenset = constant(frozenset({"r1", "r2", "r3"}), "the resource managers (model values)")


class State(NamedTuple):
    rmState: Function
    tmState: str
    tmPrepared: frozenset
    msgs: frozenset


RM = Domain("rm", lambda c: sorted(c.RM), str)


def tp_init(c: Config) -> list[State]:
    """TPInit: every RM working, the TM in "init", nothing prepared, no message."""
    return [State(Function({rm: "working" for rm in c.RM}), "init", frozenset(), frozenset())]


@action("TMRcvPrepared", rm=RM)
def tm_rcv_prepared(c: Config, s: State, rm: str) -> State | None:
    """The TM receives a "Prepared" message from resource manager rm."""
    if s.tmState != "init":
        return None
    if Prepared("Prepared", rm) not in s.msgs:
        return None
    return s._replace(tmPrepared=s.tmPrepared | {rm})


@action("TMCommit")
def tm_commit(c: Config, s: State) -> State | None:
    """The TM commits once every RM has sent "Prepared"."""
    if s.tmState != "init":
        return None
    if s.tmPrepared != c.RM:
        return None
    return s._replace(tmState="committed", msgs=s.msgs | {COMMIT})


@action("TMAbort")
def tm_abort(c: Config, s: State) -> State | None:
    """The TM spontaneously aborts."""
    if s.tmState != "init":
        return None
    return s._replace(tmState="aborted", msgs=s.msgs | {ABORT})


@action("RMPrepare", rm=RM)
def rm_prepare(c: Config, s: State, rm: str) -> State | None:
    """Resource manager rm prepares and sends "Prepared"."""
    if s.rmState.at(rm) != "working":
        return None
    return s._replace(rmState=s.rmState.except_(rm, "prepared"), msgs=s.msgs | {Prepared("Prepared", rm)})


@action("RMChooseToAbort", rm=RM)
def rm_choose_to_abort(c: Config, s: State, rm: str) -> State | None:
    """Resource manager rm spontaneously aborts (sending nothing)."""
    if s.rmState.at(rm) != "working":
        return None
    return s._replace(rmState=s.rmState.except_(rm, "aborted"))


@action("RMRcvCommitMsg", rm=RM)
def rm_rcv_commit_msg(c: Config, s: State, rm: str) -> State | None:
    """Resource manager rm is told by the TM to commit."""
    if COMMIT not in s.msgs:
        return None
    return s._replace(rmState=s.rmState.except_(rm, "committed"))


@action("RMRcvAbortMsg", rm=RM)
def rm_rcv_abort_msg(c: Config, s: State, rm: str) -> State | None:
    """Resource manager rm is told by the TM to abort."""
    if ABORT not in s.msgs:
        return None
    return s._replace(rmState=s.rmState.except_(rm, "aborted"))


@invariant("TPTypeOK", "The type-correctness invariant.")
def tp_type_ok(c: Config, s: State) -> bool:
    def message_ok(m) -> bool:
        if m.type == "Prepared":
            return len(m) == 2 and m.rm in c.RM
        return len(m) == 1 and m.type in ("Commit", "Abort")

    return (s.rmState.domain() == c.RM and all(v in RM_STATES for v in s.rmState.values())
            and s.tmState in TM_STATES
            and s.tmPrepared <= c.RM
            and all(message_ok(m) for m in s.msgs))


@invariant("TCConsistent", "TC!TCConsistent: no RM aborted while another committed (not in TwoPhase.cfg).")
def tc_consistent(c: Config, s: State) -> bool:
    states = set(s.rmState.values())
    return not ("aborted" in states and "committed" in states)


def _show_msg(m) -> str:
    if m.type == "Prepared":
        return f"[type |-> \"Prepared\", rm |-> {m.rm}]"
    return f"[type |-> \"{m.type}\"]"


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
    symmetry=Symmetry.over(lambda c: c.RM),
    view=lambda c, s: {
        "rmState": dict(s.rmState.pairs),
        "tmState": s.tmState,
        "tmPrepared": sorted(s.tmPrepared),
        "msgs": sorted(_show_msg(m) for m in s.msgs),
    },
)
