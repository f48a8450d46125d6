"""Integer builtins and methods on parts: ``divmod``, ``pow(x, y, m)``, ``x.bit_length()``, bit operations, ``abs``.

Each result depends on the whole value in ways a comparison-based record
of reads does not capture (``(x >> 1) & 1`` reads one bit,
``x.bit_length()`` a range).  A fast path must either treat these as full
reads of the value or run them on the value itself; a stand-in that
returns its recorded value's answer for an equal-looking other value gives
the wrong successor.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    Limit: int = constant(12, "the largest counter", minimum=4, maximum=40)


class State(NamedTuple):
    counter: int
    code: int


def init(c):
    return [State(counter=1, code=0)]


@action("Grow")
def grow(c, s):
    if s.counter * 3 > c.Limit:
        return None
    return s._replace(counter=s.counter * 3)


@action("Shift")
def shift(c, s):
    if s.counter + 2 > c.Limit:
        return None
    return s._replace(counter=s.counter + 2)


@action("Encode")
def encode(c, s):
    q, r = divmod(s.counter, 4)
    code = pow(s.counter, 3, 7) + 10 * ((s.counter >> 1) & 1) + 100 * s.counter.bit_length() + 1000 * abs(r - q)
    code ^= ~s.counter & 0
    if code == s.code:
        return None
    return s._replace(code=code)


@invariant("CodeBelow", "No encoded counter reaches 3000.")
def code_below(c, s):
    return s.code < 3000


SPEC = Spec(name="arithmetic", title="integer builtins on parts", constants=Config, init=init,
            actions=[grow, shift, encode], invariants=[code_below], deadlock_expected=True)
