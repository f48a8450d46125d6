"""A spec whose action raises on the third state (for the CLI error-path tests)."""

import attrs

from modelcheck import Spec, action, constant


@attrs.frozen
class C:
    N: int = constant(5, "bound", minimum=0, maximum=10)


@action("Step")
def step(c, s):
    if s == 2:
        return {}["missing"]
    return s + 1 if s < c.N else None


SPEC = Spec(name="raises", title="raises in an action", constants=C, init=lambda c: [0], actions=[step],
            deadlock_expected=True)
