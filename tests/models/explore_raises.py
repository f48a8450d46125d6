"""A counter whose invariant (Fails=1) or lanes hook (Fails=2) raises at 2: for the explorer's error answers."""

import attrs

from modelcheck import Spec, action, constant, invariant


@attrs.frozen
class C:
    Fails: int = constant(1, "1: the invariant raises at 2; 2: the lanes hook raises at 2", minimum=1, maximum=2)


@action("Step")
def step(c, s):
    return s + 1 if s < 3 else None


@invariant("Small")
def small(c, s):
    if c.Fails == 1 and s == 2:
        raise ZeroDivisionError("the invariant fails at 2")
    return True


def lanes(c, s):
    if c.Fails == 2 and s == 2:
        raise KeyError("the lanes hook fails at 2")
    return {"r1": {"value": s}}


SPEC = Spec(name="explore-raises", title="raises in the explorer", constants=C, init=lambda c: [0], actions=[step],
            invariants=[small], lanes=lanes, deadlock_expected=True)
