"""An invariant that returns an int, judged by truthiness until the engine refused it."""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant


@attrs.frozen
class C:
    N: int = constant(2, "bound", minimum=0, maximum=10)


class S(NamedTuple):
    log: tuple


@action("Append")
def append(c, s):
    return S(s.log + (len(s.log),)) if len(s.log) < c.N else None


@invariant("LogNotEmpty")
def log_not_empty(c, s):
    return len(s.log)


SPEC = Spec(name="invariant-int", title="an invariant returning an int", constants=C, init=lambda c: [S(())],
            actions=[append], invariants=[log_not_empty], deadlock_expected=True)
