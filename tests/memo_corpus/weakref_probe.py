"""``weakref.ref(part)`` in ``try``/``except TypeError``: tuples and ints cannot be weakly referenced.

A newcomer who caches by weak reference learns that ``weakref.ref(())``
raises ``TypeError``.  A stand-in object may well accept a weak reference,
so the ``except`` branch the spec's code always takes would be skipped on
the fast path.
"""

import weakref
from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    Limit: int = constant(2, "the largest counter", minimum=1, maximum=4)


class State(NamedTuple):
    counter: int
    fallbacks: int


def init(c):
    return [State(counter=0, fallbacks=0)]


@action("Bump")
def bump(c, s):
    if s.counter >= c.Limit:
        return None
    try:
        weakref.ref(s.counter)
        fallbacks = s.fallbacks
    except TypeError:
        fallbacks = s.fallbacks + 1
    return State(s.counter + 1, fallbacks)


@invariant("NoFallback", "No counter needs the fallback twice.")
def no_fallback(c, s):
    return s.fallbacks < 2


SPEC = Spec(name="weakref-probe", title="weakref of a part", constants=Config, init=init, actions=[bump],
            invariants=[no_fallback], deadlock_expected=True)
