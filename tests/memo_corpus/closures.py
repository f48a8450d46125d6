"""Nested functions and closures over parts, a lambda as a default argument, class-level constants, recursion.

Helpers defined inside an action capture the state's parts; a default
``key=lambda v: -v`` is built once at import; a class attribute holds a
table; a recursive helper walks a log.  All pure, all ordinary.  A fast
path that follows the functions an action calls has to follow these too,
with the captured parts still recorded as read.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "violated"
REPLICA = Domain("replica", lambda c: range(2), lambda r: f"r{r + 1}")


class Rules:
    WEIGHTS = (3, 1, 2)
    LIMIT = 5


@attrs.frozen
class Config:
    Length: int = constant(2, "the longest log", minimum=1, maximum=3)


class State(NamedTuple):
    logs: tuple
    score: int


def init(c):
    return [State(logs=((), ()), score=0)]


def best(values, key=lambda v: -v):
    return min(values, key=key) if values else 0


def weight(log):
    if not log:
        return 0
    return Rules.WEIGHTS[log[0]] + weight(log[1:])


@action("Write", replica=REPLICA)
def write(c, s, replica):
    log = s.logs[replica]
    if len(log) >= c.Length:
        return None

    def extended(value):
        return log + (value,)

    value = best([v for v in range(3) if v != replica])
    logs = tuple(extended(value) if r == replica else s.logs[r] for r in range(2))
    return s._replace(logs=logs)


@action("Score")
def score(c, s):
    total = sum(map(weight, s.logs))
    if total == s.score:
        return None
    return s._replace(score=total)


@invariant("ScoreBelowLimit", "The score stays below the limit.")
def score_below(c, s):
    return s.score <= Rules.LIMIT


SPEC = Spec(name="closures", title="closures, default lambdas, class constants, recursion", constants=Config,
            init=init, actions=[write, score], invariants=[score_below], deadlock_expected=True)
