"""An invariant that returns a generator (``all(`` forgotten): it must stop the check, never pass.

The intended predicate, every replica's high watermark within its log, fails
in the initial state (HW 1 on an empty log), so a check that took the
generator for "true" would wrongly say the model holds.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant


@attrs.frozen
class C:
    Replicas: int = constant(2, "replicas", minimum=1, maximum=3)


class S(NamedTuple):
    logs: tuple
    hws: tuple


REPLICA = Domain("replica", lambda c: range(c.Replicas), lambda r: f"r{r + 1}")


@action("Append")
def append(c, s):
    if len(s.logs[0]) >= 2:
        return None
    return s._replace(logs=(s.logs[0] + (1,),) + s.logs[1:])


@action("Fetch", follower=REPLICA)
def fetch(c, s, follower):
    if follower == 0 or len(s.logs[follower]) >= len(s.logs[0]):
        return None
    logs = s.logs[:follower] + (s.logs[0][:len(s.logs[follower]) + 1],) + s.logs[follower + 1:]
    return s._replace(logs=logs)


@invariant("HwWithinLog")
def hw_within_log(c, s):
    return (hw <= len(log) for hw, log in zip(s.hws, s.logs))


SPEC = Spec(name="invariant-generator", title="an invariant returning a generator", constants=C,
            init=lambda c: [S(((),) * c.Replicas, (1,) * c.Replicas)], actions=[append, fetch],
            invariants=[hw_within_log], deadlock_expected=True)
