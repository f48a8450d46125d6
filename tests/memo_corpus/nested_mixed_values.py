"""Equal values of other types nested inside parts: ``(1, 0)``/``(True, 0)``, ``{0.0}``/``{-0.0}``.

A fast path that notices ``1`` and ``True`` in one field may still miss
them one level down, inside a tuple or a frozenset.  The spec's own code
prints the part, so it tells them apart.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    Rounds: int = constant(1, "rounds", minimum=1, maximum=2)


class State(NamedTuple):
    pair: tuple
    zeros: frozenset
    via: int
    width: int


def init(c):
    return [State(pair=(0, 0), zeros=frozenset(), via=0, width=0)]


@action("SetInt")
def set_int(c, s):
    if s.via:
        return None
    return s._replace(pair=(1, 0), zeros=frozenset({0.0}), via=1)


@action("SetBool")
def set_bool(c, s):
    if s.via:
        return None
    return s._replace(pair=(True, 0), zeros=frozenset({-0.0}), via=2)


@action("Print")
def print_parts(c, s):
    width = len(str(s.pair)) + len(str(s.zeros))
    if width == s.width:
        return None
    return s._replace(width=width)


@invariant("Narrow", "The printed parts stay narrow.")
def narrow(c, s):
    return s.width < 24


SPEC = Spec(name="nested-mixed-values", title="equal values of other types, nested", constants=Config,
            init=init, actions=[set_int, set_bool, print_parts], invariants=[narrow], deadlock_expected=True)
