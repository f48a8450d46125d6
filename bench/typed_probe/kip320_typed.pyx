# cython: boundscheck=False, wraparound=False, language_level=3
"""Kip320's nine actions and StrongIsr, hand-typed: what a type-directed compile of the readable spec would emit.

An experiment, not a spec and not a feature (see bench/typed_probe.py and
docs/benchmarks.md).  Each function here is the readable one in
specs/kip320.py, specs/kafka_replication.py or invariants/kafka_isr.py,
translated the way a compiler that trusts the specs' type annotations could:

* a state and its parts are tuples (``s.replica_state`` is ``(<tuple>s)[1]``,
  by the NamedTuple's field order, checked below when this module loads);
* replica indices, offsets and epochs are C integers (``Py_ssize_t``);
* helpers called by the actions are ``cdef inline`` functions, not Python calls;
* new NamedTuples are made with ``tuple.__new__(cls, (...))``.

The successors and verdicts must be exactly the readable spec's; the probe
checks that on every reachable state before it times anything.
"""
from modelcheck.specs.kafka_replication import ReplicaState, QuorumState, KafkaState
from modelcheck.specs.replicated_log import Record

# The indices below follow these field orders; a change to the spec must fail here, not compute nonsense.
assert KafkaState._fields == ("replica_log", "replica_state", "next_record_id", "next_leader_epoch",
                              "leader_and_isr_requests", "quorum_state"), KafkaState._fields
assert ReplicaState._fields == ("hw", "leader_epoch", "leader", "isr"), ReplicaState._fields
assert QuorumState._fields == ("leader_epoch", "leader", "isr"), QuorumState._fields
assert Record._fields == ("id", "epoch"), Record._fields

cdef object _new = tuple.__new__
cdef object RS = ReplicaState
cdef object QS = QuorumState
cdef object KS = KafkaState
cdef Py_ssize_t NONE = -1

cdef inline tuple replace_at(tuple values, Py_ssize_t index, object value):
    cdef list copy = list(values)
    copy[index] = value
    return tuple(copy)

cdef inline Py_ssize_t I(object o):
    return <Py_ssize_t>o

cdef inline bint is_following_leader_epoch(tuple s, Py_ssize_t leader, Py_ssize_t follower):
    cdef tuple rss = <tuple>s[1]
    cdef tuple lrs = <tuple>rss[leader]
    cdef tuple frs = <tuple>rss[follower]
    return I(lrs[2]) == leader and I(frs[2]) == leader and I(frs[1]) == I(lrs[1])

cdef inline bint is_true_leader(tuple s, Py_ssize_t leader):
    cdef tuple q = <tuple>s[5]
    cdef tuple rs = <tuple>(<tuple>s[1])[leader]
    return I(q[1]) == leader and I(rs[2]) == leader and I(rs[1]) == I(q[0])

cdef inline object with_logs_and_states(tuple s, object logs, object states):
    return _new(KS, (logs, states, s[2], s[3], s[4], s[5]))

cdef inline object with_quorum_and_states(tuple s, object q, object states):
    return _new(KS, (s[0], states, s[2], s[3], s[4], q))

cdef object quorum_update_leader_and_isr(tuple s, Py_ssize_t leader, object new_isr):
    if not is_true_leader(s, leader):
        return None
    cdef tuple rs = <tuple>(<tuple>s[1])[leader]
    cdef tuple q = <tuple>s[5]
    return with_quorum_and_states(s, _new(QS, (q[0], q[1], new_isr)),
                                  replace_at(<tuple>s[1], leader, _new(RS, (rs[0], rs[1], rs[2], new_isr))))

cdef Py_ssize_t first_non_matching_offset_from_tail(tuple leader_log, tuple follower_log):
    if not leader_log:
        return 0
    cdef Py_ssize_t o
    for o in range(min(len(leader_log), len(follower_log)) - 1, -1, -1):
        if leader_log[o] == follower_log[o]:
            return o + 1
    return 0

