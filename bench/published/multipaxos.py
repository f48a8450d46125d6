"""MultiPaxos-SMR: MultiPaxos replicating a single-key store, with linearizability checked (Guanzhou Hu).

Source: github.com/tlaplus/Examples, specifications/MultiPaxos-SMR/MultiPaxos.tla (the
PlusCal algorithm and its TLA+ translation) and MultiPaxos_MC.tla (``TypeOK``,
``Linearizability``, ``SymmetricPerms``, ``ConstMaxBallot == 2``); MIT-licensed
repository.  Model: MultiPaxos_MC_small.cfg, ``Replicas = {s1, s2, s3}``, ``Writes =
{w1}``, ``Reads = {r1}``, ``MaxBallot = 2``, ``SYMMETRY SymmetricPerms`` (permutations
of the replicas; the singleton Writes and Reads have none), ``INVARIANTS TypeOK
Linearizability``, ``CHECK_DEADLOCK TRUE``; its manifest records 343,796 distinct
states, 736,012 states generated, depth 28.  That model's counts are reached with
``--symmetry`` (TLC's SYMMETRY); without it the same model has every replica
ordering of each state (the suite runs both: modelcheck's memo tables do not
run under ``--symmetry``).

How the TLA+ is mapped:

* ``Replicas`` is a count (``s1`` .. are 0 ..); ``Writes`` and ``Reads`` are counts of
  commands: ``w1`` .. ``wW`` are 0 .. W-1 and ``r1`` .. ``rR`` are W .. W+R-1.  "nil"
  (no command, no value) and "none" (no leader) are -1.  ``Slots == 1 .. NumCommands``
  keep their numbers in messages and ``commitUpTo``; ``insts`` is a tuple indexed by
  slot - 1.  Statuses "Empty", "Preparing", "Accepting", "Committed" are 0..3 and
  ``pc``'s "rloop", "Done" are 0, 1.
* ``node[r]`` is a ``Node`` record with ``Inst`` and ``Voted`` records inside, as
  ``NodeStates``/``InstStates`` declare; ``pending`` and ``observed`` are tuples;
  ``msgs`` is a frozenset of message records and ``observed`` holds event records,
  one NamedTuple class per record type with its ``type`` tag first.
* ``InitPending`` (a CHOOSE of an ordering of Writes, then of Reads) is
  ``<<w1, .., wW, r1, .., rR>>``: any ordering is a renaming of the commands.
* The translated ``rloop(self)`` is ``pc[self] = "rloop" /\\ IF ~terminated THEN
  (seven disjuncts, the PlusCal macros) ELSE pc' = "Done"``.  Each macro is an
  action named after it, with ``self`` as its parameter and the guard ``pc[self] =
  "rloop" /\\ ~terminated``; the ELSE branch is the action ``rloopDone``; and
  ``Terminating`` is the stuttering step once every replica is done.
* States generated, as TLC counts them: one successor per witness of each ``\\E``
  the evaluation of the action enumerates: ``b`` in BecomeLeader, ``m`` in
  HandlePrepare, HandleAccept and HandleCommitNotice, and the ``\\E s \\in Slots :
  node[self].insts[s].status = "Empty"`` of TakeNewRequest's enabling condition
  (one identical successor per empty slot).
* ``PeakVotedCmd``'s CHOOSE takes the vote of the highest ballot: one leader owns a
  ballot and sends one Accept per slot in it, so votes of one ballot and slot
  agree and the choice is unique.
"""

from itertools import product
from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, Symmetry, action, constant, invariant

NIL = -1
EMPTY, PREPARING, ACCEPTING, COMMITTED = range(4)
STATUSES = ("Empty", "Preparing", "Accepting", "Committed")
RLOOP, DONE = 0, 1
PREPARE, PREPARE_REPLY, ACCEPT, ACCEPT_REPLY, COMMIT_NOTICE = range(5)
REQ, ACK = range(2)

ITERATION_NOTE = """Why the actions with one successor per message iterate over sorted messages: the
order of a frozenset's iteration depends on how it was built, and an action's successors must come
in the same order from equal states (the memo tables check it); the successors are the same."""


