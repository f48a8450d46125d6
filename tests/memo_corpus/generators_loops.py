"""A generator function of the spec consumed by ``next`` and ``sum``, and a ``while`` loop whose length a part sets.

``def positions(log, v): for i, x in enumerate(log): if x == v: yield i``
is read lazily: ``next(positions(...), -1)`` stops at the first match, so
it reads a prefix whose length depends on the values.  The ``while`` loop
runs as many times as a part says.  A fast path must record exactly what
was consumed.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "violated"
VALUE = Domain("value", lambda c: range(3), str)


def positions(log, v):
    for i, x in enumerate(log):
        if x == v:
            yield i


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
    first_two = next(positions(s.log, 2), -1)
    ones = sum(1 for _ in positions(s.log, 1))
    steps, i = 0, 0
    while i < len(s.log) and s.log[i] != 0:
        steps += 1
        i += 1
    code = (first_two + 1) + 10 * ones + 100 * steps
    if code == s.code:
        return None
    return s._replace(code=code)


@invariant("NoLateTwo", "No log is two ones and then a 2.")
def no_late_two(c, s):
    return s.code != 323


SPEC = Spec(name="generators-loops", title="a generator and a while loop", constants=Config, init=init,
            actions=[append, encode], invariants=[no_late_two], deadlock_expected=True)