def fenced_follower_fetch(c, s0, Py_ssize_t follower, Py_ssize_t leader):
    cdef tuple s = <tuple>s0
    if not is_following_leader_epoch(s, leader, follower):
        return None
    cdef tuple logs = <tuple>s[0]
    cdef tuple f_log = <tuple>logs[follower]
    cdef tuple l_log = <tuple>logs[leader]
    cdef Py_ssize_t offset = len(f_log)
    if offset >= len(l_log) or offset >= <Py_ssize_t>c.LogSize:
        return None
    cdef tuple rss = <tuple>s[1]
    cdef tuple f_rs = <tuple>rss[follower]
    cdef Py_ssize_t lhw = I((<tuple>rss[leader])[0])
    new_rs = _new(RS, (min(lhw, offset + 1), f_rs[1], f_rs[2], f_rs[3]))
    return with_logs_and_states(s, replace_at(logs, follower, f_log + (l_log[offset],)), replace_at(rss, follower, new_rs))

def fenced_leader_shrink_isr(c, s0, Py_ssize_t leader, Py_ssize_t follower):
    cdef tuple s = <tuple>s0
    cdef tuple lrs = <tuple>(<tuple>s[1])[leader]
    isr = lrs[3]
    if I(lrs[2]) != leader or follower == leader or follower not in isr:
        return None
    cdef bint wrong_epoch = not is_following_leader_epoch(s, leader, follower)
    cdef tuple logs = <tuple>s[0]
    cdef bint lagging = len(<tuple>logs[follower]) < len(<tuple>logs[leader])
    cdef int copies = wrong_epoch + lagging
    if not copies:
        return None
    t = quorum_update_leader_and_isr(s, leader, isr - {follower})
    if t is None:
        return None
    return [t] * copies if copies > 1 else t

cdef inline bint has_high_watermark_reached_current_epoch(tuple s, Py_ssize_t leader):
    cdef tuple rs = <tuple>(<tuple>s[1])[leader]
    cdef tuple log = <tuple>(<tuple>s[0])[leader]
    cdef Py_ssize_t hw = I(rs[0])
    return hw == len(log) or (hw < len(log) and I((<tuple>log[hw])[1]) == I(rs[1]))

def fenced_leader_expand_isr(c, s0, Py_ssize_t leader, Py_ssize_t follower):
    cdef tuple s = <tuple>s0
    cdef tuple rs = <tuple>(<tuple>s[1])[leader]
    if follower in rs[3] or not is_following_leader_epoch(s, leader, follower):
        return None
    cdef Py_ssize_t hw = I(rs[0])
    if hw > 0 and not (hw - 1 < len(<tuple>(<tuple>s[0])[follower])):
        return None
    if not has_high_watermark_reached_current_epoch(s, leader):
        return None
    return quorum_update_leader_and_isr(s, leader, rs[3] | {follower})

def fenced_become_follower_and_truncate(c, s0, Py_ssize_t leader, Py_ssize_t replica):
    cdef tuple s = <tuple>s0
    if leader == replica:
        return None
    cdef tuple rss = <tuple>s[1]
    cdef tuple lrs = None
    if leader != NONE:
        lrs = <tuple>rss[leader]
        if I(lrs[2]) != leader:
            return None
    cdef tuple rs = <tuple>rss[replica]
    cdef Py_ssize_t rs_epoch = I(rs[1])
    cdef list out = []
    cdef tuple req
    cdef tuple logs = <tuple>s[0]
    cdef tuple log
    cdef Py_ssize_t offset, req_epoch
    for r in <tuple>s[4]:
        req = <tuple>r
        req_epoch = I(req[0])
        if I(req[1]) != leader or req_epoch <= rs_epoch:
            continue
        if leader == NONE:
            new_rs = _new(RS, (rs[0], req[0], req[1], req[2]))
            out.append(_new(KS, (s[0], replace_at(rss, replica, new_rs), s[2], s[3], s[4], s[5])))
            continue
        if I(lrs[1]) != req_epoch:
            continue
        offset = first_non_matching_offset_from_tail(<tuple>logs[leader], <tuple>logs[replica])
        log = <tuple>logs[replica]
        if offset > len(log):
            continue
        new_rs = _new(RS, (min(offset, I(rs[0])), req[0], req[1], req[2]))
        out.append(with_logs_and_states(s, replace_at(logs, replica, log[:offset]), replace_at(rss, replica, new_rs)))
    return out or None


