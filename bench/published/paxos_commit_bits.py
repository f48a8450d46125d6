"""PaxosCommit with its message set held as membership bits: a measurement, not a port to read.

This is :mod:`paxos_commit` (the faithful port of tlaplus/Examples'
PaxosCommit.tla) with one change of representation: ``msgs``, a frozenset of
message records there, is here a tuple of booleans, one per message the model
can ever send (the *universe*: every phase 1a/1b/2a/2b record the constants
allow, and Commit and Abort), ``msgs[i]`` whether message ``UNIVERSE[i]`` was
sent.  The two specs' states correspond one to one, the actions are the same
functions of them (each reads the messages of one type, in the same sorted
order), so their counts are the same: the manifest's 1,321,761 distinct
states, 16,959,159 generated, depth 28.

Why it exists: it measures what the memo tables could do for message-set
specs if a set-valued component were kept per element.  The tables split a
fixed-length tuple into one component per item, so here an action's decision
tree reads only the bits of the messages it looks at (Phase1b(acc) the two
phase 1a bits and its acceptor's states), where with a frozenset it reads the
whole set, a new input at nearly every state.  docs/benchmarks.md gives the
figures of both; bench/vs_tlc.py runs this as ``paxos-commit-bits``.
"""

from itertools import combinations
from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

WORKING, PREPARED, COMMITTED, ABORTED = range(4)
V_PREPARED, V_ABORTED, V_NONE = range(3)
PHASE1A, PHASE1B, PHASE2A, PHASE2B, COMMIT_MSG, ABORT_MSG = range(6)


class Phase1a(NamedTuple):
    type: int
    ins: int
    bal: int


class Phase1b(NamedTuple):
    type: int
    ins: int
    mbal: int
    bal: int
    val: int
    acc: int


class Phase2a(NamedTuple):
    type: int
    ins: int
    bal: int
    val: int


class Phase2b(NamedTuple):
    type: int
    acc: int
    ins: int
    bal: int
    val: int


class Decision(NamedTuple):
    type: int


COMMIT = Decision(COMMIT_MSG)
ABORT = Decision(ABORT_MSG)


class AState(NamedTuple):
    mbal: int
    bal: int
    val: int


@attrs.frozen
class Config:
    RM: int = constant(2, "number of resource managers", minimum=1, maximum=3)
    Acceptor: int = constant(3, "number of acceptors; Majority is every set of Acceptor // 2 + 1 of them",
                             minimum=1, maximum=3)
    MaxBallot: int = constant(1, "Ballot = 0 .. MaxBallot", minimum=0, maximum=2)


class State(NamedTuple):
    rmState: tuple[int, ...]
    aState: tuple[tuple[AState, ...], ...]
    msgs: tuple[bool, ...]


class Universe(NamedTuple):
    """Every message the constants allow, in sorted order within each type, and indexes into it."""
    messages: tuple
    index: dict
    phase1a: tuple  # indices of the phase 1a messages, sorted as the records sort
    phase2a: tuple
    phase1b_of: dict  # (ins, mbal) -> indices of those phase 1b messages


def _universe(n_rm: int, n_acc: int, max_bal: int) -> Universe:
    """The message universe of these constants."""
    bals, rms, accs = range(max_bal + 1), range(n_rm), range(n_acc)
    p1a = sorted(Phase1a(PHASE1A, r, b) for r in rms for b in bals if b >= 1)
    p1b = sorted(Phase1b(PHASE1B, r, mb, b, v, a) for r in rms for mb in bals for b in range(-1, max_bal + 1)
                 for v in (V_PREPARED, V_ABORTED, V_NONE) for a in accs)
    p2a = sorted(Phase2a(PHASE2A, r, b, v) for r in rms for b in bals for v in (V_PREPARED, V_ABORTED))
    p2b = sorted(Phase2b(PHASE2B, a, r, b, v) for a in accs for r in rms for b in bals
                 for v in (V_PREPARED, V_ABORTED))
    messages = tuple(p1a + p1b + p2a + p2b + [COMMIT, ABORT])
    index = {m: i for i, m in enumerate(messages)}
    by = {}
    for m in p1b:
        by.setdefault((m.ins, m.mbal), []).append(index[m])
    return Universe(messages, index, tuple(index[m] for m in p1a), tuple(index[m] for m in p2a),
                    {k: tuple(v) for k, v in by.items()})


