"""``functools.lru_cache`` applied as a call (``peak = lru_cache(maxsize=None)(slow_peak)``), not as a decorator.

A fast path that looks for caching decorators does not see this one; the
cached function's body runs only on a miss, so on a hit nothing inside
it reads the part.
"""

import functools
from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "violated"
VALUE = Domain("value", lambda c: range(2), str)


def slow_peak(log):
    return max(log, default=0) * 10 + len(log)


peak = functools.lru_cache(maxsize=None)(slow_peak)


@attrs.frozen
class Config:
    Length: int = constant(3, "the longest log", minimum=1, maximum=4)


class State(NamedTuple):
    log: tuple
    score: int


def init(c):
    return [State(log=(), score=0)]


@action("Append", value=VALUE)
def append(c, s, value):
    if len(s.log) >= c.Length:
        return None
    return s._replace(log=s.log + (value,))


@action("Score")
def score(c, s):
    total = peak(s.log) + 100 * s.log.count(0)
    if total == s.score:
        return None
    return s._replace(score=total)


@invariant("ScoreBelow", "A full log of ones is never scored.")
def score_below(c, s):
    return s.score != 13


SPEC = Spec(name="lru-cache-call", title="lru_cache applied as a call", constants=Config, init=init,
            actions=[append, score], invariants=[score_below], deadlock_expected=True)