cdef object REC = Record

cdef object controller_update_isr(c, tuple s, Py_ssize_t new_leader, object new_isr):
    cdef Py_ssize_t epoch = I(s[3])
    if epoch > <Py_ssize_t>c.MaxLeaderEpoch:
        return None
    q = _new(QS, (epoch, new_leader, new_isr))
    return _new(KS, (s[0], s[1], s[2], epoch + 1, <tuple>s[4] + (q,), q))

def controller_elect_leader(c, s0, Py_ssize_t new_leader):
    cdef tuple s = <tuple>s0
    cdef tuple q = <tuple>s[5]
    if new_leader not in q[2] or I(q[1]) == new_leader:
        return None
    return controller_update_isr(c, s, new_leader, q[2])

def controller_shrink_isr(c, s0, Py_ssize_t replica):
    cdef tuple s = <tuple>s0
    cdef tuple q = <tuple>s[5]
    isr = q[2]
    if I(q[1]) == replica:
        if isr == frozenset((replica,)):
            return controller_update_isr(c, s, NONE, isr)
        return controller_update_isr(c, s, NONE, isr - {replica})
    if replica in isr:
        return controller_update_isr(c, s, I(q[1]), isr - {replica})
    return None

def become_leader(c, s0, Py_ssize_t replica):
    cdef tuple s = <tuple>s0
    cdef tuple rss = <tuple>s[1]
    cdef tuple rs = <tuple>rss[replica]
    cdef Py_ssize_t epoch = I(rs[1])
    cdef list out = []
    cdef tuple req
    for r in <tuple>s[4]:
        req = <tuple>r
        if I(req[1]) == replica and I(req[0]) > epoch:
            new_rs = _new(RS, (rs[0], req[0], replica, req[2]))
            out.append(_new(KS, (s[0], replace_at(rss, replica, new_rs), s[2], s[3], s[4], s[5])))
    return out or None

def leader_write(c, s0, Py_ssize_t replica):
    cdef tuple s = <tuple>s0
    cdef tuple rs = <tuple>(<tuple>s[1])[replica]
    cdef Py_ssize_t rid = I(s[2])
    if I(rs[2]) != replica or rid >= <Py_ssize_t>c.MaxRecords:
        return None
    cdef tuple log = <tuple>(<tuple>s[0])[replica]
    if len(log) >= <Py_ssize_t>c.LogSize:
        return None
    record = _new(REC, (rid, rs[1]))
    return _new(KS, (replace_at(<tuple>s[0], replica, log + (record,)), s[1], rid + 1, s[3], s[4], s[5]))

def fenced_leader_inc_high_watermark(c, s0, Py_ssize_t leader):
    cdef tuple s = <tuple>s0
    cdef tuple rss = <tuple>s[1]
    cdef tuple rs = <tuple>rss[leader]
    cdef Py_ssize_t hw = I(rs[0])
    cdef tuple logs = <tuple>s[0]
    if not hw < len(<tuple>logs[leader]):
        return None
    cdef Py_ssize_t f
    for fo in rs[3]:
        f = I(fo)
        if not is_following_leader_epoch(s, leader, f) or not hw < len(<tuple>logs[f]):
            return None
    return _new(KS, (s[0], replace_at(rss, leader, _new(RS, (hw + 1, rs[1], rs[2], rs[3]))), s[2], s[3], s[4], s[5]))

def strong_isr(c, s0):
    cdef tuple s = <tuple>s0
    isr = (<tuple>s[5])[2]
    cdef tuple rss = <tuple>s[1]
    cdef tuple logs = <tuple>s[0]
    cdef Py_ssize_t r1, hw
    cdef tuple rs, log1, log2
    for r1 in range(len(rss)):
        rs = <tuple>rss[r1]
        hw = I(rs[0])
        if I(rs[2]) != r1 or hw == 0:
            continue
        for r2 in isr:
            log1 = <tuple>logs[r1]
            log2 = <tuple>logs[I(r2)]
            if len(log1) < hw or len(log2) < hw or log1[:hw] != log2[:hw]:
                return False
    return True
