"""Big ints in states: a bitmask past 64 bits, negative values, ``int.bit_length`` and ``bin``.

Python ints are unbounded and hash modulo ``2**61 - 1``; a membership mask
over replicas and offsets easily passes 64 bits.  A fast path that packs
part values into machine words, or keys a table on their hash, must still
tell ``2**64`` from ``0`` and ``2**61`` from ``1``.

An int of any size is a state value; the fingerprint must keep it apart
from every other int, as Python's hash does not.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "violated"
BIT = Domain("bit", lambda c: (0, 61, 64), str)


@attrs.frozen
class Config:
    Bits: int = constant(2, "bits set in all", minimum=1, maximum=3)


class State(NamedTuple):
    mask: int
    debt: int


def init(c):
    return [State(mask=0, debt=0)]


@action("Set", bit=BIT)
def set_bit(c, s, bit):
    if s.mask >> bit & 1 or bin(s.mask).count("1") >= c.Bits:
        return None
    return s._replace(mask=s.mask | (1 << bit))


@action("Borrow")
def borrow(c, s):
    if s.debt <= -(2**62):
        return None
    return s._replace(debt=s.debt - 2**62)


@action("Audit")
def audit(c, s):
    if s.mask.bit_length() == 65 and s.debt < 0 and s.mask & 1 == 0:
        return s._replace(mask=0, debt=1)
    return None


@invariant("NoHighBitDebt", "The 64th bit is never set alone while in debt.")
def no_high_bit_debt(c, s):
    return s.debt <= 0


SPEC = Spec(name="big-ints", title="ints past 64 bits", constants=Config, init=init,
            actions=[set_bit, borrow, audit], invariants=[no_high_bit_debt], deadlock_expected=True)
