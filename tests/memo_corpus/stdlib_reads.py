"""Reads through the standard library: ``math.prod``, ``collections.Counter``, ``zip(*logs)``.

``math.prod`` and ``Counter`` read a part inside C code;
``zip(*s.logs)`` transposes a tuple of logs.  A fast path must see each as
a read of the items it looked at, not as one opaque call.  (``bisect``
and ``heapq`` are left out: a fast path may refuse them, which would hide
the others.)
"""

import math
from collections import Counter
from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "violated"
REPLICA = Domain("replica", lambda c: range(2), lambda r: f"r{r + 1}")
VALUE = Domain("value", lambda c: range(1, 4), str)


@attrs.frozen
class Config:
    Length: int = constant(2, "the longest log", minimum=1, maximum=3)


class State(NamedTuple):
    logs: tuple
    code: int


def init(c):
    return [State(logs=((), ()), code=-1)]


@action("Append", replica=REPLICA, value=VALUE)
def append(c, s, replica, value):
    log = s.logs[replica]
    if len(log) >= c.Length or (log and log[-1] > value):
        return None
    return s._replace(logs=tuple(log + (value,) if r == replica else x for r, x in enumerate(s.logs)))


@action("Encode")
def encode(c, s):
    first, second = s.logs
    where = sum(1 for v in first if v < 2)
    low = sorted(second)[:1]
    pairs = list(zip(*s.logs))
    common = Counter(first + second).most_common(1)
    code = where + 10 * (low[0] if low else 0) + 100 * len(pairs) + 1000 * (math.prod(first) % 5)
    code += 10000 * (common[0][1] if common else 0)
    if code == s.code:
        return None
    return s._replace(code=code)


@invariant("NoFullMatch", "No state encodes two pairs with a product of 4 and a triple.")
def no_full_match(c, s):
    return not (s.code // 100 % 10 == 2 and s.code // 1000 % 10 == 4 and s.code // 10000 == 3)


SPEC = Spec(name="stdlib-reads", title="reads through math, Counter and zip", constants=Config,
            init=init, actions=[append, encode], invariants=[no_full_match], deadlock_expected=True)
