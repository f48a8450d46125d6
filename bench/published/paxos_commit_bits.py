"""PaxosCommit with its message set held as one bit per possible message (modelcheck.MessageSpace).

This is :mod:`paxos_commit` (the faithful port of tlaplus/Examples'
PaxosCommit.tla) with one change of representation: ``msgs``, a frozenset of
message records there, is here held over the universe of every message the
model can send (every phase 1a/1b/2a/2b record the constants allow, and Commit
and Abort: :func:`all_messages`), one boolean each, through
:class:`modelcheck.MessageSpace`.  The two specs' states correspond one to one
and the actions are the same functions of them (each looks at the messages of
one type, in the same sorted order), so their counts are the same: the
manifest's 1,321,761 distinct states, 16,959,159 generated, depth 28.

Why: held as a frozenset, the set is one part of the state that nearly every
action reads whole, a new input to the memo tables at almost every state, and
they give way to the spec's own code (about TLC's speed).  Held per message,
each action's decision tree reads only the bits of the messages it looks at
(Phase1b(acc) the phase 1a bits and its acceptor's states) and a send writes
one bit: three times TLC's speed (docs/benchmarks.md; ``bench/vs_tlc.py`` runs
it as ``paxos-commit-bits``).
"""

from itertools import combinations
from typing import NamedTuple

import attrs

from modelcheck import Domain, MessageSpace, Spec, action, constant, invariant

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
    RM: int = constant(2, "number of resource managers", minimum=1, maximum=4)
    Acceptor: int = constant(3, "number of acceptors; Majority is every set of Acceptor // 2 + 1 of them",
                             minimum=1, maximum=5)
    MaxBallot: int = constant(1, "Ballot = 0 .. MaxBallot", minimum=0, maximum=3)


class State(NamedTuple):
    rmState: tuple[int, ...]
    aState: tuple[tuple[AState, ...], ...]
    msgs: tuple[bool, ...]


def all_messages(c: Config) -> list:
    """Every message the constants allow: the universe the message set is held over."""
    bals, rms, accs = range(c.MaxBallot + 1), range(c.RM), range(c.Acceptor)
    return ([Phase1a(PHASE1A, r, b) for r in rms for b in bals if b >= 1]
            + [Phase1b(PHASE1B, r, mb, b, v, a) for r in rms for mb in bals for b in range(-1, c.MaxBallot + 1)
               for v in (V_PREPARED, V_ABORTED, V_NONE) for a in accs]
            + [Phase2a(PHASE2A, r, b, v) for r in rms for b in bals for v in (V_PREPARED, V_ABORTED)]
            + [Phase2b(PHASE2B, a, r, b, v) for a in accs for r in rms for b in bals for v in (V_PREPARED, V_ABORTED)]
            + [COMMIT, ABORT])


MESSAGES = MessageSpace(all_messages)


RM = Domain("rm", lambda c: range(c.RM), lambda r: f"r{r + 1}")
ACC = Domain("acc", lambda c: range(c.Acceptor), lambda a: f"a{a + 1}")
BAL = Domain("bal", lambda c: range(1, c.MaxBallot + 1), str)


def majorities(c: Config) -> tuple[frozenset, ...]:
    return tuple(frozenset(ms) for ms in combinations(range(c.Acceptor), c.Acceptor // 2 + 1))


def pc_init(c: Config) -> list[State]:
    a = AState(0, -1, V_NONE)
    return [State((WORKING,) * c.RM, tuple((a,) * c.Acceptor for _ in range(c.RM)), MESSAGES.of(c).empty())]


def _at(values: tuple, i: int, v) -> tuple:
    out = list(values)
    out[i] = v
    return tuple(out)


def _send(c: Config, msgs: tuple, m) -> tuple:
    return MESSAGES.of(c).send(msgs, m)


def _has(c: Config, msgs: tuple, m) -> bool:
    return MESSAGES.of(c).has(msgs, m)


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
    p1b = list(MESSAGES.of(c).sent(msgs, Phase1b, ins=rm, mbal=bal))
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
    for m in MESSAGES.of(c).sent(s.msgs, Phase1a):  # \E m \in msgs with m.type = "phase1a", in sorted order
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
    for m in MESSAGES.of(c).sent(s.msgs, Phase2a):
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
            and len(s.msgs) == len(MESSAGES.of(c)))


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
