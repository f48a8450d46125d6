"""A spec whose invariant raises on the fourth state (for the CLI error-path tests)."""

import attrs

from modelcheck import Spec, action, constant, invariant


@attrs.frozen
class C:
    N: int = constant(5, "bound", minimum=0, maximum=10)


@action("Step")
def step(c, s):
    return s + 1 if s < c.N else None


@invariant("Small")
def small(c, s):
    return 10 // (3 - s) >= 0


SPEC = Spec(name="raises-inv", title="raises in an invariant", constants=C, init=lambda c: [0], actions=[step],
            invariants=[small], deadlock_expected=True)
