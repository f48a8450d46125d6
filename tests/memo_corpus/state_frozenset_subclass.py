"""A state part that is a subclass of ``frozenset`` (an empty one: ``class Ids(frozenset)``).

Equal to the frozenset of the same elements, yet another type: the checker
refuses it before the search on every path, naming the builtin it
subclasses, since a state holds plain values whose equality and fingerprint
are the values'.  (The message once said the class defined ``__eq__``: the
check read ``frozenset``'s own.)
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "error"


class Ids(frozenset):
    __slots__ = ()


@attrs.frozen
class Config:
    Limit: int = constant(2, "the largest id", minimum=1, maximum=3)


class State(NamedTuple):
    ids: frozenset


def init(c):
    return [State(Ids())]


@action("Add")
def add(c, s):
    n = len(s.ids)
    return State(Ids(s.ids | {n})) if n < c.Limit else None


@invariant("Small", "at most Limit ids")
def small(c, s):
    return len(s.ids) <= c.Limit


SPEC = Spec(name="state-frozenset-subclass", title="a frozenset subclass in the state", constants=Config,
            init=init, actions=[add], invariants=[small], deadlock_expected=True)
