"""A spec whose states are lists: unhashable (for the CLI error-path tests)."""

import attrs

from modelcheck import Spec, action, constant


@attrs.frozen
class C:
    N: int = constant(2, "bound", minimum=0, maximum=10)


@action("Step")
def step(c, s):
    return [s[0] + 1] if s[0] < c.N else None


SPEC = Spec(name="list-state", title="list states", constants=C, init=lambda c: [[0]], actions=[step])
