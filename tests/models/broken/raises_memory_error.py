"""A spec whose action raises MemoryError on the third state: its own error, not the machine running out."""

import attrs

from modelcheck import Spec, action, constant


@attrs.frozen
class C:
    N: int = constant(5, "bound", minimum=0, maximum=10)


@action("Step")
def step(c, s):
    if s == 2:
        raise MemoryError
    return s + 1 if s < c.N else None


SPEC = Spec(name="memory", title="raises MemoryError in an action", constants=C, init=lambda c: [0],
            actions=[step], deadlock_expected=True)
