"""Signature keys that differ though Python's ``hash()`` confuses them.

``hash(-1) == hash(-2)``, and every multiple of ``2**61 - 1`` hashes to 0:
the key of a process is ``-1 - x`` while it waits and ``x * (2**61 - 1)``
once it runs, so keys that hash alike are distinct (and must not tie), and
``2**64 + x`` keys of stopped processes do not fit in 64 bits.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, Symmetry, action, constant, invariant

EXPECTED = "holds"
MERSENNE = 2 ** 61 - 1


@attrs.frozen
class Config:
    N: int = constant(3, "processes", minimum=2, maximum=4)


class State(NamedTuple):
    x: tuple
    phase: tuple
    """Per process: "wait", "run" or "stop"."""


P = Domain("p", lambda c: range(c.N), lambda p: f"p{p}")
NEXT = {"wait": "run", "run": "stop"}


def at(t, p, v):
    return t[:p] + (v,) + t[p + 1:]


def init(c):
    return [State((0,) * c.N, ("wait",) * c.N)]


@action("Grow", p=P)
def grow(c, s, p):
    if s.x[p] >= 2 or s.phase[p] == "stop":
        return None
    return s._replace(x=at(s.x, p, s.x[p] + 1))


@action("Advance", p=P)
def advance(c, s, p):
    if s.phase[p] not in NEXT:
        return None
    return s._replace(phase=at(s.phase, p, NEXT[s.phase[p]]))


@invariant("Small", "Every x is at most 2.")
def small(c, s):
    return max(s.x) <= 2


def permute(c, s, perm):
    x, phase = [None] * c.N, [None] * c.N
    for i in range(c.N):
        x[perm[i]], phase[perm[i]] = s.x[i], s.phase[i]
    return State(tuple(x), tuple(phase))


def signature(c, s, p):
    if s.phase[p] == "wait":
        return -1 - s.x[p]
    if s.phase[p] == "run":
        return s.x[p] * MERSENNE
    return 2 ** 64 + s.x[p]


SPEC = Spec(name="hash-alike-keys", title="keys whose hash() collides", constants=Config, init=init,
            actions=[grow, advance], invariants=[small],
            symmetry=Symmetry(lambda c: c.N, permute, signature), deadlock_expected=True)
