"""Signature keys equal but not alike: ``True`` for a finished process, ``1.0`` or ``1`` for others.

The state holds plain ints and bools; the signature turns them into a bool,
a float or an int, so three processes may have keys ``True == 1.0 == 1``:
one tie, whose orderings give different copies (their marks differ).
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, Symmetry, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    N: int = constant(3, "processes", minimum=2, maximum=4)


class State(NamedTuple):
    level: tuple
    """Per process: its progress, 0 to 3."""
    done: tuple
    """Per process: whether it has finished (at level 3)."""
    marked: tuple
    """Per process: whether it has been marked (the key ignores it)."""


P = Domain("p", lambda c: range(c.N), lambda p: f"p{p}")


def at(t, p, v):
    return t[:p] + (v,) + t[p + 1:]


def init(c):
    return [State((0,) * c.N, (False,) * c.N, (False,) * c.N)]


@action("Step", p=P)
def step(c, s, p):
    if s.level[p] >= 3:
        return None
    return s._replace(level=at(s.level, p, s.level[p] + 1))


@action("Finish", p=P)
def finish(c, s, p):
    if s.level[p] != 3 or s.done[p]:
        return None
    return s._replace(done=at(s.done, p, True))


@action("Mark", p=P)
def mark(c, s, p):
    if s.level[p] == 0 or s.marked[p]:
        return None
    return s._replace(marked=at(s.marked, p, True))


@invariant("NotAllDone", "Some process is not both finished and marked.")
def not_all_done(c, s):
    return not all(d and m for d, m in zip(s.done, s.marked))


def permute(c, s, perm):
    level, done, marked = [None] * c.N, [None] * c.N, [None] * c.N
    for i in range(c.N):
        level[perm[i]] = s.level[i]
        done[perm[i]] = s.done[i]
        marked[perm[i]] = s.marked[i]
    return State(tuple(level), tuple(done), tuple(marked))


def signature(c, s, p):
    """A finished process ranks as True; odd levels as halves (floats), even ones as ints."""
    if s.done[p]:
        return True
    if s.level[p] % 2:
        return s.level[p] / 2 + 0.5
    return s.level[p] // 2


SPEC = Spec(name="bool-int-float-keys", title="keys True, 1.0 and 1", constants=Config, init=init,
            actions=[step, finish, mark], invariants=[not_all_done],
            symmetry=Symmetry(lambda c: c.N, permute, signature), deadlock_expected=True)
