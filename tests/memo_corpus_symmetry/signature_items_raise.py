"""A signature of several facts whose third fact divides by a count that reaches zero deep in the search.

Learnt a fact at a time, the first facts of every process are learnt
before the third raises; the run must stop on the error the spec's own code
raises, at the same parent.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, Symmetry, action, constant, invariant

EXPECTED = "error"


@attrs.frozen
class Config:
    N: int = constant(3, "processes", minimum=2, maximum=4)
    Fuel: int = constant(4, "units of fuel per process", minimum=1, maximum=6)


class State(NamedTuple):
    fuel: tuple
    moved: tuple


P = Domain("p", lambda c: range(c.N), lambda p: f"p{p}")


def init(c):
    return [State((c.Fuel,) * c.N, (0,) * c.N)]


@action("Burn", p=P)
def burn(c, s, p):
    if s.fuel[p] == 0 or sum(s.moved) < 2 * (c.Fuel - s.fuel[p]):
        return None
    return s._replace(fuel=s.fuel[:p] + (s.fuel[p] - 1,) + s.fuel[p + 1:])


@action("Move", p=P)
def move(c, s, p):
    if s.moved[p] >= 3:
        return None
    return s._replace(moved=s.moved[:p] + (s.moved[p] + 1,) + s.moved[p + 1:])


@invariant("FuelKept", "No process has more fuel than it started with.")
def fuel_kept(c, s):
    return all(f <= c.Fuel for f in s.fuel)


def permute(c, s, perm):
    fuel, moved = [0] * c.N, [0] * c.N
    for i in range(c.N):
        fuel[perm[i]], moved[perm[i]] = s.fuel[i], s.moved[i]
    return State(tuple(fuel), tuple(moved))


def signature(c, s, p):
    fuel = s.fuel
    return (s.moved[p], fuel[p], 12 // fuel[p])


SPEC = Spec(name="signature-items-raise", title="a split signature whose third fact raises",
            constants=Config, init=init, actions=[burn, move], invariants=[fuel_kept],
            symmetry=Symmetry(lambda c: c.N, permute, signature), deadlock_expected=True)
