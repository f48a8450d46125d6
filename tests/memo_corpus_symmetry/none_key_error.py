"""A signature that forgets to return for a finished process: ``None`` among tuple keys, deep in the search.

Sorting the keys then compares ``None`` with a tuple and Python raises
``TypeError``: the spec's own code fails on the first state with one
finished process and one that is not, four steps in.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, Symmetry, action, constant, invariant

EXPECTED = "error"
DONE = 4


@attrs.frozen
class Config:
    N: int = constant(3, "processes", minimum=2, maximum=4)


class State(NamedTuple):
    step: tuple
    flag: tuple


P = Domain("p", lambda c: range(c.N), lambda p: f"p{p}")


def at(t, p, v):
    return t[:p] + (v,) + t[p + 1:]


def init(c):
    return [State((0,) * c.N, (False,) * c.N)]


@action("Step", p=P)
def step(c, s, p):
    if s.step[p] >= DONE:
        return None
    return s._replace(step=at(s.step, p, s.step[p] + 1))


@action("Toggle", p=P)
def toggle(c, s, p):
    if s.step[p] >= DONE:
        return None
    return s._replace(flag=at(s.flag, p, not s.flag[p]))


@invariant("StepsBounded", "No process goes past DONE.")
def steps_bounded(c, s):
    return max(s.step) <= DONE


def permute(c, s, perm):
    step, flag = [0] * c.N, [False] * c.N
    for i in range(c.N):
        step[perm[i]], flag[perm[i]] = s.step[i], s.flag[i]
    return State(tuple(step), tuple(flag))


def signature(c, s, p):
    if s.step[p] < DONE:
        return (s.step[p], s.flag[p])
    # a finished process: the author forgot to return a key


SPEC = Spec(name="none-key-error", title="a None key among tuples", constants=Config, init=init,
            actions=[step, toggle], invariants=[steps_bounded],
            symmetry=Symmetry(lambda c: c.N, permute, signature), deadlock_expected=True)
