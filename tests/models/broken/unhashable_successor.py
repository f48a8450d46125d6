"""A spec whose action produces a state holding a list: unhashable (for the error-path tests).

Level 2 holds (1,) and (10,), in that order; only the second parent's successor
is bad, so an engine must stop at the right parent of its batch.
"""

import attrs

from modelcheck import Spec, action, constant


@attrs.frozen
class C:
    N: int = constant(5, "bound", minimum=0, maximum=10)


@action("Step")
def step(c, s):
    if s[0] == 10:
        return (2, [0])  # a list inside the state: refused
    return (s[0] + 1,) if s[0] < c.N else None


@action("Other")
def other(c, s):
    return (s[0] + 10,) if s[0] < 1 else None


SPEC = Spec(name="unhashable", title="an unhashable successor", constants=C, init=lambda c: [(0,)],
            actions=[step, other], deadlock_expected=True)
