"""A spec whose action prints (for ``check --json``: what a spec prints must not reach stdout)."""

import attrs

from modelcheck import Spec, action, constant


@attrs.frozen
class C:
    N: int = constant(3, "bound", minimum=0, maximum=10)


@action("Step")
def step(c, s):
    print(f"Step from {s}")
    return s + 1 if s < c.N else None


SPEC = Spec(name="prints", title="prints in an action", constants=C, init=lambda c: [0], actions=[step],
            deadlock_expected=True)
