"""Values whose hashes collide: ``hash(-1) == hash(-2)`` and ``hash(2**61 - 1) == hash(0)`` in CPython.

``-1`` is the usual "no leader" and ``-2`` an ordinary second sentinel; big
ints appear in counters and masks.  Two states that differ only in such a
value are different states, although ``hash()`` cannot tell them apart.  A
table keyed on a part's hash alone, or a fingerprint of the whole state
with nothing else to separate them, merges them and loses the successors
of the second.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"
NO_LEADER = -1
RESIGNED = -2
BIG = 2**61 - 1


@attrs.frozen
class Config:
    Terms: int = constant(1, "elections", minimum=1, maximum=2)


class State(NamedTuple):
    leader: int
    mask: int
    term: int
    alarm: int


def init(c):
    return [State(leader=NO_LEADER, mask=0, term=0, alarm=0)]


@action("Resign")
def resign(c, s):
    if s.leader != NO_LEADER:
        return None
    return s._replace(leader=RESIGNED)


@action("Fill")
def fill(c, s):
    if s.mask:
        return None
    return s._replace(mask=BIG)


@action("Elect")
def elect(c, s):
    if s.leader >= 0 or s.term >= c.Terms:
        return None
    return s._replace(leader=0, term=s.term + 1)


@action("Watch")
def watch(c, s):
    if s.alarm:
        return None
    if s.leader == RESIGNED and s.mask == BIG:
        return s._replace(alarm=1)
    return None


@invariant("NeverResignedAndFull", "No state both resigned and full.")
def never_resigned_and_full(c, s):
    return s.alarm == 0


SPEC = Spec(name="hash-collision", title="-1/-2 and 0/2**61-1", constants=Config, init=init,
            actions=[resign, fill, elect, watch], invariants=[never_resigned_and_full], deadlock_expected=True)
