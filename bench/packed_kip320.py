"""Kip320 by a packed, level-vectorised numpy encoding: the benchmark's hand-written reference point.

    .venv/bin/python bench/packed_kip320.py [--const Replicas=3 ...] [--cross-check [--sample N]] [--json]

Why it exists: the benchmark goal "modelcheck's CPU time on Kip320 with three
replicas within 3x of a packed, vectorised encoding's" needs that encoding to
exist and to be measured on this machine.  Here every state is a few bit
fields in one uint64 word (more words for larger constants) and nothing is
built per state: a BFS level is one numpy array, each action with each
binding of its parameters is a masked array operation over the whole level
(the guard a boolean mask, the effect computed on the enabled states only),
and the visited set is one sorted array merged level by level.  It is the cost
of a state when no Python object is built per state.

It is NOT derived from the spec: every action of specs/kip320.py (and the
base actions it uses from specs/kafka_replication.py) was translated by hand,
which is why this is only a benchmark and never part of the checker.  To keep
the copy honest, ``--cross-check`` decodes reachable packed states into the
readable spec's own ``KafkaState`` values and checks that the multiset of the
decoded packed successors equals the multiset the spec's successor function
gives (``BoundModel.successors``, TLC's counting of copies included), and that
the invariant verdicts agree; tests/test_packed_kip320_reference.py runs it on
every reachable state with two replicas and on a sample with three.

The counts are TLC's: distinct states, states generated (every successor,
duplicates and an action's copies included, plus the initial state) and the
depth (BFS levels, the initial state being level 1).  The invariant is the
CLI's default for kip320, StrongIsr, checked on every level.

Layout (the bit budget is computed from the constants; ``--layout`` prints
it).  Per replica: its log as LogSize record codes (0 = no record, else
1 + id * (MaxLeaderEpoch + 1) + epoch; the length is the number of non-zero
codes, since a log is a prefix), its HW, its leader epoch (+1, 0 = Nil) and
its ISR bitmask.  Globally: nextRecordId, nextLeaderEpoch, one slot per
leader epoch e for the LeaderAndIsr request of epoch e (its leader + 1, 0 =
None, and its ISR bitmask) and the quorum ISR bitmask.  Three things are not
stored because the spec determines them (encode() asserts each):

* the request of epoch e exists exactly when e < nextLeaderEpoch (only
  ControllerUpdateIsr adds a request, and it bumps the epoch);
* the quorum's leader epoch is nextLeaderEpoch - 1 (Nil when 0) and its
  leader is the newest request's (None when there is none);
* a replica's own leader is the leader of the request of its leader epoch
  (None at epoch Nil): only BecomeLeader and the truncating follower change
  a replica's epoch, both to a request's epoch and leader.

With the defaults (Replicas=3, LogSize=2, MaxRecords=2, MaxLeaderEpoch=2)
that is 3 x (6 + 2 + 2 + 3) + 2 + 2 + 3 x (2 + 3) + 3 = 61 bits, one word;
a field for each of these too (each log's length, a presence bit a request,
each replica's leader, the quorum's epoch and leader) would take 80, two
words.  Larger constants do take two or more words (a field group never
straddles two words), and then the visited set sorts the words as byte
strings, several times slower: MaxLeaderEpoch=3 is 76 bits, 9,985,570
states in about 15-20 s and 600 MiB here, against well under a second for
the defaults.  Constants that need more than four words are refused with
the bit budget.

bench/vs_tlc.py runs this script (``--json``) as a whole process beside
modelcheck on its Kip320 workloads and prints modelcheck's CPU over this
one's.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterator

import numpy as np

U64 = np.uint64
DEFAULTS = {"Replicas": 3, "LogSize": 2, "MaxRecords": 2, "MaxLeaderEpoch": 2}
"""Kip320's constants and their defaults, as specs/kafka_replication.py declares them."""
RANGES = {"Replicas": (1, 6), "LogSize": (0, 8), "MaxRecords": (0, 8), "MaxLeaderEpoch": (0, 8)}
"""The spec's ranges for them (the int8 arithmetic below relies on these bounds)."""
MAX_WORDS = 4
"""States wider than this many uint64 words are refused (the search would not be a reference any more)."""


# --- layout -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Field:
    """A bit field: ``width`` bits at ``shift`` in word ``word``."""

    word: int
    shift: int
    width: int

    @property
    def mask(self) -> int:
        """The field's bits, unshifted."""
        return (1 << self.width) - 1


