"""Signature keys that are tuples holding one shared NaN object, ``UNKNOWN = float("nan")``.

Tuples compare their items by identity first, so ``(UNKNOWN, 0) ==
(UNKNOWN, 0)`` (a tie) although ``UNKNOWN != UNKNOWN``; against a rate
``(0.5, 2)`` neither is smaller.  Four processes.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, Symmetry, action, constant, invariant

EXPECTED = "violated"
UNKNOWN = float("nan")


@attrs.frozen
class Config:
    N: int = constant(4, "processes", minimum=2, maximum=4)
    Tries: int = constant(2, "tries per process", minimum=1, maximum=3)


class State(NamedTuple):
    hits: tuple
    tries: tuple
    flagged: tuple
    """Per process: flagged by an operator (the key ignores it)."""


P = Domain("p", lambda c: range(c.N), lambda p: f"p{p}")


def at(t, p, v):
    return t[:p] + (v,) + t[p + 1:]


def init(c):
    return [State((0,) * c.N, (0,) * c.N, (False,) * c.N)]


@action("Miss", p=P)
def miss(c, s, p):
    if s.tries[p] >= c.Tries:
        return None
    return s._replace(tries=at(s.tries, p, s.tries[p] + 1))


@action("Hit", p=P)
def hit(c, s, p):
    if s.tries[p] >= c.Tries or s.flagged[p]:
        return None
    return s._replace(hits=at(s.hits, p, s.hits[p] + 1), tries=at(s.tries, p, s.tries[p] + 1))


@action("Flag", p=P)
def flag(c, s, p):
    if s.flagged[p] or sum(s.flagged) >= 2:
        return None
    return s._replace(flagged=at(s.flagged, p, True))


@invariant("NotTwoFlaggedFailures", "No two flagged processes have both used every try without a hit.")
def not_two_flagged_failures(c, s):
    return sum(f and t == c.Tries and h == 0 for h, t, f in zip(s.hits, s.tries, s.flagged)) < 2


def permute(c, s, perm):
    hits, tries, flagged = [0] * c.N, [0] * c.N, [False] * c.N
    for i in range(c.N):
        j = perm[i]
        hits[j], tries[j], flagged[j] = s.hits[i], s.tries[i], s.flagged[i]
    return State(tuple(hits), tuple(tries), tuple(flagged))


def signature(c, s, p):
    rate = s.hits[p] / s.tries[p] if s.tries[p] else UNKNOWN
    return (rate, s.tries[p])


SPEC = Spec(name="nan-in-tuple-keys", title="keys holding a shared NaN", constants=Config, init=init,
            actions=[miss, hit, flag], invariants=[not_two_flagged_failures],
            symmetry=Symmetry(lambda c: c.N, permute, signature), deadlock_expected=True)