class Voted(NamedTuple):
    """[bal, cmd]: the last vote cast in a slot."""
    bal: int
    cmd: int


class Inst(NamedTuple):
    """InstStates: [status, cmd, voted]."""
    status: int
    cmd: int
    voted: Voted


class Node(NamedTuple):
    """NodeStates: [leader, kvalue, commitUpTo, balPrepared, balMaxKnown, insts]."""
    leader: int
    kvalue: int
    commitUpTo: int
    balPrepared: int
    balMaxKnown: int
    insts: tuple[Inst, ...]


class PrepareMsg(NamedTuple):
    type: int
    src: int
    bal: int


class PrepareReplyMsg(NamedTuple):
    type: int
    src: int
    bal: int
    votes: tuple[Voted, ...]


class AcceptMsg(NamedTuple):
    type: int
    src: int
    bal: int
    slot: int
    cmd: int


class AcceptReplyMsg(NamedTuple):
    type: int
    src: int
    bal: int
    slot: int


class CommitNoticeMsg(NamedTuple):
    type: int
    upto: int


class ReqEvent(NamedTuple):
    type: int
    cmd: int


class AckEvent(NamedTuple):
    type: int
    cmd: int
    val: int


@attrs.frozen
class Config:
    Replicas: int = constant(3, "number of server nodes (Replicas = {s1, ..., sN})", minimum=1, maximum=5)
    Writes: int = constant(1, "number of write commands (Writes = {w1, ...})", minimum=1, maximum=3)
    Reads: int = constant(1, "number of read commands (Reads = {r1, ...})", minimum=0, maximum=3)
    MaxBallot: int = constant(2, "the largest ballot a leader may pick (MaxBallot <- ConstMaxBallot)",
                              minimum=2, maximum=4)


class State(NamedTuple):
    msgs: frozenset
    node: tuple[Node, ...]
    pending: tuple[int, ...]
    observed: tuple
    pc: tuple[int, ...]


REPLICA = Domain("self", lambda c: range(c.Replicas), lambda r: f"s{r + 1}")


def num_commands(c: Config) -> int:
    return c.Writes + c.Reads


def majority_num(c: Config) -> int:
    return c.Replicas // 2 + 1


def show_cmd(c: Config, x: int) -> str:
    if x == NIL:
        return "nil"
    return f"w{x + 1}" if x < c.Writes else f"r{x - c.Writes + 1}"


def init(c: Config) -> list[State]:
    n = num_commands(c)
    null_node = Node(NIL, NIL, 0, 0, 0, (Inst(EMPTY, NIL, Voted(0, NIL)),) * n)
    return [State(frozenset(), (null_node,) * c.Replicas, tuple(range(n)), (), (RLOOP,) * c.Replicas)]


def terminated(c: Config, s: State) -> bool:
    """Len(pending) = 0 /\\ Cardinality(reqsMade) = NumCommands /\\ Cardinality(acksRecv) = NumCommands"""
    if s.pending:
        return False
    n = num_commands(c)
    reqs = {e.cmd for e in s.observed if e.type == REQ}
    acks = {e.cmd for e in s.observed if e.type == ACK}
    return len(reqs) == n and len(acks) == n


def _at(values: tuple, i: int, v) -> tuple:
    out = list(values)
    out[i] = v
    return tuple(out)


def _reset_accepting(insts: tuple) -> tuple:
    """[s \\in Slots |-> [insts[s] EXCEPT !.status = IF @ = "Accepting" THEN "Preparing" ELSE @]]"""
    return tuple(i._replace(status=PREPARING) if i.status == ACCEPTING else i for i in insts)


def _votes(n: Node) -> tuple:
    """VotesByNode(n) == [s \\in Slots |-> n.insts[s].voted]"""
    return tuple(i.voted for i in n.insts)


def _looping(c: Config, s: State, r: int) -> bool:
    """pc[self] = "rloop" /\\ ~terminated: the condition of rloop's THEN branch."""
    return s.pc[r] == RLOOP and not terminated(c, s)


