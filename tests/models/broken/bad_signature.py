"""A spec whose symmetry signature names the replica's own index, so renaming does not carry it along."""

import attrs

from modelcheck import Domain, Spec, Symmetry, action, constant, invariant


@attrs.frozen
class C:
    N: int = constant(3, "replicas", minimum=1, maximum=4)


R = Domain("replica", lambda c: range(c.N), lambda r: f"r{r + 1}")


@action("Bump", replica=R)
def bump(c, s, replica):
    return s[:replica] + (s[replica] + 1,) + s[replica + 1:] if s[replica] < 2 else None


@invariant("Bounded")
def bounded(c, s):
    return all(v <= 2 for v in s)


def permute(c, s, perm):
    out = [0] * len(perm)
    for i, v in enumerate(s):
        out[perm[i]] = v
    return tuple(out)


def signature(c, s, i):
    return (s[i], i)  # wrong: the index itself is not carried along by a renaming


SPEC = Spec(name="bad-signature", title="symmetry signature that is not carried along", constants=C,
            init=lambda c: [(0,) * c.N], actions=[bump], invariants=[bounded],
            symmetry=Symmetry(lambda c: c.N, permute, signature), deadlock_expected=True)
