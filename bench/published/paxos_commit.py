"""PaxosCommit: Gray and Lamport's Paxos Commit algorithm, ported from TLA+.

Source: github.com/tlaplus/Examples, specifications/transaction_commit/PaxosCommit.tla
(Jim Gray and Leslie Lamport, "Consensus on Transaction Commit"; MIT-licensed
repository).  Model: PaxosCommit.cfg, ``RM = {r1, r2}``, ``Acceptor = {a1, a2, a3}``,
``Majority = {{a1, a2}, {a1, a3}, {a2, a3}}``, ``Ballot = {0, 1}``, ``INVARIANT
PCTypeOK``, deadlock checked (TLC's default); its manifest records 1,321,761
distinct states, 16,959,159 states generated, depth 28.

This is the suite's message-set spec: ``msgs`` grows to dozens of records, and
the acceptors' and leader's actions (Phase1b, Phase2b, Phase2a, Decide) read it
whole, so each distinct value of ``msgs`` is a new input to them.

How the TLA+ is mapped:

* ``RM``, ``Acceptor`` are counts (``r1`` .. and ``a1`` .. are 0 ..); ``Ballot`` is
  ``0 .. MaxBallot`` (the model's ``{0, 1}`` is ``MaxBallot = 1``); ``Majority`` is
  every set of ``Acceptor // 2 + 1`` acceptors, which for three acceptors is the
  model's three pairs.
* The strings "working", "prepared", "committed", "aborted" and "none" are ints.
* ``aState[ins][ac]`` is a tuple (by RM) of tuples (by acceptor) of ``AState``
  records ``(mbal, bal, val)``.
* ``msgs`` is a frozenset of message records, one NamedTuple class per message
  type, each with its ``type`` tag (an int) first so that records of different
  types never compare equal.  ``Send(m)`` is ``msgs | {m}``.
* ``Maximum(S)`` is ``max(S, default=-1)``.  ``CHOOSE m \\in mset : m.bal = maxbal``
  takes any such m: every phase 1b message of one instance and ballot carries
  the value of the one phase 2a message of that ballot (ballot 0's is sent by
  RMPrepare or RMChooseToAbort, never both), so the choice does not matter.
* States generated, as TLC counts them: one successor per witness of each
  ``\\E`` the action's evaluation enumerates, including the ``\\E`` inside a
  ``\\A`` or a defined operator: ``Phase1b(acc)`` and ``Phase2b(acc)`` give one
  per message ``m``; ``Phase2a(bal, rm)`` one per majority ``MS`` (times the
  witnesses of ``\\A ac \\in MS : \\E m \\in mset : m.acc = ac``, one each here);
  ``Decide``'s commit disjunct the product over the RMs of the witnesses ``(b, MS)``
  of ``Decided(rm, "prepared")``, its abort disjunct their sum over the RMs of
  ``Decided(rm, "aborted")``.  Actions that send a message already sent, or set
  a state already set, return their unchanged state: TLC counts it too.
* ``PCTypeOK`` is an invariant.  ``PCSpec => TC!TCSpec`` (refinement) is not in
  the model; ``TCConsistent`` over ``rmState`` is offered, not checked by default.
"""

from itertools import combinations
from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

WORKING, PREPARED, COMMITTED, ABORTED = range(4)
RM_STATES = ("working", "prepared", "committed", "aborted")
# Acceptor and message values: "prepared", "aborted", "none".
V_PREPARED, V_ABORTED, V_NONE = range(3)
VALUES = ("prepared", "aborted", "none")
# Message types.
PHASE1A, PHASE1B, PHASE2A, PHASE2B, COMMIT_MSG, ABORT_MSG = range(6)


class Phase1a(NamedTuple):
    """[type |-> "phase1a", ins |-> rm, bal |-> bal]"""
    type: int
    ins: int
    bal: int


class Phase1b(NamedTuple):
    """[type |-> "phase1b", ins, mbal, bal, val, acc]"""
    type: int
    ins: int
    mbal: int
    bal: int
    val: int
    acc: int