@action("BecomeLeader", self=REPLICA)
def become_leader(c: Config, s: State, self: int) -> list[State] | None:
    """A replica that is not the leader picks a fresh ballot above all it knows and broadcasts Prepare."""
    if not _looping(c, s, self):
        return None
    n = s.node[self]
    if n.leader == self:
        return None
    out = []
    for b in range(1, c.MaxBallot + 1):  # \E b \in Ballots
        if not b > n.balMaxKnown:
            continue
        if any(m.type == PREPARE and m.bal == b for m in s.msgs):
            continue
        nn = n._replace(leader=self, balPrepared=0, balMaxKnown=b, insts=_reset_accepting(n.insts))
        out.append(s._replace(node=_at(s.node, self, nn),
                              msgs=s.msgs | {PrepareMsg(PREPARE, self, b),
                                             PrepareReplyMsg(PREPARE_REPLY, self, b, _votes(nn))}))
    return out or None


@action("HandlePrepare", self=REPLICA)
def handle_prepare(c: Config, s: State, self: int) -> list[State] | None:
    """A replica answers a Prepare of a higher ballot with its votes."""
    if not _looping(c, s, self):
        return None
    n = s.node[self]
    out = []
    for m in sorted(m for m in s.msgs if m.type == PREPARE):  # \E m \in msgs (see ITERATION_NOTE)
        if not m.bal > n.balMaxKnown:
            continue
        nn = n._replace(leader=m.src, balMaxKnown=m.bal, insts=_reset_accepting(n.insts))
        out.append(s._replace(node=_at(s.node, self, nn),
                              msgs=s.msgs | {PrepareReplyMsg(PREPARE_REPLY, self, m.bal, _votes(nn))}))
    return out or None


def peak_voted_cmd(prs: list, slot: int) -> int:
    """PeakVotedCmd(prs, s): the command of the highest-ballot vote in slot s among the replies, or nil."""
    best = max((pr.votes[slot] for pr in prs), key=lambda v: v.bal)
    return NIL if best.bal == 0 else best.cmd


@action("HandlePrepareReplies", self=REPLICA)
def handle_prepare_replies(c: Config, s: State, self: int) -> State | None:
    """A leader with PrepareReplies from a majority marks its ballot prepared and re-sends the peak votes."""
    if not _looping(c, s, self):
        return None
    n = s.node[self]
    if n.leader != self or n.balPrepared != 0:
        return None
    prs = [m for m in s.msgs if m.type == PREPARE_REPLY and m.bal == n.balMaxKnown]
    if len(prs) < majority_num(c):
        return None
    insts = []
    for k, inst in enumerate(n.insts):
        peak = peak_voted_cmd(prs, k)
        status = ACCEPTING if inst.status == PREPARING or (inst.status == EMPTY and peak != NIL) else inst.status
        insts.append(inst._replace(status=status, cmd=peak))
    nn = n._replace(balPrepared=n.balMaxKnown, insts=tuple(insts))
    sent = {AcceptMsg(ACCEPT, self, nn.balPrepared, k + 1, inst.cmd)
            for k, inst in enumerate(nn.insts) if inst.status == ACCEPTING}
    return s._replace(node=_at(s.node, self, nn), msgs=s.msgs | sent)


def unseen_pending(s: State, insts: tuple) -> tuple:
    """UnseenPending(insts): the pending commands in no slot of insts."""
    seen = {i.cmd for i in insts}
    return tuple(x for x in s.pending if x not in seen)


