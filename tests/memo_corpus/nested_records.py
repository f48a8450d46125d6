"""Records inside records, a tuple of records, ``in`` on it, ``_replace`` on a nested record, a frozenset of records.

Replication specs keep per-replica records (``Replica(log, hw)``) in a
tuple and messages as records in a frozenset.  ``msg in s.inflight`` hashes
and compares whole records; ``s.replicas[r]._replace(hw=...)`` copies the
other fields.  A fast path that splits records into fields must put every
field back and compare whole records where the code does.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "violated"
REPLICA = Domain("replica", lambda c: range(2), lambda r: f"r{r + 1}")


class Replica(NamedTuple):
    log: tuple
    hw: int


class Msg(NamedTuple):
    to: int
    offset: int


class State(NamedTuple):
    replicas: tuple
    inflight: frozenset


@attrs.frozen
class Config:
    Records: int = constant(2, "records the leader writes", minimum=1, maximum=3)


def init(c):
    return [State(replicas=(Replica((), 0), Replica((), 0)), inflight=frozenset())]


@action("Write")
def write(c, s):
    leader = s.replicas[0]
    if len(leader.log) >= c.Records:
        return None
    return s._replace(replicas=(leader._replace(log=leader.log + (len(leader.log),)),) + s.replicas[1:])


@action("Send", replica=REPLICA)
def send(c, s, replica):
    msg = Msg(replica, len(s.replicas[replica].log))
    if replica == 0 or msg in s.inflight or msg.offset >= len(s.replicas[0].log):
        return None
    return s._replace(inflight=s.inflight | {msg})


@action("Deliver")
def deliver(c, s):
    if not s.inflight:
        return None
    msg = min(s.inflight)
    r = s.replicas[msg.to]
    if msg.offset != len(r.log):
        return s._replace(inflight=s.inflight - {msg})
    new = r._replace(log=r.log + (s.replicas[0].log[msg.offset],), hw=len(s.replicas[0].log))
    replicas = tuple(new if i == msg.to else x for i, x in enumerate(s.replicas))
    return s._replace(replicas=replicas, inflight=s.inflight - {msg})


@invariant("HwWithinLog", "A follower's high watermark never passes its log.")
def hw_within_log(c, s):
    return all(r.hw <= len(r.log) for r in s.replicas)


SPEC = Spec(name="nested-records", title="records in records and frozensets of records", constants=Config,
            init=init, actions=[write, send, deliver], invariants=[hw_within_log], deadlock_expected=True)
