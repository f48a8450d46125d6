"""Two answers that follow the order in which a set of strs iterates, which string hashing decides per process.

``RM`` is a set constant of model values, as TLA+'s ``RM = {r1, r2, r3}``
reads; ``Next`` takes the first manager not yet done, so which one acts
first follows the process's string hashing.  With ``Where=state`` the set
lives in the state instead, and ``Serve`` takes its first member.  The
checker must refuse both, in every process, whatever the hash seed.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

NAMES = frozenset({"r1", "r2", "r3", "r4", "r5"})


@attrs.frozen
class Config:
    RM: frozenset = constant(NAMES, "resource managers")
    Where: str = constant("constant", "where the set is iterated: constant or state")


class S(NamedTuple):
    waiting: frozenset
    order: tuple


def init(c):
    return [S(NAMES if c.Where == "state" else frozenset(), ())]


@action("Next")
def next_rm(c, s):
    if c.Where != "constant":
        return None
    for r in c.RM:
        if r not in s.waiting:
            return S(s.waiting | {r}, s.order + (r,))
    return None


@action("Serve")
def serve(c, s):
    if c.Where != "state":
        return None
    for who in s.waiting:
        return S(s.waiting - {who}, s.order + (who,))
    return None


@invariant("R1NotFirst", "r1 never comes first")
def r1_not_first(c, s):
    return s.order[:1] != ("r1",)


SPEC = Spec(name="str-set-order", title="order of a set of strs", constants=Config, init=init,
            actions=[next_rm, serve], invariants=[r1_not_first], deadlock_expected=True)