@action("TakeNewRequest", self=REPLICA)
def take_new_request(c: Config, s: State, self: int) -> list[State] | None:
    """A prepared leader puts the next unseen pending request in its first empty slot and broadcasts Accept."""
    if not _looping(c, s, self):
        return None
    n = s.node[self]
    if n.leader != self or n.balPrepared != n.balMaxKnown:
        return None
    empties = sum(1 for i in n.insts if i.status == EMPTY)  # \E s \in Slots : ... = "Empty": one per witness
    if not empties:
        return None
    unseen = unseen_pending(s, n.insts)
    if not unseen:
        return None
    k = next(k for k, i in enumerate(n.insts) if i.status == EMPTY)  # FirstEmptySlot, 0-based
    cmd = unseen[0]
    nn = n._replace(insts=_at(n.insts, k, Inst(ACCEPTING, cmd, Voted(n.balPrepared, cmd))))
    req = ReqEvent(REQ, cmd)
    t = s._replace(node=_at(s.node, self, nn),
                   msgs=s.msgs | {AcceptMsg(ACCEPT, self, n.balPrepared, k + 1, cmd),
                                  AcceptReplyMsg(ACCEPT_REPLY, self, n.balPrepared, k + 1)},
                   observed=s.observed if req in s.observed else s.observed + (req,))
    return [t] * empties


@action("HandleAccept", self=REPLICA)
def handle_accept(c: Config, s: State, self: int) -> list[State] | None:
    """A replica votes for an Accept of a ballot at least its own, newer than its vote in that slot."""
    if not _looping(c, s, self):
        return None
    n = s.node[self]
    out = []
    for m in sorted(m for m in s.msgs if m.type == ACCEPT):  # \E m \in msgs (see ITERATION_NOTE)
        if not m.bal >= n.balMaxKnown or not m.bal > n.insts[m.slot - 1].voted.bal:
            continue
        nn = n._replace(leader=m.src, balMaxKnown=m.bal,
                        insts=_at(n.insts, m.slot - 1, Inst(ACCEPTING, m.cmd, Voted(m.bal, m.cmd))))
        out.append(s._replace(node=_at(s.node, self, nn),
                              msgs=s.msgs | {AcceptReplyMsg(ACCEPT_REPLY, self, m.bal, m.slot)}))
    return out or None


@action("HandleAcceptReplies", self=REPLICA)
def handle_accept_replies(c: Config, s: State, self: int) -> State | None:
    """A leader with AcceptReplies from a majority for its next slot commits it and acknowledges the client."""
    if not _looping(c, s, self):
        return None
    n = s.node[self]
    if n.leader != self or n.balPrepared != n.balMaxKnown or n.commitUpTo >= num_commands(c):
        return None
    if n.insts[n.commitUpTo].status != ACCEPTING:  # insts[commitUpTo + 1], 1-based
        return None
    slot = n.commitUpTo + 1
    cmd = n.insts[slot - 1].cmd
    v = n.kvalue
    ars = [m for m in s.msgs if m.type == ACCEPT_REPLY and m.slot == slot and m.bal == n.balPrepared]
    if len(ars) < majority_num(c):
        return None
    nn = n._replace(insts=_at(n.insts, slot - 1, n.insts[slot - 1]._replace(status=COMMITTED)),
                    commitUpTo=slot, kvalue=cmd if 0 <= cmd < c.Writes else n.kvalue)
    ack = AckEvent(ACK, cmd, v)
    return s._replace(node=_at(s.node, self, nn),
                      observed=s.observed if ack in s.observed else s.observed + (ack,),
                      pending=tuple(x for x in s.pending if x != cmd),
                      msgs=s.msgs | {CommitNoticeMsg(COMMIT_NOTICE, slot)})


@action("HandleCommitNotice", self=REPLICA)
def handle_commit_notice(c: Config, s: State, self: int) -> list[State] | None:
    """A follower learns from a CommitNotice that its next slot is committed and applies it."""
    if not _looping(c, s, self):
        return None
    n = s.node[self]
    if n.leader == self or n.commitUpTo >= num_commands(c):
        return None
    if n.insts[n.commitUpTo].status != ACCEPTING:
        return None
    slot = n.commitUpTo + 1
    cmd = n.insts[slot - 1].cmd
    out = []
    for m in sorted(m for m in s.msgs if m.type == COMMIT_NOTICE):  # \E m \in msgs (see ITERATION_NOTE)
        if m.upto != slot:
            continue
        nn = n._replace(insts=_at(n.insts, slot - 1, n.insts[slot - 1]._replace(status=COMMITTED)),
                        commitUpTo=slot, kvalue=cmd if 0 <= cmd < c.Writes else n.kvalue)
        out.append(s._replace(node=_at(s.node, self, nn)))
    return out or None


