"""A module-level cache filled through ``dict.setdefault``: no assignment statement.

``_WEIGHT.setdefault(log, ...)`` is a pure cache written in one line
(``lru_cache_call`` has ``functools.lru_cache`` applied as a call).  On a hit the cached value comes back without
the helper reading the part; if the key stored is a stand-in rather than
the value, later lookups compare stand-ins.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "violated"
VALUE = Domain("value", lambda c: range(2), str)
_WEIGHT = {}


def weight(log):
    return _WEIGHT.setdefault(log, sum(log) + 2 * len(log))


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
    total = weight(s.log) * 100 + len(s.log)
    if total == s.score:
        return None
    return s._replace(score=total)


@invariant("ScoreBelow", "The score of a full log of ones is never reached.")
def score_below(c, s):
    return s.score < 903


SPEC = Spec(name="cache-setdefault", title="a cache filled by setdefault", constants=Config,
            init=init, actions=[append, score], invariants=[score_below], deadlock_expected=True)
