"""``match`` on a dict built from parts, with mapping patterns and a guard.

Building a small dict of the interesting parts and matching it
(``case {"leader": -1}:``, ``case {"term": t} if t > 1:``) reads only the
keys each pattern names, in order.  A stand-in value inside the dict must
compare as the value does.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "violated"
REPLICA = Domain("replica", lambda c: range(2), lambda r: f"r{r + 1}")


@attrs.frozen
class Config:
    Terms: int = constant(3, "elections", minimum=1, maximum=4)


class State(NamedTuple):
    leader: int
    term: int
    odd: int


def init(c):
    return [State(leader=-1, term=0, odd=0)]


@action("Elect", replica=REPLICA)
def elect(c, s, replica):
    if s.leader != -1 or s.term >= c.Terms:
        return None
    return s._replace(leader=replica, term=s.term + 1)


@action("Crash")
def crash(c, s):
    if s.leader == -1:
        return None
    return s._replace(leader=-1)


@action("Watch")
def watch(c, s):
    match {"leader": s.leader, "term": s.term}:
        case {"leader": -1}:
            return None
        case {"leader": 1, "term": t} if t > 1 and s.odd == 0:
            return s._replace(odd=t)
        case _:
            return None


@invariant("FirstReplicaLeadsLate", "The second replica never leads after the first term.")
def first_leads_late(c, s):
    return s.odd == 0


SPEC = Spec(name="match-mapping", title="match with mapping patterns", constants=Config, init=init,
            actions=[elect, crash, watch], invariants=[first_leads_late], deadlock_expected=True)