@action("rloopDone", self=REPLICA)
def rloop_done(c: Config, s: State, self: int) -> State | None:
    """rloop's ELSE branch: once terminated, the replica's loop ends (pc' = "Done")."""
    if s.pc[self] != RLOOP or not terminated(c, s):
        return None
    return s._replace(pc=_at(s.pc, self, DONE))


@action("Terminating")
def terminating(c: Config, s: State) -> State | None:
    """Every replica is done: stutter forever (no deadlock)."""
    if any(p != DONE for p in s.pc):
        return None
    return s


# --- invariants -------------------------------------------------------------------

def _message_ok(c: Config, m) -> bool:
    nr, nc, mb = c.Replicas, num_commands(c), c.MaxBallot
    t = m.type
    if t == PREPARE:
        return len(m) == 3 and 0 <= m.src < nr and 1 <= m.bal <= mb
    if t == PREPARE_REPLY:
        return (len(m) == 4 and 0 <= m.src < nr and 1 <= m.bal <= mb and len(m.votes) == nc
                and all(0 <= v.bal <= mb and NIL <= v.cmd < nc for v in m.votes))
    if t == ACCEPT:
        return len(m) == 5 and 0 <= m.src < nr and 1 <= m.bal <= mb and 1 <= m.slot <= nc and 0 <= m.cmd < nc
    if t == ACCEPT_REPLY:
        return len(m) == 4 and 0 <= m.src < nr and 1 <= m.bal <= mb and 1 <= m.slot <= nc
    return t == COMMIT_NOTICE and len(m) == 2 and 1 <= m.upto <= nc


def _node_ok(c: Config, n: Node) -> bool:
    nc, mb = num_commands(c), c.MaxBallot
    return (NIL <= n.leader < c.Replicas and NIL <= n.kvalue < c.Writes and 0 <= n.commitUpTo <= nc
            and 0 <= n.balPrepared <= mb and 0 <= n.balMaxKnown <= mb and len(n.insts) == nc
            and all(EMPTY <= i.status <= COMMITTED and NIL <= i.cmd < nc
                    and 0 <= i.voted.bal <= mb and NIL <= i.voted.cmd < nc for i in n.insts))


@invariant("TypeOK", "MultiPaxos_MC's TypeOK: messages, node states, pending and observed are well formed.")
def type_ok(c: Config, s: State) -> bool:
    nc = num_commands(c)
    reqs = {e.cmd for e in s.observed if e.type == REQ}
    acks = {e.cmd for e in s.observed if e.type == ACK}
    events_ok = all((e.type == REQ and len(e) == 2 and 0 <= e.cmd < nc)
                    or (e.type == ACK and len(e) == 3 and 0 <= e.cmd < nc and NIL <= e.val < c.Writes)
                    for e in s.observed)
    return (all(_message_ok(c, m) for m in s.msgs)
            and all(_node_ok(c, n) for n in s.node)
            and len(s.pending) <= nc and len(set(s.pending)) == len(s.pending)
            and all(0 <= x < nc for x in s.pending)
            and len(s.observed) <= 2 * nc and len(set(s.observed)) == len(s.observed)
            and len(reqs) >= len(acks) and events_ok)


@invariant("Linearizability", "Once terminated, some order of the commands explains every result "
                              "and respects real time.")
