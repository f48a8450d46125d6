"""A dict built locally from state parts and iterated; keys that are equal values collapse.

Counting with a dict (``counts[v] = counts.get(v, 0) + 1``) and reading it
back in insertion order is ordinary.  With ``0``/``False`` or ``1``/``True``
among the keys, the first key written stays (``{1: "a", True: "b"}`` is
``{1: "b"}``).  Here all values are ints; what matters is that the
iteration order follows the log, so the answer reads every item in order.
"""

from collections import Counter
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
    first_dup: int


def init(c):
    return [State(log=(), first_dup=-1)]


@action("Append", value=VALUE)
def append(c, s, value):
    if len(s.log) >= c.Length:
        return None
    return s._replace(log=s.log + (value,))


@action("Tally")
def tally(c, s):
    counts = {}
    for v in s.log:
        counts[v] = counts.get(v, 0) + 1
    dups = [v for v, n in counts.items() if n > 1]
    common = Counter(s.log).most_common(1)
    first = dups[0] * 10 + common[0][0] if dups else -1
    if first == s.first_dup:
        return None
    return s._replace(first_dup=first)


@invariant("NoTwoDup", "The first duplicated value is never 2 with 2 most common.")
def no_two_dup(c, s):
    return s.first_dup != 22


SPEC = Spec(name="local-dict", title="a local dict and Counter", constants=Config, init=init,
            actions=[append, tally], invariants=[no_two_dup], deadlock_expected=True)
