"""Pure helpers decorated ``@functools.lru_cache`` and ``@functools.cache``, called on state parts.

Caching a pure helper is ordinary advice for speed.  On a cache hit the
helper's body does not run, so nothing inside it reads the argument: only
the cache's own ``hash()`` and ``==`` on the argument do.  A fast path that
records reads inside the body, or leaves a stand-in as a key in the cache,
misses the read (the cache is filled by whichever search ran first in the
process) and reuses a result for a log it never compared.
"""

import functools
from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "violated"
VALUE = Domain("value", lambda c: range(2), str)


@attrs.frozen
class Config:
    Length: int = constant(3, "the longest log", minimum=1, maximum=4)


class State(NamedTuple):
    log: tuple
    ones: int
    alarm: int


@functools.lru_cache(maxsize=None)
def ones_in(log):
    return sum(1 for v in log if v == 1)


@functools.cache
def alternating(log):
    return len(log) >= 3 and all(a != b for a, b in zip(log, log[1:]))


def init(c):
    return [State(log=(), ones=0, alarm=0)]


@action("Append", value=VALUE)
def append(c, s, value):
    if len(s.log) >= c.Length:
        return None
    log = s.log + (value,)
    return s._replace(log=log, ones=ones_in(log))


@action("Check")
def check(c, s):
    if s.alarm or not alternating(s.log) or ones_in(s.log) != 2:
        return None
    return s._replace(alarm=1)


@invariant("NoAlternatingOnes", "No alternating log holds two ones.")
def no_alternating_ones(c, s):
    return s.alarm == 0


SPEC = Spec(name="cache-lru", title="lru_cache and cache on helpers", constants=Config, init=init,
            actions=[append, check], invariants=[no_alternating_ones], deadlock_expected=True)
