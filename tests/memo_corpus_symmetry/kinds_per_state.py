"""Keys of one kind per state, another kind in other states: ints in "count" mode, strs in "named" mode.

In "named" mode a process's key is its stage's name, and names sort in
another order than the stages (``"busy" < "done" < "idle" < "wait"``); no
state mixes the two kinds, so every state's keys sort, but keys met across
states do not compare.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, Symmetry, action, constant, invariant

EXPECTED = "holds"
NAMES = ("idle", "wait", "busy", "done")


@attrs.frozen
class Config:
    N: int = constant(3, "processes", minimum=2, maximum=4)


class State(NamedTuple):
    mode: str
    stage: tuple
    seen: tuple
    """Per process: whether the operator looked at it (the key ignores it)."""


P = Domain("p", lambda c: range(c.N), lambda p: f"p{p}")


def at(t, p, v):
    return t[:p] + (v,) + t[p + 1:]


def init(c):
    return [State("count", (0,) * c.N, (False,) * c.N)]


@action("Advance", p=P)
def advance(c, s, p):
    if s.stage[p] >= len(NAMES) - 1:
        return None
    return s._replace(stage=at(s.stage, p, s.stage[p] + 1))


@action("Look", p=P)
def look(c, s, p):
    if s.seen[p] or s.stage[p] == 0:
        return None
    return s._replace(seen=at(s.seen, p, True))


@action("Switch")
def switch(c, s):
    return s._replace(mode="named" if s.mode == "count" else "count")


@invariant("KnownStages", "Every stage has a name.")
def known_stages(c, s):
    return all(0 <= x < len(NAMES) for x in s.stage)


def permute(c, s, perm):
    stage, seen = [0] * c.N, [False] * c.N
    for i in range(c.N):
        stage[perm[i]], seen[perm[i]] = s.stage[i], s.seen[i]
    return State(s.mode, tuple(stage), tuple(seen))


def signature(c, s, p):
    return s.stage[p] if s.mode == "count" else NAMES[s.stage[p]]


SPEC = Spec(name="kinds-per-state", title="int keys in one mode, str keys in the other", constants=Config,
            init=init, actions=[advance, look, switch], invariants=[known_stages],
            symmetry=Symmetry(lambda c: c.N, permute, signature), deadlock_expected=True)