def linearizability(c: Config, s: State) -> bool:
    if not terminated(c, s):
        return True
    nc = num_commands(c)
    obs = s.observed
    req_pos = {e.cmd: i for i, e in enumerate(obs) if e.type == REQ}   # ReqPosOfCmd (0-based)
    ack_pos = {e.cmd: i for i, e in enumerate(obs) if e.type == ACK}   # AckPosOfCmd
    result = {e.cmd: e.val for e in obs if e.type == ACK}              # ResultOfCmd
    for order in product(range(nc), repeat=nc):  # \E order \in [1..NumCommands -> Commands]
        if set(order) != set(range(nc)):
            continue
        linear = True
        for j in range(nc):  # ResultOfCmd(order[j]) = LastWriteBefore(order, j)
            last = NIL
            for k in range(j - 1, -1, -1):
                if order[k] < c.Writes:
                    last = order[k]
                    break
            if result[order[j]] != last:
                linear = False
                break
        if not linear:
            continue
        idx = {cmd: j for j, cmd in enumerate(order)}
        if all(not ack_pos[c1] < req_pos[c2] or idx[c1] < idx[c2] for c1 in range(nc) for c2 in range(nc)):
            return True
    return False


# --- symmetry and view ------------------------------------------------------------

def _rename_msg(m, perm):
    if m.type == COMMIT_NOTICE:
        return m
    return m._replace(src=perm[m.src])


def permute(c: Config, s: State, perm: tuple[int, ...]) -> State:
    """Rename replica i to perm[i] everywhere: node and pc indices, leaders, message sources."""
    node = [None] * c.Replicas
    pc = [None] * c.Replicas
    for r in range(c.Replicas):
        n = s.node[r]
        node[perm[r]] = n if n.leader == NIL else n._replace(leader=perm[n.leader])
        pc[perm[r]] = s.pc[r]
    return s._replace(node=tuple(node), pc=tuple(pc), msgs=frozenset(_rename_msg(m, perm) for m in s.msgs))


def view(c: Config, s: State) -> dict:
    cmd = lambda x: show_cmd(c, x)  # noqa: E731
    rep = lambda r: "none" if r == NIL else f"s{r + 1}"  # noqa: E731

    def msg(m) -> str:
        if m.type == PREPARE:
            return f"Prepare(src {rep(m.src)}, bal {m.bal})"
        if m.type == PREPARE_REPLY:
            votes = ", ".join(f"{v.bal}:{cmd(v.cmd)}" for v in m.votes)
            return f"PrepareReply(src {rep(m.src)}, bal {m.bal}, votes <<{votes}>>)"
        if m.type == ACCEPT:
            return f"Accept(src {rep(m.src)}, bal {m.bal}, slot {m.slot}, cmd {cmd(m.cmd)})"
        if m.type == ACCEPT_REPLY:
            return f"AcceptReply(src {rep(m.src)}, bal {m.bal}, slot {m.slot})"
        return f"CommitNotice(upto {m.upto})"

    return {
        "msgs": sorted(msg(m) for m in s.msgs),
        "node": {f"s{r + 1}": {"leader": rep(n.leader), "kvalue": cmd(n.kvalue), "commitUpTo": n.commitUpTo,
                               "balPrepared": n.balPrepared, "balMaxKnown": n.balMaxKnown,
                               "insts": [f"{STATUSES[i.status]} {cmd(i.cmd)} voted {i.voted.bal}:{cmd(i.voted.cmd)}"
                                         for i in n.insts]}
                 for r, n in enumerate(s.node)},
        "pending": [cmd(x) for x in s.pending],
        "observed": [f"Req {cmd(e.cmd)}" if e.type == REQ else f"Ack {cmd(e.cmd)} -> {cmd(e.val)}"
                     for e in s.observed],
        "pc": {f"s{r + 1}": ("rloop", "Done")[p] for r, p in enumerate(s.pc)},
    }


SPEC = Spec(
    name="published-multipaxos",
    title="MultiPaxos-SMR (tlaplus/Examples MultiPaxos-SMR)",
    description="MultiPaxos log replication of writes and reads on one key; linearizability of what clients observe.",
    constants=Config,
    init=init,
    actions=[become_leader, handle_prepare, handle_prepare_replies, take_new_request, handle_accept,
             handle_accept_replies, handle_commit_notice, rloop_done, terminating],
    invariants=[type_ok, linearizability],
    symmetry=Symmetry(lambda c: c.Replicas, permute),
    deadlock_expected=False,  # MultiPaxos_MC_small.cfg: CHECK_DEADLOCK TRUE
    view=view,
)
