"""A spec whose action depends on a counter outside the state: not deterministic."""

import itertools

import attrs

from modelcheck import Spec, action, constant

_calls = itertools.count()


@attrs.frozen
class C:
    N: int = constant(3, "bound", minimum=0, maximum=10)


@action("Step")
def step(c, s):
    # Wrong on purpose: the successor depends on how often the action was called.
    return (s + 1 + next(_calls) % 2) if s < c.N else None


SPEC = Spec(name="nondeterministic", title="non-deterministic", constants=C, init=lambda c: [0],
            actions=[step], deadlock_expected=True)
