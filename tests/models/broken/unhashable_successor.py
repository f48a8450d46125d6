"""A spec whose third state holds a list: unhashable, produced by an action (for the error-path tests)."""

import attrs

from modelcheck import Spec, action, constant


@attrs.frozen
class C:
    N: int = constant(5, "bound", minimum=0, maximum=10)


@action("Step")
def step(c, s):
    if s[0] == 1:
        return (2, [0])  # a list inside the state: refused
    return (s[0] + 1,) if s[0] < c.N else None


@action("Other")
def other(c, s):
    return (s[0] + 10,) if s[0] < 1 else None


SPEC = Spec(name="unhashable", title="an unhashable successor", constants=C, init=lambda c: [(0,)],
            actions=[step, other], deadlock_expected=True)