@dataclass
class Layout:
    """Where each field of a Kip320 state lives, for one set of constants."""

    R: int
    LS: int
    MR: int
    E: int
    words: int = 0
    bits: int = 0
    log: list[list[Field]] = field(default_factory=list)  # [replica][offset]: record code
    hw: list[Field] = field(default_factory=list)
    ep: list[Field] = field(default_factory=list)  # leader epoch + 1 (0 = Nil)
    isr: list[Field] = field(default_factory=list)
    nri: Field | None = None
    nle: Field | None = None
    req_leader: list[Field] = field(default_factory=list)  # [epoch]: leader + 1 (0 = None)
    req_isr: list[Field] = field(default_factory=list)
    qisr: Field | None = None
    log_w: int = 0  # width of one record code
    req_w: int = 0  # width of one request slot (leader, then ISR)
    groups: list[tuple[str, int, int, int]] = field(default_factory=list)  # (name, word, shift, width)
    keep: list[np.ndarray] = field(default_factory=list)  # [replica][k]: word mask keeping a log's first k codes


def bits_for(n: int) -> int:
    """Bits that hold every value 0..n."""
    return int(n).bit_length()


def make_layout(consts: dict[str, int]) -> Layout:
    """Pack the fields by their ranges into as few uint64 words as fit; a group never straddles two words.

    Raises ValueError with the bit budget when the state needs more than MAX_WORDS words.
    """
    R, LS, MR, E = consts["Replicas"], consts["LogSize"], consts["MaxRecords"], consts["MaxLeaderEpoch"]
    for name, (lo, hi) in RANGES.items():
        if not lo <= consts[name] <= hi:
            raise ValueError(f"{name}={consts[name]} is outside the spec's range {lo}..{hi}")
    lay = Layout(R, LS, MR, E)
    lay.log_w = bits_for(MR * (E + 1))  # codes 0 (no record) .. MR * (E + 1)
    w_leader = bits_for(R)  # leader + 1: 0 = None .. R
    lay.req_w = w_leader + R
    groups: list[tuple[str, list[int]]] = []  # each group: its member widths, laid out consecutively
    for r in range(R):
        groups.append((f"log[{r}]", [lay.log_w] * LS))
        groups.append((f"hw[{r}]", [bits_for(LS)]))
        groups.append((f"epoch[{r}]", [bits_for(E + 1)]))
        groups.append((f"isr[{r}]", [R]))
    groups.append(("nextRecordId", [bits_for(MR)]))
    groups.append(("nextLeaderEpoch", [bits_for(E + 1)]))
    groups.append(("requests", [w_leader, R] * (E + 1)))
    groups.append(("quorum isr", [R]))
    total = sum(sum(ws) for _, ws in groups)
    placed: dict[str, list[Field]] = {}
    word, used = 0, 0
    for name, ws in groups:
        size = sum(ws)
        if size > 64:
            raise ValueError(f"a Kip320 state with {consts} needs {total} bits, and its field group {name} "
                             f"alone {size}, more than one uint64 word holds (a group never straddles two words)")
        if used + size > 64:
            word, used = word + 1, 0
        fs = []
        for w in ws:
            fs.append(Field(word, used, w))
            used += w
        placed[name] = fs
        lay.groups.append((name, word, fs[0].shift if fs else used, size))
    lay.words = word + 1
    lay.bits = total
    if lay.words > MAX_WORDS:
        raise ValueError(f"a Kip320 state with {consts} needs {total} bits ({lay.words} uint64 words); this "
                         f"reference supports at most {MAX_WORDS} words")
    lay.log = [placed[f"log[{r}]"] for r in range(R)]
    lay.hw = [placed[f"hw[{r}]"][0] for r in range(R)]
    lay.ep = [placed[f"epoch[{r}]"][0] for r in range(R)]
    lay.isr = [placed[f"isr[{r}]"][0] for r in range(R)]
    lay.nri = placed["nextRecordId"][0]
    lay.nle = placed["nextLeaderEpoch"][0]
    req = placed["requests"]
    lay.req_leader = req[0::2]
    lay.req_isr = req[1::2]
    lay.qisr = placed["quorum isr"][0]
    for r in range(R):
        shift = lay.log[r][0].shift if LS else 0
        group = ((1 << (LS * lay.log_w)) - 1) << shift
        lay.keep.append(np.array([(((1 << 64) - 1) ^ group) | (((1 << (k * lay.log_w)) - 1) << shift)
                                  for k in range(LS + 1)], U64))
    return lay


def describe_layout(lay: Layout) -> str:
    """The bit budget, one line a field group."""
    lines = [f"{lay.bits} bits in {lay.words} uint64 word(s) "
             f"(Replicas={lay.R}, LogSize={lay.LS}, MaxRecords={lay.MR}, MaxLeaderEpoch={lay.E})"]
    for name, word, shift, width in lay.groups:
        lines.append(f"  {name:16} word {word} bits {shift}..{shift + width - 1} ({width})")
    return "\n".join(lines)


