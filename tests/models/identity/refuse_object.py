"""An instance of a plain class compares and hashes by identity, so equal-looking states would never merge and a
fingerprint would differ between processes: refused in one line, exit 2."""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, invariant



class Thing:
    pass


BAD = (Thing(),)


@attrs.frozen
class C:
    pass


class S(NamedTuple):
    v: object
    phase: int


def init(c):
    return [S(0, 0)]


@action("Step")
def step(c, s):
    if s.phase == 0:
        return S(1, 1)
    if s.phase == 1:
        return S(BAD, 2)
    return None


@invariant("Ok", "Always true.")
def ok(c, s):
    return True


SPEC = Spec(name="identity-refuse-object", title="an object in a state", constants=C, init=init, actions=[step], invariants=[ok],
            deadlock_expected=True)
