"""A symmetry whose ``permute`` returns None on some states: a spec error (exit 2), not an orbit of its own."""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, Symmetry, action, constant, invariant


@attrs.frozen
class C:
    N: int = constant(2, "replicas", minimum=1, maximum=3)


class S(NamedTuple):
    xs: tuple


REPLICA = Domain("replica", lambda c: range(c.N), lambda r: f"r{r + 1}")


@action("Bump", replica=REPLICA)
def bump(c, s, replica):
    if s.xs[replica] >= 2:
        return None
    return S(s.xs[:replica] + (s.xs[replica] + 1,) + s.xs[replica + 1:])


@invariant("Bounded")
def bounded(c, s):
    return all(x <= 2 for x in s.xs)


def permute(c, s, perm):
    if sum(s.xs) == 3:
        return None
    xs = [0] * c.N
    for i, x in enumerate(s.xs):
        xs[perm[i]] = x
    return S(tuple(xs))


SPEC = Spec(name="symmetry-returns-none", title="a symmetry whose permute returns None", constants=C,
            init=lambda c: [S((0,) * c.N)], actions=[bump], invariants=[bounded],
            symmetry=Symmetry(lambda c: c.N, permute), deadlock_expected=True)
