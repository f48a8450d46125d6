"""``any()`` over ``zip`` of the replicas' records, stopping at the first replica whose HW fell.

The replicas are a fixed-length tuple of records, so each field of each
replica is a part of its own.  ``any`` stops at the first match: replicas
after it are not read.  Only the last replica's HW ever falls (``Reload``,
once its HW reached 2 and the leader's epoch was bumped), so a step is
decided by every replica's fields.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, step_property

EXPECTED = "violated"
PROPERTY = "HwNeverFalls"
REPLICA = Domain("replica", lambda c: range(c.Replicas), lambda r: f"r{r + 1}")


@attrs.frozen
class Config:
    Replicas: int = constant(4, "replicas", minimum=2, maximum=5)
    Top: int = constant(3, "the largest HW", minimum=1, maximum=4)


class Replica(NamedTuple):
    hw: int
    epoch: int


class State(NamedTuple):
    replicas: tuple


def init(c):
    return [State(replicas=(Replica(0, 0),) * c.Replicas)]


@action("Advance", replica=REPLICA)
def advance(c, s, replica):
    rep = s.replicas[replica]
    if rep.hw >= c.Top:
        return None
    reps = list(s.replicas)
    reps[replica] = rep._replace(hw=rep.hw + 1)
    return State(tuple(reps))


@action("Bump")
def bump(c, s):
    lead = s.replicas[0]
    if lead.epoch >= 1:
        return None
    return State((lead._replace(epoch=1),) + s.replicas[1:])


@action("Reload")
def reload(c, s):
    last = s.replicas[-1]
    if s.replicas[0].epoch == 0 or last.hw < c.Top:
        return None
    return State(s.replicas[:-1] + (last._replace(hw=0),))


@step_property("HwNeverFalls", "No replica's HW falls in a step.")
def hw_never_falls(c, s, t):
    return not any(b.hw < a.hw for a, b in zip(s.replicas, t.replicas))


SPEC = Spec(name="any-early-exit", title="any() over the replicas in a step", constants=Config, init=init,
            actions=[advance, bump, reload], properties=[hw_never_falls], deadlock_expected=True)
