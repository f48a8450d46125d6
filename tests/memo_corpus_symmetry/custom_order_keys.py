"""Keys of a class with its own ``__eq__`` and ``__lt__``: reversed order, equality on one field only.

``Priority(level, note)`` sorts the highest level first and is equal to any
``Priority`` of the same level whatever its note, so processes with one
level tie although their keys are not alike; defining ``__eq__`` makes the
class unhashable.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, Symmetry, action, constant, invariant

EXPECTED = "violated"


class Priority:
    def __init__(self, level, note):
        self.level = level
        self.note = note

    def __eq__(self, other):
        return self.level == other.level

    def __lt__(self, other):
        return self.level > other.level


@attrs.frozen
class Config:
    N: int = constant(3, "processes", minimum=2, maximum=4)


class State(NamedTuple):
    level: tuple
    note: tuple
    """Per process: a note, 0 to 2, which the key carries but its equality ignores."""


P = Domain("p", lambda c: range(c.N), lambda p: f"p{p}")


def at(t, p, v):
    return t[:p] + (v,) + t[p + 1:]


def init(c):
    return [State((0,) * c.N, (0,) * c.N)]


@action("Raise", p=P)
def raise_level(c, s, p):
    if s.level[p] >= 2:
        return None
    return s._replace(level=at(s.level, p, s.level[p] + 1))


@action("Note", p=P)
def note(c, s, p):
    if s.note[p] >= 2:
        return None
    return s._replace(note=at(s.note, p, s.note[p] + 1))


@invariant("NotAllNoted", "Not every process is at level 2 with note 2.")
def not_all_noted(c, s):
    return not all(lv == 2 and n == 2 for lv, n in zip(s.level, s.note))


def permute(c, s, perm):
    level, notes = [0] * c.N, [0] * c.N
    for i in range(c.N):
        level[perm[i]], notes[perm[i]] = s.level[i], s.note[i]
    return State(tuple(level), tuple(notes))


def signature(c, s, p):
    return Priority(s.level[p], s.note[p])


SPEC = Spec(name="custom-order-keys", title="keys with a custom order", constants=Config, init=init,
            actions=[raise_level, note], invariants=[not_all_noted],
            symmetry=Symmetry(lambda c: c.N, permute, signature), deadlock_expected=True)
