"""Signature keys that mix ints and floats near 2**53, where a float cannot hold every int.

A process's stamp is ``2**53 + v``, kept exact (an int) or rounded (a
float).  ``float(2**53 + 1) == 2**53``, so a rounded stamp at ``v = 1`` ties
with ``v = 0``, while the exact ``2**53 + 1`` is strictly between: keys a
fast path that compared them as doubles would tie wrongly.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, Symmetry, action, constant, invariant

EXPECTED = "violated"
BASE = 2 ** 53


@attrs.frozen
class Config:
    N: int = constant(3, "processes", minimum=2, maximum=4)


class State(NamedTuple):
    v: tuple
    exact: tuple
    """Per process: whether its stamp is kept as an int (True) or rounded to a float."""


P = Domain("p", lambda c: range(c.N), lambda p: f"p{p}")


def at(t, p, x):
    return t[:p] + (x,) + t[p + 1:]


def init(c):
    return [State((0,) * c.N, (True,) * c.N)]


@action("Tick", p=P)
def tick(c, s, p):
    if s.v[p] >= 2:
        return None
    return s._replace(v=at(s.v, p, s.v[p] + 1))


@action("Round", p=P)
def round_off(c, s, p):
    if not s.exact[p]:
        return None
    return s._replace(exact=at(s.exact, p, False))


@invariant("SomeExact", "Not every process has ticked twice and been rounded.")
def some_exact(c, s):
    return not all(v == 2 and not e for v, e in zip(s.v, s.exact))


def permute(c, s, perm):
    v, exact = [0] * c.N, [True] * c.N
    for i in range(c.N):
        v[perm[i]], exact[perm[i]] = s.v[i], s.exact[i]
    return State(tuple(v), tuple(exact))


def signature(c, s, p):
    stamp = BASE + s.v[p]
    return stamp if s.exact[p] else float(stamp)


SPEC = Spec(name="big-int-float-keys", title="int and float keys near 2**53", constants=Config, init=init,
            actions=[tick, round_off], invariants=[some_exact],
            symmetry=Symmetry(lambda c: c.N, permute, signature), deadlock_expected=True)