class Phase2a(NamedTuple):
    """[type |-> "phase2a", ins, bal, val]"""
    type: int
    ins: int
    bal: int
    val: int


class Phase2b(NamedTuple):
    """[type |-> "phase2b", acc, ins, bal, val]"""
    type: int
    acc: int
    ins: int
    bal: int
    val: int


class Decision(NamedTuple):
    """[type |-> "Commit"] or [type |-> "Abort"]"""
    type: int


COMMIT = Decision(COMMIT_MSG)
ABORT = Decision(ABORT_MSG)


class AState(NamedTuple):
    """An acceptor's state for one instance: [mbal, bal, val]."""
    mbal: int
    bal: int
    val: int


@attrs.frozen
class Config:
    RM: int = constant(2, "number of resource managers (RM = {r1, ..., rN})", minimum=1, maximum=4)
    Acceptor: int = constant(3, "number of acceptors; Majority is every set of Acceptor // 2 + 1 of them",
                             minimum=1, maximum=5)
    MaxBallot: int = constant(1, "Ballot = 0 .. MaxBallot", minimum=0, maximum=3)


class State(NamedTuple):
    rmState: tuple[int, ...]
    aState: tuple[tuple[AState, ...], ...]
    msgs: frozenset


RM = Domain("rm", lambda c: range(c.RM), lambda r: f"r{r + 1}")
ACC = Domain("acc", lambda c: range(c.Acceptor), lambda a: f"a{a + 1}")
BAL = Domain("bal", lambda c: range(1, c.MaxBallot + 1), str)  # Ballot \ {0}


