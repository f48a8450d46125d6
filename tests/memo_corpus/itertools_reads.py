"""Reads through ``itertools`` and ``functools.reduce``: ``accumulate``, ``groupby``, ``pairwise``, ``chain``.

Each consumes the log lazily, item by item, inside C code.  What the
answer depends on (every item, in order) is read by the iterator, not by
the action; a fast path must record those reads as if the action had
indexed each item.
"""

import functools
import itertools
from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "violated"
VALUE = Domain("value", lambda c: range(3), str)


@attrs.frozen
class Config:
    Length: int = constant(3, "the longest log", minimum=1, maximum=4)


class State(NamedTuple):
    log: tuple
    code: int


def init(c):
    return [State(log=(), code=-1)]


@action("Append", value=VALUE)
def append(c, s, value):
    if len(s.log) >= c.Length:
        return None
    return s._replace(log=s.log + (value,))


@action("Encode")
def encode(c, s):
    running = list(itertools.accumulate(s.log))
    runs = [len(list(g)) for _, g in itertools.groupby(s.log)]
    rises = sum(1 for a, b in itertools.pairwise(s.log) if b > a)
    packed = functools.reduce(lambda acc, v: acc * 3 + v, itertools.chain(s.log, (0,)), 0)
    code = (running[-1] if running else 0) + 10 * max(runs, default=0) + 100 * rises + 1000 * (packed % 7)
    if code == s.code:
        return None
    return s._replace(code=code)


@invariant("NoDoubleRise", "No log rises twice with a packed remainder of 1.")
def no_double_rise(c, s):
    return not (s.code // 100 % 10 == 2 and s.code // 1000 == 1)


SPEC = Spec(name="itertools-reads", title="reads through itertools and reduce", constants=Config, init=init,
            actions=[append, encode], invariants=[no_double_rise], deadlock_expected=True)
