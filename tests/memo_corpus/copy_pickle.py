"""``copy.copy``, a ``pickle`` round trip and the length of a part's pickle.

Defensive copies and serialising a part (to compare or to size it) are
ordinary in code written by people used to mutable data.
The pickle of a tuple grows with its items, so its length reads them all;
pickling a stand-in either fails or pickles something else.  The spec's own code uses the sizes to
decide; the fast path must agree.
"""

import copy
import pickle
from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    Length: int = constant(3, "the longest buffer", minimum=1, maximum=4)


class State(NamedTuple):
    buffer: tuple
    big: int


def init(c):
    return [State(buffer=(), big=0)]


@action("Fill")
def fill(c, s):
    if len(s.buffer) >= c.Length:
        return None
    buffer = copy.copy(s.buffer) + (len(s.buffer),)
    return s._replace(buffer=pickle.loads(pickle.dumps(buffer)))


@action("Measure")
def measure(c, s):
    big = int(len(pickle.dumps(s.buffer)) > len(pickle.dumps((0, 0))))
    if big == s.big:
        return None
    return s._replace(big=big)


@invariant("SmallBuffer", "The buffer is never measured as bigger than a pair.")
def small_buffer(c, s):
    return s.big == 0


SPEC = Spec(name="copy-pickle", title="copy and pickle of parts", constants=Config, init=init,
            actions=[fill, measure], invariants=[small_buffer], deadlock_expected=True)
