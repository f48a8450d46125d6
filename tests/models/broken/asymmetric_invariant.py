"""A spec with replica symmetry and an invariant that singles out replica 0 (unsound with --symmetry)."""

import attrs

from modelcheck import Domain, Spec, Symmetry, action, constant, invariant


@attrs.frozen
class C:
    N: int = constant(2, "replicas", minimum=1, maximum=4)


R = Domain("replica", lambda c: range(c.N), lambda r: f"r{r + 1}")


@action("Bump", replica=R)
def bump(c, s, replica):
    return s[:replica] + (1,) + s[replica + 1:] if s[replica] == 0 else None


@invariant("FirstNeverBumped")
def first_never_bumped(c, s):
    return s[0] == 0


def permute(c, s, perm):
    out = [0] * len(perm)
    for i, v in enumerate(s):
        out[perm[i]] = v
    return tuple(out)


SPEC = Spec(name="asymmetric", title="asymmetric invariant", constants=C, init=lambda c: [(0,) * c.N],
            actions=[bump], invariants=[first_never_bumped], symmetry=Symmetry(lambda c: c.N, permute),
            deadlock_expected=True)