# --- one state: readable <-> packed (the cross-check's and the initial state's way; never in the search) ----


def get(lay: Layout, words: list[int], f: Field) -> int:
    """Field ``f`` of one state's words."""
    return (words[f.word] >> f.shift) & f.mask


def put(words: list[int], f: Field, value: int) -> None:
    """Set field ``f`` (still zero) of one state's words."""
    assert 0 <= value <= f.mask, (f, value)
    words[f.word] |= value << f.shift


def record_code(lay: Layout, rec_id: int, epoch: int) -> int:
    """A record's code in a log slot (0 means no record)."""
    return 1 + rec_id * (lay.E + 1) + epoch


def initial_words(lay: Layout) -> list[int]:
    """Init: empty logs, HW 0, epoch Nil, no leader, empty ISRs, no requests, the quorum ISR all replicas."""
    words = [0] * lay.words
    put(words, lay.qisr, (1 << lay.R) - 1)
    return words


def encode(lay: Layout, s: Any) -> list[int]:
    """A readable KafkaState as its packed words; asserts the facts the layout does not store."""
    words = [0] * lay.words
    nle = s.next_leader_epoch
    reqs = s.leader_and_isr_requests
    assert [q.leader_epoch for q in reqs] == list(range(nle)), "requests are exactly epochs 0..nextLeaderEpoch-1"
    req_leader = {q.leader_epoch: q.leader for q in reqs}
    for r in range(lay.R):
        log = s.replica_log[r]
        assert len(log) <= lay.LS
        for o, rec in enumerate(log):
            put(words, lay.log[r][o], record_code(lay, rec.id, rec.epoch))
        rs = s.replica_state[r]
        put(words, lay.hw[r], rs.hw)
        put(words, lay.ep[r], rs.leader_epoch + 1)
        put(words, lay.isr[r], sum(1 << x for x in rs.isr))
        assert rs.leader == req_leader.get(rs.leader_epoch, -1), "a replica's leader is its epoch's request's"
    put(words, lay.nri, s.next_record_id)
    put(words, lay.nle, nle)
    for q in reqs:
        put(words, lay.req_leader[q.leader_epoch], q.leader + 1)
        put(words, lay.req_isr[q.leader_epoch], sum(1 << x for x in q.isr))
    q = s.quorum_state
    assert q.leader_epoch == nle - 1, "the quorum's epoch is the newest request's"
    assert q.leader == (reqs[-1].leader if reqs else -1), "the quorum's leader is the newest request's"
    put(words, lay.qisr, sum(1 << x for x in q.isr))
    return words


