"""A ``@property`` and a method on the State class reading fields through ``self[i]`` and ``self.field``.

``s.leader_log`` looks like a field but is code: it reads ``self.leader``
and one item of ``self.logs``.  ``s.lag(r)`` reads by index (``self[0]``).
A fast path that treats attribute reads on the state as field reads has to
run the property's code, recording what it reads, rather than look for a
field named ``leader_log``.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "violated"
REPLICA = Domain("replica", lambda c: range(3), lambda r: f"r{r + 1}")


@attrs.frozen
class Config:
    Records: int = constant(2, "records the leader writes", minimum=1, maximum=3)


class State(NamedTuple):
    logs: tuple
    leader: int
    stale: int

    @property
    def leader_log(self):
        return self.logs[self.leader]

    def lag(self, r):
        return len(self[1 - 1][self.leader]) - len(self[0][r])


def init(c):
    return [State(logs=((), (), ()), leader=0, stale=0)]


@action("Write")
def write(c, s):
    if len(s.leader_log) >= c.Records:
        return None
    logs = tuple(log + (len(log),) if r == s.leader else log for r, log in enumerate(s.logs))
    return s._replace(logs=logs)


@action("Fetch", replica=REPLICA)
def fetch(c, s, replica):
    if s.lag(replica) <= 0:
        return None
    log = s.leader_log[:len(s.logs[replica]) + 1]
    return s._replace(logs=tuple(log if r == replica else x for r, x in enumerate(s.logs)))


@action("Failover", replica=REPLICA)
def failover(c, s, replica):
    if replica == s.leader or s.stale:
        return None
    return s._replace(leader=replica, stale=int(s.lag(replica) > 1))


@invariant("NoStaleLeader", "No replica two records behind becomes the leader.")
def no_stale_leader(c, s):
    return s.stale == 0


SPEC = Spec(name="state-property", title="a property and a method on the state class", constants=Config,
            init=init, actions=[write, fetch, failover], invariants=[no_stale_leader], deadlock_expected=True)