def majorities(c: Config) -> tuple[frozenset, ...]:
    """Majority: every set of Acceptor // 2 + 1 acceptors (the model's {{a1, a2}, {a1, a3}, {a2, a3}})."""
    return tuple(frozenset(ms) for ms in combinations(range(c.Acceptor), c.Acceptor // 2 + 1))


def pc_init(c: Config) -> list[State]:
    """PCInit: RMs working, every acceptor [mbal |-> 0, bal |-> -1, val |-> "none"], no message."""
    a = AState(0, -1, V_NONE)
    return [State((WORKING,) * c.RM, tuple((a,) * c.Acceptor for _ in range(c.RM)), frozenset())]


def _at(values: tuple, i: int, v) -> tuple:
    out = list(values)
    out[i] = v
    return tuple(out)


# --- RM actions -------------------------------------------------------------

@action("RMPrepare", rm=RM)
def rm_prepare(c: Config, s: State, rm: int) -> State | None:
    """RM rm prepares: a phase 2a message for ballot 0 with value "prepared"."""
    if s.rmState[rm] != WORKING:
        return None
    return s._replace(rmState=_at(s.rmState, rm, PREPARED), msgs=s.msgs | {Phase2a(PHASE2A, rm, 0, V_PREPARED)})


@action("RMChooseToAbort", rm=RM)
def rm_choose_to_abort(c: Config, s: State, rm: int) -> State | None:
    """RM rm aborts spontaneously: a phase 2a message for ballot 0 with value "aborted"."""
    if s.rmState[rm] != WORKING:
        return None
    return s._replace(rmState=_at(s.rmState, rm, ABORTED), msgs=s.msgs | {Phase2a(PHASE2A, rm, 0, V_ABORTED)})


@action("RMRcvCommitMsg", rm=RM)
def rm_rcv_commit_msg(c: Config, s: State, rm: int) -> State | None:
    """RM rm is told to commit (a stuttering step if it already has)."""
    if COMMIT not in s.msgs:
        return None
    return s._replace(rmState=_at(s.rmState, rm, COMMITTED))


@action("RMRcvAbortMsg", rm=RM)
def rm_rcv_abort_msg(c: Config, s: State, rm: int) -> State | None:
    """RM rm is told to abort."""
    if ABORT not in s.msgs:
        return None
    return s._replace(rmState=_at(s.rmState, rm, ABORTED))


# --- Leader actions -----------------------------------------------------------

@action("Phase1a", bal=BAL, rm=RM)
def phase1a(c: Config, s: State, bal: int, rm: int) -> State:
    """A leader starts ballot bal of instance rm (always enabled; a duplicate is a stuttering step)."""
    return s._replace(msgs=s.msgs | {Phase1a(PHASE1A, rm, bal)})


@action("Phase2a", bal=BAL, rm=RM)
def phase2a(c: Config, s: State, bal: int, rm: int) -> list[State] | None:
    """A leader with phase 1b messages of ballot bal from a majority sends the phase 2a message they allow."""
    msgs = s.msgs
    # ~\E m \in msgs : m.type = "phase2a" /\ m.bal = bal /\ m.ins = rm
    if Phase2a(PHASE2A, rm, bal, V_PREPARED) in msgs or Phase2a(PHASE2A, rm, bal, V_ABORTED) in msgs:
        return None
    p1b = [m for m in msgs if m.type == PHASE1B and m.ins == rm and m.mbal == bal]
    out = []
    for ms in majorities(c):  # \E MS \in Majority
        mset = [m for m in p1b if m.acc in ms]
        # \A ac \in MS : \E m \in mset : m.acc = ac  (one successor per combination of witnesses)
        witnesses = 1
        for ac in ms:
            witnesses *= sum(1 for m in mset if m.acc == ac)
        if not witnesses:
            continue
        maxbal = max((m.bal for m in mset), default=-1)
        val = V_ABORTED if maxbal == -1 else next(m.val for m in mset if m.bal == maxbal)
        out.extend([s._replace(msgs=msgs | {Phase2a(PHASE2A, rm, bal, val)})] * witnesses)
    return out or None


def decided(c: Config, msgs: frozenset, rm: int, v: int) -> int:
    """The witnesses (b, MS) of Decided(rm, v): ballot b's phase 2b messages for v from every acceptor of MS."""
    n = 0
    for b in range(c.MaxBallot + 1):
        for ms in majorities(c):
            if all(Phase2b(PHASE2B, ac, rm, b, v) in msgs for ac in ms):
                n += 1
    return n


@action("Decide")
def decide(c: Config, s: State) -> list[State] | None:
    """A leader announces Commit when every instance chose "prepared", Abort when one chose "aborted"."""
    msgs = s.msgs
    commits = 1
    for rm in range(c.RM):  # \A rm \in RM : Decided(rm, "prepared")
        commits *= decided(c, msgs, rm, V_PREPARED)
        if not commits:
            break
    aborts = sum(decided(c, msgs, rm, V_ABORTED) for rm in range(c.RM))  # \E rm \in RM : Decided(rm, "aborted")
    out = [s._replace(msgs=msgs | {COMMIT})] * commits + [s._replace(msgs=msgs | {ABORT})] * aborts
    return out or None


# --- Acceptor actions -------------------------------------------------------------

@action("Phase1b", acc=ACC)
def phase1b(c: Config, s: State, acc: int) -> list[State] | None:
    """Acceptor acc answers a phase 1a message of a higher ballot with its last vote."""
    out = []
    # \E m \in msgs; sorted, so that equal states give their successors in one order (the memo tables
    # check it: a frozenset's iteration order depends on how it was built).
    for m in sorted(m for m in s.msgs if m.type == PHASE1A):
        a = s.aState[m.ins][acc]
        if not a.mbal < m.bal:
            continue
        row = _at(s.aState[m.ins], acc, a._replace(mbal=m.bal))
        out.append(State(s.rmState, _at(s.aState, m.ins, row),
                         s.msgs | {Phase1b(PHASE1B, m.ins, m.bal, a.bal, a.val, acc)}))
    return out or None


@action("Phase2b", acc=ACC)
def phase2b(c: Config, s: State, acc: int) -> list[State] | None:
    """Acceptor acc votes for a phase 2a message whose ballot is at least its mbal."""
    out = []
    for m in sorted(m for m in s.msgs if m.type == PHASE2A):  # \E m \in msgs, sorted as in Phase1b
        a = s.aState[m.ins][acc]
        if not a.mbal <= m.bal:
            continue
        row = _at(s.aState[m.ins], acc, AState(m.bal, m.bal, m.val))
        out.append(State(s.rmState, _at(s.aState, m.ins, row),
                         s.msgs | {Phase2b(PHASE2B, acc, m.ins, m.bal, m.val)}))
    return out or None


# --- Invariants -------------------------------------------------------------------

def _message_ok(c: Config, m) -> bool:
    rm_ok = range(c.RM)
    bal_ok = range(c.MaxBallot + 1)
    t = m.type
    if t == PHASE1A:
        return len(m) == 3 and m.ins in rm_ok and 1 <= m.bal <= c.MaxBallot
    if t == PHASE1B:
        return (len(m) == 6 and m.ins in rm_ok and m.mbal in bal_ok and -1 <= m.bal <= c.MaxBallot
                and m.val in (V_PREPARED, V_ABORTED, V_NONE) and 0 <= m.acc < c.Acceptor)
    if t == PHASE2A:
        return len(m) == 4 and m.ins in rm_ok and m.bal in bal_ok and m.val in (V_PREPARED, V_ABORTED)
    if t == PHASE2B:
        return (len(m) == 5 and 0 <= m.acc < c.Acceptor and m.ins in rm_ok and m.bal in bal_ok
                and m.val in (V_PREPARED, V_ABORTED))
    return len(m) == 1 and t in (COMMIT_MSG, ABORT_MSG)


@invariant("PCTypeOK", "The type-correctness invariant.")
def pc_type_ok(c: Config, s: State) -> bool:
    return (len(s.rmState) == c.RM and all(0 <= x <= 3 for x in s.rmState)
            and len(s.aState) == c.RM
            and all(len(row) == c.Acceptor and all(0 <= a.mbal <= c.MaxBallot and -1 <= a.bal <= c.MaxBallot
                                                   and a.val in (V_PREPARED, V_ABORTED, V_NONE) for a in row)
                    for row in s.aState)
            and all(_message_ok(c, m) for m in s.msgs))


@invariant("TCConsistent", "TC!TCConsistent: no RM aborted while another committed (not in PaxosCommit.cfg).")
def tc_consistent(c: Config, s: State) -> bool:
    return not (ABORTED in s.rmState and COMMITTED in s.rmState)


def _show_msg(m) -> str:
    t = m.type
    if t == PHASE1A:
        return f"phase1a(ins r{m.ins + 1}, bal {m.bal})"
    if t == PHASE1B:
        return f"phase1b(ins r{m.ins + 1}, mbal {m.mbal}, bal {m.bal}, val {VALUES[m.val]}, acc a{m.acc + 1})"
    if t == PHASE2A:
        return f"phase2a(ins r{m.ins + 1}, bal {m.bal}, val {VALUES[m.val]})"
    if t == PHASE2B:
        return f"phase2b(acc a{m.acc + 1}, ins r{m.ins + 1}, bal {m.bal}, val {VALUES[m.val]})"
    return "Commit" if t == COMMIT_MSG else "Abort"


def view(c: Config, s: State) -> dict:
    return {
        "rmState": {f"r{i + 1}": RM_STATES[v] for i, v in enumerate(s.rmState)},
        "aState": {f"r{i + 1}": {f"a{j + 1}": f"[mbal {a.mbal}, bal {a.bal}, val {VALUES[a.val]}]"
                                 for j, a in enumerate(row)} for i, row in enumerate(s.aState)},
        "msgs": sorted(_show_msg(m) for m in s.msgs),
    }


SPEC = Spec(
    name="published-paxos-commit",
    title="PaxosCommit (tlaplus/Examples transaction_commit)",
    description="Paxos Commit: one Paxos consensus instance per resource manager decides prepared or aborted.",
    constants=Config,
    init=pc_init,
    actions=[rm_prepare, rm_choose_to_abort, rm_rcv_commit_msg, rm_rcv_abort_msg, phase1a, phase2a, decide,
             phase1b, phase2b],
    invariants=[pc_type_ok, tc_consistent],
    default_invariants=["PCTypeOK"],
    deadlock_expected=False,  # PaxosCommit.cfg leaves CHECK_DEADLOCK at TLC's default, TRUE
    view=view,
)