def decode(lay: Layout, words: list[int]) -> Any:
    """Packed words as the readable spec's KafkaState (its own NamedTuples, frozensets and Records)."""
    from modelcheck.specs.kafka_replication import KafkaState, QuorumState, ReplicaState
    from modelcheck.specs.replicated_log import Record

    def members(mask: int) -> frozenset:
        return frozenset(x for x in range(lay.R) if mask >> x & 1)

    nle = get(lay, words, lay.nle)
    req_leader = [get(lay, words, f) - 1 for f in lay.req_leader]
    reqs = tuple(QuorumState(e, req_leader[e], members(get(lay, words, lay.req_isr[e]))) for e in range(nle))
    logs, states = [], []
    for r in range(lay.R):
        log = []
        for f in lay.log[r]:
            code = get(lay, words, f)
            if code == 0:
                break
            log.append(Record((code - 1) // (lay.E + 1), (code - 1) % (lay.E + 1)))
        logs.append(tuple(log))
        ep = get(lay, words, lay.ep[r]) - 1
        states.append(ReplicaState(get(lay, words, lay.hw[r]), ep, req_leader[ep] if ep >= 0 else -1,
                                   members(get(lay, words, lay.isr[r]))))
    quorum = QuorumState(nle - 1, req_leader[nle - 1] if nle else -1, members(get(lay, words, lay.qisr)))
    return KafkaState(tuple(logs), tuple(states), get(lay, words, lay.nri), nle, reqs, quorum)


def row_words(row: np.ndarray) -> list[int]:
    """One state's row of a level as Python ints."""
    return [int(x) for x in row]


# --- a level, vectorised --------------------------------------------------------------------------------------


def field_of(S: np.ndarray, f: Field) -> np.ndarray:
    """Field ``f`` of every state of ``S`` (an (N, words) uint64 array), as int8."""
    return ((S[:, f.word] >> U64(f.shift)) & U64(f.mask)).astype(np.int8)


def set_field(T: np.ndarray, f: Field, value: np.ndarray | int) -> None:
    """Overwrite field ``f`` of every state of ``T`` (in place) with ``value`` (an array or one value)."""
    clear = U64(((1 << 64) - 1) ^ (f.mask << f.shift))
    v = value.astype(U64) if isinstance(value, np.ndarray) else U64(value)
    T[:, f.word] = (T[:, f.word] & clear) | (v << U64(f.shift))


class Level:
    """A level's decoded fields (int8 arrays over its states) and the predicates several actions share.

    Computed once a level; every guard is then a few int8 array operations.
    """

    def __init__(self, lay: Layout, S: np.ndarray) -> None:
        R, LS, E = lay.R, lay.LS, lay.E
        self.S = S
        n = len(S)
        self.LC = [[field_of(S, f) for f in lay.log[r]] for r in range(R)]  # record codes
        self.L = [sum(((c != 0).astype(np.int8) for c in self.LC[r]), np.zeros(n, np.int8)) for r in range(R)]
        self.HW = [field_of(S, f) for f in lay.hw]
        self.EP = [field_of(S, f) for f in lay.ep]
        self.ISR = [field_of(S, f) for f in lay.isr]
        self.NRI = field_of(S, lay.nri)
        self.NLE = field_of(S, lay.nle)
        self.RL = [field_of(S, f) for f in lay.req_leader]
        self.RI = [field_of(S, f) for f in lay.req_isr]
        self.QI = field_of(S, lay.qisr)
        zero = np.zeros(n, np.int8)
        by_code = [zero] + self.RL  # leader + 1 of the request of epoch code k (k = epoch + 1; 0 = Nil)
        self.LDR = [np.choose(self.EP[r], by_code) for r in range(R)]  # each replica's own leader + 1
        self.QL = np.choose(self.NLE, by_code)  # the quorum's leader + 1 (its epoch code is NLE)
        self.PL = [self.LDR[r] == r + 1 for r in range(R)]  # presumes leadership
        self.TL = [self.PL[r] & (self.QL == r + 1) & (self.EP[r] == self.NLE) for r in range(R)]  # IsTrueLeader
        # is_following_leader_epoch(l, f): l presumes leadership, f follows l, in l's epoch.
        self.FOL = [[self.PL[l] & (self.LDR[f] == l + 1) & (self.EP[f] == self.EP[l]) for f in range(R)]
                    for l in range(R)]
        # The epoch code (epoch + 1) of each record code, -1 for "no record".
        epoch_code = np.array([-1] + [(c - 1) % (E + 1) + 1 for c in range(1, lay.MR * (E + 1) + 1)], np.int8)
        self.HWE = []  # has_high_watermark_reached_current_epoch
        for r in range(R):
            ok = self.HW[r] == self.L[r]
            for h in range(LS):
                ok |= (self.HW[r] == h) & (self.L[r] > h) & (np.take(epoch_code, self.LC[r][h]) == self.EP[r])
            self.HWE.append(ok)

    def bit(self, mask: np.ndarray, x: int) -> np.ndarray:
        """Whether replica ``x`` is in each of the ISR bitmasks ``mask``."""
        return (mask >> x) & 1 != 0


def strong_isr_fails(lay: Layout, lv: Level) -> np.ndarray:
    """StrongIsr's negation per state: some presumed leader's data below its HW is missing on a quorum ISR member."""
    bad = np.zeros(len(lv.S), bool)
    for r1 in range(lay.R):
        active = lv.PL[r1] & (lv.HW[r1] > 0)
        if not active.any():
            continue
        for r2 in range(lay.R):
            agree = np.ones(len(lv.S), bool)
            for o in range(lay.LS):
                c1 = lv.LC[r1][o]
                agree &= (lv.HW[r1] <= o) | ((c1 != 0) & (c1 == lv.LC[r2][o]))
            bad |= active & lv.bit(lv.QI, r2) & ~agree
    return bad


Successors = tuple[np.ndarray, np.ndarray, "np.ndarray | None", str]
"""(parent indices, successor states, copies per successor or None for one each, action name)."""


def expand(lay: Layout, lv: Level) -> Iterator[Successors]:
    """Every action of Kip320 with every binding, over the whole level: the successors of each enabled state.

    Translated by hand from specs/kip320.py and the kafka_replication base actions it uses; the comments
    name the readable function each block mirrors.
    """
    R, LS, MR, E = lay.R, lay.LS, lay.MR, lay.E
    S = lv.S
    req0 = lay.req_leader[0]  # the request slots: slot e at req0.shift + e * req_w, leader then ISR

    def controller_update(idx: np.ndarray, leader: np.ndarray | int, isr: np.ndarray) -> np.ndarray:
        """ControllerUpdateIsr on the states ``idx``: bump the epoch, write the quorum ISR, add the request."""
        T = S[idx]
        e = lv.NLE[idx].astype(U64)
        set_field(T, lay.nle, lv.NLE[idx] + 1)
        ld = leader.astype(U64) if isinstance(leader, np.ndarray) else U64(leader)
        slot = ld | (isr.astype(U64) << U64(lay.req_leader[0].width))
        T[:, req0.word] |= slot << (U64(req0.shift) + e * U64(lay.req_w))
        set_field(T, lay.qisr, isr)
        return T

    def quorum_update(idx: np.ndarray, leader: int, isr: np.ndarray) -> np.ndarray:
        """QuorumUpdateLeaderAndIsr (the true-leader guard is the caller's): the new ISR in quorum and leader."""
        T = S[idx]
        set_field(T, lay.qisr, isr)
        set_field(T, lay.isr[leader], isr)
        return T

    epoch_ok = lv.NLE <= E  # ControllerUpdateIsr's guard: an epoch is left

    # kr.controller_elect_leader
    for n in range(R):
        m = lv.bit(lv.QI, n) & (lv.QL != n + 1) & epoch_ok
        idx = np.flatnonzero(m)
        if len(idx):
            yield idx, controller_update(idx, n + 1, lv.QI[idx]), None, "ControllerElectLeader"

    # kr.controller_shrink_isr
    for r in range(R):
        was_leader = lv.QL == r + 1
        m = epoch_ok & (was_leader | lv.bit(lv.QI, r))
        idx = np.flatnonzero(m)
        if len(idx):
            qi, wl = lv.QI[idx], was_leader[idx]
            isr = np.where(wl & (qi == (1 << r)), qi, qi & ~np.int8(1 << r))
            leader = np.where(wl, 0, lv.QL[idx])
            yield idx, controller_update(idx, leader, isr), None, "ControllerShrinkIsr"

    # kr.become_leader: one successor per request naming it with a newer epoch
    for r in range(R):
        for e in range(E + 1):
            m = (lv.NLE > e) & (lv.RL[e] == r + 1) & (lv.EP[r] < e + 1)
            idx = np.flatnonzero(m)
            if len(idx):
                T = S[idx]
                set_field(T, lay.ep[r], e + 1)
                set_field(T, lay.isr[r], lv.RI[e][idx])
                yield idx, T, None, "BecomeLeader"

    # fenced_leader_expand_isr (the follower may be the leader itself)
    for l in range(R):
        base = lv.TL[l] & lv.HWE[l]
        for f in range(R):
            m = base & lv.FOL[l][f] & ~lv.bit(lv.ISR[l], f) & ((lv.HW[l] == 0) | (lv.L[f] >= lv.HW[l]))
            idx = np.flatnonzero(m)
            if len(idx):
                yield idx, quorum_update(idx, l, lv.ISR[l][idx] | np.int8(1 << f)), None, "FencedLeaderExpandIsr"

    # fenced_leader_shrink_isr: one copy per satisfied disjunct (wrong epoch, lagging)
    for l in range(R):
        for f in range(R):
            if f == l:
                continue
            wrong = ~lv.FOL[l][f]
            lagging = lv.L[f] < lv.L[l]
            m = lv.TL[l] & lv.bit(lv.ISR[l], f) & (wrong | lagging)
            idx = np.flatnonzero(m)
            if len(idx):
                copies = wrong[idx].astype(np.int64) + lagging[idx]
                yield (idx, quorum_update(idx, l, lv.ISR[l][idx] & ~np.int8(1 << f)), copies,
                       "FencedLeaderShrinkIsr")

    # kr.leader_write: the next record, in the leader's epoch, at its end offset
    if LS and MR:
        for r in range(R):
            m = lv.PL[r] & (lv.NRI < MR) & (lv.L[r] < LS)
            idx = np.flatnonzero(m)
            if len(idx):
                T = S[idx]
                code = (1 + lv.NRI[idx].astype(U64) * U64(E + 1) + (lv.EP[r][idx] - 1).astype(U64))
                f0 = lay.log[r][0]
                T[:, f0.word] |= code << (U64(f0.shift) + lv.L[r][idx].astype(U64) * U64(lay.log_w))
                set_field(T, lay.nri, lv.NRI[idx] + 1)
                yield idx, T, None, "LeaderWrite"

    # fenced_leader_inc_high_watermark (an empty ISR needs nothing but the offset)
    for l in range(R):
        hw = lv.HW[l]
        m = lv.L[l] > hw
        for f in range(R):
            m &= ~lv.bit(lv.ISR[l], f) | (lv.FOL[l][f] & (lv.L[f] > hw))
        idx = np.flatnonzero(m)
        if len(idx):
            T = S[idx]
            set_field(T, lay.hw[l], hw[idx] + 1)
            yield idx, T, None, "FencedLeaderIncHighWatermark"

    # fenced_become_follower_and_truncate (leader ranges over replicas, never None).  The one request that can
    # match is the leader's own epoch's: it exists and names the leader (the layout's derived leader), so the
    # guard is "the leader presumes leadership in a newer epoch than the replica's".
    for ld in range(R):
        for r in range(R):
            if r == ld:
                continue
            m = lv.PL[ld] & (lv.EP[ld] > lv.EP[r])
            idx = np.flatnonzero(m)
            if not len(idx):
                continue
            off = np.zeros(len(idx), np.int8)  # FirstNonMatchingOffsetFromTail: last offset where both agree, + 1
            for o in range(LS):
                c1 = lv.LC[ld][o][idx]
                off = np.where((c1 != 0) & (c1 == lv.LC[r][o][idx]), np.int8(o + 1), off)
            T = S[idx]
            if LS:
                f0 = lay.log[r][0]
                T[:, f0.word] &= lay.keep[r][off]  # truncate: clear the codes at offsets >= off
            set_field(T, lay.hw[r], np.minimum(off, lv.HW[r][idx]))
            ep = lv.EP[ld][idx]
            set_field(T, lay.ep[r], ep)
            set_field(T, lay.isr[r], np.choose(ep - 1, [x[idx] for x in lv.RI]))
            yield idx, T, None, "FencedBecomeFollowerAndTruncate"

    # fenced_follower_fetch (+ kr.replicate_next_record); a replica never fetches from itself
    if LS:
        for f in range(R):
            for l in range(R):
                if f == l:
                    continue
                m = lv.FOL[l][f] & (lv.L[f] < lv.L[l]) & (lv.L[f] < LS)
                idx = np.flatnonzero(m)
                if not len(idx):
                    continue
                T = S[idx]
                o = lv.L[f][idx].astype(U64)
                fl, ff = lay.log[l][0], lay.log[f][0]
                code = (T[:, fl.word] >> (U64(fl.shift) + o * U64(lay.log_w))) & U64(fl.mask)
                T[:, ff.word] |= code << (U64(ff.shift) + o * U64(lay.log_w))
                set_field(T, lay.hw[f], np.minimum(lv.HW[l][idx], lv.L[f][idx] + 1))
                yield idx, T, None, "FencedFollowerFetch"


# --- the search -----------------------------------------------------------------------------------------------


class Visited:
    """The visited set: every state seen, as a sorted array of keys, merged level by level.

    A one-word state is its own key.  A wider state's words are viewed as one fixed-size byte string (a numpy
    void value), which sorts and searches exactly, if several times slower than a uint64 (sorting by a 64-bit
    hash of the words instead, with the words kept alongside to stay exact, was no faster here).
    """

    def __init__(self, init: np.ndarray) -> None:
        self.words = init.shape[1]
        self.keys = np.sort(self.keys_of(init))

    def keys_of(self, S: np.ndarray) -> np.ndarray:
        if self.words == 1:
            return S[:, 0]
        return np.ascontiguousarray(S).view(np.dtype((np.void, 8 * self.words))).ravel()

    def rows_of(self, keys: np.ndarray) -> np.ndarray:
        if self.words == 1:
            return keys.reshape(-1, 1)
        return keys.view(U64).reshape(-1, self.words)

    def __len__(self) -> int:
        return len(self.keys)

    def add(self, cand: np.ndarray) -> np.ndarray:
        """Record the distinct states of ``cand`` not seen before; return them (sorted, one a row)."""
        keys = np.sort(self.keys_of(cand))  # distinct: sort and compare neighbours (np.unique hashes: slower here)
        rows = self.rows_of(keys)
        first = np.empty(len(keys), bool)
        first[:1] = True
        if self.words == 1:
            np.not_equal(keys[1:], keys[:-1], out=first[1:])
        else:
            np.any(rows[1:] != rows[:-1], axis=1, out=first[1:])
        keys = keys[first]
        pos = np.searchsorted(self.keys, keys)
        found = np.zeros(len(keys), bool)
        inside = pos < len(self.keys)
        found[inside] = self.keys[pos[inside]] == keys[inside]
        new = keys[~found]
        self.keys = np.insert(self.keys, pos[~found], new)  # a merge: both sorted
        return self.rows_of(new)

    def states(self) -> np.ndarray:
        """Every state seen, one a row of words."""
        return self.rows_of(self.keys)


@dataclass
class SearchResult:
    """What a whole search found; ``visited`` holds every reachable state, one a row."""

    result: str  # "holds" or "violated"
    distinct: int
    generated: int
    depth: int
    visited: np.ndarray
    violation: np.ndarray | None = None  # the first violating state's words


def search(lay: Layout) -> SearchResult:
    """BFS by levels, TLC's way: counts, depth, StrongIsr on every level; stops at the first violating level."""
    level = np.array([initial_words(lay)], U64)
    visited = Visited(level)
    generated = 1  # TLC counts the initial state among the states generated
    depth = 1
    while True:
        lv = Level(lay, level)
        bad = strong_isr_fails(lay, lv)
        if bad.any():
            return SearchResult("violated", len(visited), generated, depth, visited.states(),
                                level[np.flatnonzero(bad)[0]].copy())
        parts = []
        for idx, T, copies, _name in expand(lay, lv):
            generated += len(idx) if copies is None else int(copies.sum())
            parts.append(T)
        if not parts:
            break
        level = visited.add(np.concatenate(parts))
        if not len(level):
            break
        depth += 1
    return SearchResult("holds", len(visited), generated, depth, visited.states())


# --- the cross-check against the readable spec -------------------------------------------------------------------


def canon(x: Any) -> Any:
    """A value with its types spelt out, so that equal canons mean the same NamedTuples, sets and ints."""
    if isinstance(x, tuple):
        return (type(x).__name__,) + tuple(canon(y) for y in x)
    if isinstance(x, frozenset):
        return ("frozenset",) + tuple(sorted(canon(y) for y in x))
    return (type(x).__name__, x)


def cross_check(lay: Layout, consts: dict[str, int], states: np.ndarray, chunk: int = 4096) -> dict[str, Any]:
    """On each of ``states``: packed successors (decoded) == the readable spec's, as multisets; same StrongIsr verdict.

    Also: the initial state decodes to the spec's, and each state encodes back to itself.  Returns the counts
    and the first few disagreements (an empty list when there is none).
    """
    from modelcheck.invariants.kafka_isr import strong_isr
    from modelcheck.model.bound import BoundModel
    from modelcheck.options import CheckOptions
    from modelcheck.spec.constants import build_constants
    from modelcheck.spec.loader import load_spec

    spec = load_spec("kip320")
    c = build_constants(spec, consts)
    model = BoundModel(spec, c, CheckOptions())
    problems: list[str] = []
    inits = model.init_states()
    if [canon(s) for s in inits] != [canon(decode(lay, initial_words(lay)))]:
        problems.append(f"initial state: packed {decode(lay, initial_words(lay))}, readable {inits}")
    checked = successors = violated = bold_states = 0
    for start in range(0, len(states), chunk):
        part = states[start:start + chunk]
        lv = Level(lay, part)
        bad = strong_isr_fails(lay, lv)
        parents, succ, mult = [], [], []
        for idx, T, copies, _name in expand(lay, lv):
            parents.append(idx)
            succ.append(T)
            mult.append(np.ones(len(idx), np.int64) if copies is None else copies)
        P = np.concatenate(parents) if parents else np.zeros(0, np.int64)
        T = np.concatenate(succ) if succ else np.zeros((0, lay.words), U64)
        M = np.concatenate(mult) if mult else np.zeros(0, np.int64)
        order = np.argsort(P, kind="stable")
        bounds = np.searchsorted(P[order], np.arange(len(part) + 1))
        for i in range(len(part)):
            words = row_words(part[i])
            s = decode(lay, words)
            if encode(lay, s) != words:
                problems.append(f"state {s} does not encode back to its words {words}")
            packed: Counter = Counter()
            for j in order[bounds[i]:bounds[i + 1]]:
                packed[canon(decode(lay, row_words(T[j])))] += int(M[j])
            readable = Counter(canon(t) for _ai, _b, t in model.successors(s))
            successors += sum(readable.values())
            if packed != readable:
                extra, missing = packed - readable, readable - packed
                problems.append(f"successors of {s}: packed only {dict(extra)}; readable only {dict(missing)}")
            if bool(bad[i]) == bool(strong_isr(c, s)):
                problems.append(f"StrongIsr on {s}: packed says {'violated' if bad[i] else 'holds'}")
            checked += 1
            if len(problems) >= 5:
                break
        # Every reachable state satisfies StrongIsr, so the verdicts above are all "holds".  To see the vectorised
        # invariant also say "violated" where the spec's does, compare them on each state made bolder, twice: every
        # replica in the quorum ISR and every HW at its log's end, or at LogSize (beyond a shorter log).  These are
        # well-formed states (TypeOk), mostly unreachable; the invariant is a predicate on any of them.
        for hw in (lv.L, [lay.LS] * lay.R):
            bold = part.copy()
            for r in range(lay.R):
                set_field(bold, lay.hw[r], hw[r])
            set_field(bold, lay.qisr, (1 << lay.R) - 1)
            bold_bad = strong_isr_fails(lay, Level(lay, bold))
            for i in range(len(bold)):
                s = decode(lay, row_words(bold[i]))
                if bool(bold_bad[i]) == bool(strong_isr(c, s)):
                    problems.append(f"StrongIsr on {s}: packed says {'violated' if bold_bad[i] else 'holds'}")
            bold_states += len(bold)
            violated += int(bold_bad.sum())
        if len(problems) >= 5:
            break
    return {"states": checked, "successors": successors, "bold_states": bold_states,
            "bold_states_violating": violated, "problems": problems}


# --- command line ------------------------------------------------------------------------------------------------


def parse_consts(pairs: list[str]) -> dict[str, int]:
    """``NAME=VALUE`` pairs over the defaults; unknown names and non-integers are refused."""
    consts = dict(DEFAULTS)
    for p in pairs:
        name, eq, value = p.partition("=")
        if not eq or name not in DEFAULTS:
            raise SystemExit(f"--const expects NAME=VALUE with NAME one of {', '.join(DEFAULTS)}; got {p!r}")
        try:
            consts[name] = int(value)
        except ValueError:
            raise SystemExit(f"--const {name}: {value!r} is not an integer") from None
    return consts


def main(argv: list[str] | None = None) -> int:
    """Run the search (and the cross-check when asked); print the figures.  Exit 0 when all agreed and held."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--const", action="append", default=[], metavar="NAME=VALUE",
                    help=f"a constant (repeatable); defaults {', '.join(f'{k}={v}' for k, v in DEFAULTS.items())}")
    ap.add_argument("--cross-check", action="store_true",
                    help="compare every reachable state's successors and verdict with the readable spec's")
    ap.add_argument("--sample", type=int, metavar="N", help="--cross-check: only N reachable states, drawn at random")
    ap.add_argument("--seed", type=int, default=0, help="--sample: the random seed (default 0)")
    ap.add_argument("--layout", action="store_true", help="print the bit layout too")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    args = ap.parse_args(argv)
    consts = parse_consts(args.const)
    try:
        lay = make_layout(consts)
    except ValueError as err:
        raise SystemExit(f"packed_kip320: {err}") from None
    wall0, cpu0 = time.perf_counter(), time.process_time()
    res = search(lay)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    out: dict[str, Any] = {
        "result": res.result, "invariants": ["StrongIsr"], "constants": consts, "bits": lay.bits,
        "words": lay.words, "distinct_states": res.distinct, "generated_states": res.generated,
        "depth": res.depth, "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
        "process_cpu_s": round(time.process_time(), 3), "peak_rss_mib": round(rss, 1),
        "states_per_second": round(res.generated / wall) if wall > 0 else None,
    }
    if res.violation is not None:
        out["violation"] = repr(decode(lay, row_words(res.violation)))
    status = 0 if res.result == "holds" else 1
    if args.cross_check:
        states = res.visited
        if args.sample is not None and args.sample < len(states):
            pick = np.sort(np.random.default_rng(args.seed).choice(len(states), size=args.sample, replace=False))
            states = states[pick]
        t0 = time.perf_counter()
        cc = cross_check(lay, consts, states)
        cc["seconds"] = round(time.perf_counter() - t0, 2)
        cc["sampled"] = args.sample is not None and args.sample < res.distinct
        out["cross_check"] = cc
        if cc["problems"]:
            status = 1
    if args.json:
        print(json.dumps(out))
        return status
    cs = ", ".join(f"{k}={v}" for k, v in consts.items())
    print(f"Kip320, packed and vectorised ({cs}): {lay.bits} bits in {lay.words} uint64 word(s)")
    if args.layout:
        print(describe_layout(lay))
    print(f"StrongIsr {res.result}: {res.distinct:,} distinct states, {res.generated:,} generated, depth {res.depth}")
    if res.violation is not None:
        print(f"  violated by {out['violation']}")
    print(f"wall {wall:.2f} s, CPU {cpu:.2f} s (process {out['process_cpu_s']:.2f} s), peak RSS {rss:.0f} MiB, "
          f"{out['states_per_second'] or 0:,} generated states/s")
    if args.cross_check:
        cc = out["cross_check"]
        what = f"{cc['states']:,} sampled states" if cc["sampled"] else f"every reachable state ({cc['states']:,})"
        if cc["problems"]:
            print(f"cross-check FAILED on {what}:")
            for p in cc["problems"]:
                print(f"  {p}")
        else:
            print(f"cross-check: on {what}, the packed successors ({cc['successors']:,}) equal the readable spec's "
                  f"as multisets and the StrongIsr verdicts agree; so do the verdicts on {cc['bold_states']:,} "
                  f"bolder states (every replica in the quorum ISR, every HW at its log's end or at LogSize), "
                  f"{cc['bold_states_violating']:,} of which violate it ({cc['seconds']:.1f} s)")
    return status


if __name__ == "__main__":
    sys.exit(main())
