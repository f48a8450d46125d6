"""``type(x) is bool`` inside a method of the State class, a staticmethod and a module-level alias of ``type``.

A newcomer puts small queries on the state class (``s.is_decided()``) and
keeps a helper as a staticmethod.  The check on the type is real Python:
``decided`` holds ``True`` once the vote is cast and ``1`` once it is
copied, equal values that only ``type()`` separates.  A stand-in that
records reads is of neither type, so a fast path that does not see the call
(it is in a method, or spelled ``kind_of(x)``) answers for the stand-in.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"
kind_of = type


@attrs.frozen
class Config:
    Copies: int = constant(2, "how often the decision is copied", minimum=1, maximum=4)


class State(NamedTuple):
    decided: int
    """0, True (cast) or 1 (copied)."""
    copies: int
    odd: bool

    def is_cast(self):
        return type(self.decided) is bool and self.decided

    @staticmethod
    def plain_int(v):
        return kind_of(v) == int and v == 1


def init(c):
    return [State(decided=0, copies=0, odd=False)]


@action("Cast")
def cast(c, s):
    if s.decided:
        return None
    return s._replace(decided=True)


@action("Copy")
def copy(c, s):
    if not s.decided or s.copies >= c.Copies:
        return None
    return s._replace(decided=s.decided * 1, copies=s.copies + 1)


@action("Inspect")
def inspect(c, s):
    if s.odd:
        return None
    if s.is_cast() or not State.plain_int(s.decided):
        return None
    return s._replace(odd=True)


@invariant("AlwaysCast", "A decision is never held as a plain int 1.")
def always_cast(c, s):
    return not s.odd


SPEC = Spec(name="type-in-state-method", title="type() in a method of the state class", constants=Config,
            init=init, actions=[cast, copy, inspect], invariants=[always_cast], deadlock_expected=True)
