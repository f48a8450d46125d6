"""Keys of two kinds at one position: a count (int) while a process works, ``"done"`` (str) after.

A state with a finished process and a working one has keys Python cannot
sort (``TypeError``: ``<`` between str and int): the spec's own code fails
there, a few steps in; states where every process is finished, or none, sort.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, Symmetry, action, constant, invariant

EXPECTED = "error"


@attrs.frozen
class Config:
    N: int = constant(3, "processes", minimum=2, maximum=4)
    Work: int = constant(3, "units of work per process", minimum=1, maximum=4)


class State(NamedTuple):
    count: tuple
    done: tuple


P = Domain("p", lambda c: range(c.N), lambda p: f"p{p}")


def at(t, p, v):
    return t[:p] + (v,) + t[p + 1:]


def init(c):
    return [State((0,) * c.N, (False,) * c.N)]


@action("Work", p=P)
def work(c, s, p):
    if s.done[p] or s.count[p] >= c.Work:
        return None
    return s._replace(count=at(s.count, p, s.count[p] + 1))


@action("Finish", p=P)
def finish(c, s, p):
    if s.done[p] or s.count[p] < c.Work:
        return None
    return s._replace(done=at(s.done, p, True))


@invariant("DoneMeansWorked", "A finished process has done all its work.")
def done_means_worked(c, s):
    return all(n == c.Work for n, d in zip(s.count, s.done) if d)


def permute(c, s, perm):
    count, done = [0] * c.N, [False] * c.N
    for i in range(c.N):
        count[perm[i]], done[perm[i]] = s.count[i], s.done[i]
    return State(tuple(count), tuple(done))


def signature(c, s, p):
    return "done" if s.done[p] else s.count[p]


SPEC = Spec(name="int-str-keys-error", title="int and str keys in one state", constants=Config, init=init,
            actions=[work, finish], invariants=[done_means_worked],
            symmetry=Symmetry(lambda c: c.N, permute, signature), deadlock_expected=True)
