"""A module-level memo dict filled by a helper, and a mutable default argument used as a cache.

``_DISTANCE`` maps a pair of logs to how far apart they are;
``def depth(log, _memo={})`` keeps its own.  Both are pure (a value is
computed once per key and never changes) and both are the classic
hand-written memo.  On a hit the helper reads nothing but the key's hash
and equality; a fast path that expects the reads inside the helper, or
stores a stand-in as a key, reuses a distance for another pair.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "violated"
REPLICA = Domain("replica", lambda c: range(2), lambda r: f"r{r + 1}")
VALUE = Domain("value", lambda c: range(2), str)
_DISTANCE = {}


def distance(a, b):
    key = (a, b)
    if key not in _DISTANCE:
        same = 0
        while same < min(len(a), len(b)) and a[same] == b[same]:
            same += 1
        _DISTANCE[key] = len(a) + len(b) - 2 * same
    return _DISTANCE[key]


def depth(log, _memo={}):
    if log not in _memo:
        _memo[log] = len(log) + sum(log)
    return _memo[log]


@attrs.frozen
class Config:
    Length: int = constant(2, "the longest log", minimum=1, maximum=3)


class State(NamedTuple):
    logs: tuple
    worst: int


def init(c):
    return [State(logs=((), ()), worst=0)]


@action("Append", replica=REPLICA, value=VALUE)
def append(c, s, replica, value):
    log = s.logs[replica]
    if len(log) >= c.Length:
        return None
    logs = tuple(log + (value,) if r == replica else x for r, x in enumerate(s.logs))
    return s._replace(logs=logs)


@action("Measure")
def measure(c, s):
    worst = distance(s.logs[0], s.logs[1]) * 10 + depth(s.logs[0])
    if worst == s.worst:
        return None
    return s._replace(worst=worst)


@invariant("CloseLogs", "The logs never diverge completely with a deep first log.")
def close_logs(c, s):
    return s.worst < 43


SPEC = Spec(name="cache-module-dict", title="a module memo dict and a mutable default cache", constants=Config,
            init=init, actions=[append, measure], invariants=[close_logs], deadlock_expected=True)