UNIVERSES = {(r, a, b): _universe(r, a, b) for r in range(1, 4) for a in range(1, 4) for b in range(3)}
"""Every universe the constants' ranges allow, built at import (the actions only read them)."""


def universe(c: Config) -> Universe:
    """The message universe of ``c``."""
    return UNIVERSES[c.RM, c.Acceptor, c.MaxBallot]


RM = Domain("rm", lambda c: range(c.RM), lambda r: f"r{r + 1}")
ACC = Domain("acc", lambda c: range(c.Acceptor), lambda a: f"a{a + 1}")
BAL = Domain("bal", lambda c: range(1, c.MaxBallot + 1), str)


def majorities(c: Config) -> tuple[frozenset, ...]:
    return tuple(frozenset(ms) for ms in combinations(range(c.Acceptor), c.Acceptor // 2 + 1))


def pc_init(c: Config) -> list[State]:
    a = AState(0, -1, V_NONE)
    return [State((WORKING,) * c.RM, tuple((a,) * c.Acceptor for _ in range(c.RM)),
                  (False,) * len(universe(c).messages))]


def _at(values: tuple, i: int, v) -> tuple:
    out = list(values)
    out[i] = v
    return tuple(out)


def _send(c: Config, msgs: tuple, m) -> tuple:
    """``msgs \\cup {m}``."""
    return _at(msgs, universe(c).index[m], True)


def _has(c: Config, msgs: tuple, m) -> bool:
    return msgs[universe(c).index[m]]


@action("RMPrepare", rm=RM)
def rm_prepare(c: Config, s: State, rm: int) -> State | None:
    if s.rmState[rm] != WORKING:
        return None
    return s._replace(rmState=_at(s.rmState, rm, PREPARED), msgs=_send(c, s.msgs, Phase2a(PHASE2A, rm, 0, V_PREPARED)))


@action("RMChooseToAbort", rm=RM)
def rm_choose_to_abort(c: Config, s: State, rm: int) -> State | None:
    if s.rmState[rm] != WORKING:
        return None
    return s._replace(rmState=_at(s.rmState, rm, ABORTED), msgs=_send(c, s.msgs, Phase2a(PHASE2A, rm, 0, V_ABORTED)))


@action("RMRcvCommitMsg", rm=RM)
def rm_rcv_commit_msg(c: Config, s: State, rm: int) -> State | None:
    if not _has(c, s.msgs, COMMIT):
        return None
    return s._replace(rmState=_at(s.rmState, rm, COMMITTED))


@action("RMRcvAbortMsg", rm=RM)
def rm_rcv_abort_msg(c: Config, s: State, rm: int) -> State | None:
    if not _has(c, s.msgs, ABORT):
        return None
    return s._replace(rmState=_at(s.rmState, rm, ABORTED))


@action("Phase1a", bal=BAL, rm=RM)
def phase1a(c: Config, s: State, bal: int, rm: int) -> State:
    return s._replace(msgs=_send(c, s.msgs, Phase1a(PHASE1A, rm, bal)))


@action("Phase2a", bal=BAL, rm=RM)
def phase2a(c: Config, s: State, bal: int, rm: int) -> list[State] | None:
    msgs = s.msgs
    if _has(c, msgs, Phase2a(PHASE2A, rm, bal, V_PREPARED)) or _has(c, msgs, Phase2a(PHASE2A, rm, bal, V_ABORTED)):
        return None
    u = universe(c)
    p1b = [u.messages[i] for i in u.phase1b_of.get((rm, bal), ()) if msgs[i]]
    out = []
    for ms in majorities(c):
        mset = [m for m in p1b if m.acc in ms]
        witnesses = 1
        for ac in ms:
            witnesses *= sum(1 for m in mset if m.acc == ac)
        if not witnesses:
            continue
        maxbal = max((m.bal for m in mset), default=-1)
        val = V_ABORTED if maxbal == -1 else next(m.val for m in mset if m.bal == maxbal)
        out.extend([s._replace(msgs=_send(c, msgs, Phase2a(PHASE2A, rm, bal, val)))] * witnesses)
    return out or None


def decided(c: Config, msgs: tuple, rm: int, v: int) -> int:
    n = 0
    for b in range(c.MaxBallot + 1):
        for ms in majorities(c):
            if all(_has(c, msgs, Phase2b(PHASE2B, ac, rm, b, v)) for ac in ms):
                n += 1
    return n


@action("Decide")
def decide(c: Config, s: State) -> list[State] | None:
    msgs = s.msgs
    commits = 1
    for rm in range(c.RM):
        commits *= decided(c, msgs, rm, V_PREPARED)
        if not commits:
            break
    aborts = sum(decided(c, msgs, rm, V_ABORTED) for rm in range(c.RM))
    out = [s._replace(msgs=_send(c, msgs, COMMIT))] * commits + [s._replace(msgs=_send(c, msgs, ABORT))] * aborts
    return out or None


@action("Phase1b", acc=ACC)
def phase1b(c: Config, s: State, acc: int) -> list[State] | None:
    out = []
    u = universe(c)
    for i in u.phase1a:  # \E m \in msgs with m.type = "phase1a", in sorted order
        if not s.msgs[i]:
            continue
        m = u.messages[i]
        a = s.aState[m.ins][acc]
        if not a.mbal < m.bal:
            continue
        row = _at(s.aState[m.ins], acc, a._replace(mbal=m.bal))
        out.append(State(s.rmState, _at(s.aState, m.ins, row),
                         _send(c, s.msgs, Phase1b(PHASE1B, m.ins, m.bal, a.bal, a.val, acc))))
    return out or None


@action("Phase2b", acc=ACC)
def phase2b(c: Config, s: State, acc: int) -> list[State] | None:
    out = []
    u = universe(c)
    for i in u.phase2a:
        if not s.msgs[i]:
            continue
        m = u.messages[i]
        a = s.aState[m.ins][acc]
        if not a.mbal <= m.bal:
            continue
        row = _at(s.aState[m.ins], acc, AState(m.bal, m.bal, m.val))
        out.append(State(s.rmState, _at(s.aState, m.ins, row),
                         _send(c, s.msgs, Phase2b(PHASE2B, acc, m.ins, m.bal, m.val))))
    return out or None


@invariant("PCTypeOK", "The type-correctness invariant (every message is one of the universe's by construction).")
def pc_type_ok(c: Config, s: State) -> bool:
    return (len(s.rmState) == c.RM and all(0 <= x <= 3 for x in s.rmState)
            and len(s.aState) == c.RM
            and all(len(row) == c.Acceptor and all(0 <= a.mbal <= c.MaxBallot and -1 <= a.bal <= c.MaxBallot
                                                   and a.val in (V_PREPARED, V_ABORTED, V_NONE) for a in row)
                    for row in s.aState)
            and len(s.msgs) == len(universe(c).messages))


SPEC = Spec(
    name="published-paxos-commit-bits",
    title="PaxosCommit, its message set as membership bits (a measurement)",
    description="PaxosCommit with msgs held as one boolean per possible message: the memo tables read single bits.",
    constants=Config,
    init=pc_init,
    actions=[rm_prepare, rm_choose_to_abort, rm_rcv_commit_msg, rm_rcv_abort_msg, phase1a, phase2a, decide,
             phase1b, phase2b],
    invariants=[pc_type_ok],
    default_invariants=["PCTypeOK"],
    deadlock_expected=False,
)
