"""Keys that are nested tuples of varying lengths, some built as a NamedTuple and some as a plain tuple.

A process's key holds its log (a tuple of 0 to 2 terms, so ``(1,) < (1, 2)``
by length), ``(len(log),)`` and whether its log is longer than another's
(read from every log); the leader's key is a ``Key`` NamedTuple, a
follower's a plain tuple.  ``Key(...) == (...)`` when the items agree.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, Symmetry, action, constant, invariant

EXPECTED = "holds"
NOBODY = -1


@attrs.frozen
class Config:
    N: int = constant(3, "replicas", minimum=2, maximum=4)
    MaxTerm: int = constant(2, "the highest term", minimum=1, maximum=3)


class Key(NamedTuple):
    log: tuple
    size: tuple
    ahead: bool


class State(NamedTuple):
    logs: tuple
    leader: int
    term: int


P = Domain("p", lambda c: range(c.N), lambda p: f"r{p}")


def at(t, p, v):
    return t[:p] + (v,) + t[p + 1:]


def init(c):
    return [State(((),) * c.N, NOBODY, 0)]


@action("Elect", p=P)
def elect(c, s, p):
    if s.leader != NOBODY or s.term >= c.MaxTerm:
        return None
    return State(s.logs, p, s.term + 1)


@action("Write")
def write(c, s):
    if s.leader == NOBODY or len(s.logs[s.leader]) >= 2:
        return None
    return s._replace(logs=at(s.logs, s.leader, s.logs[s.leader] + (s.term,)))


@action("Copy", p=P)
def copy(c, s, p):
    if s.leader == NOBODY or p == s.leader:
        return None
    mine, theirs = s.logs[p], s.logs[s.leader]
    if len(mine) >= len(theirs) or theirs[:len(mine)] != mine:
        return None
    return s._replace(logs=at(s.logs, p, theirs[:len(mine) + 1]))


@action("Resign")
def resign(c, s):
    if s.leader == NOBODY:
        return None
    return s._replace(leader=NOBODY)


@invariant("ShortLogs", "No log holds more than two records.")
def short_logs(c, s):
    return all(len(log) <= 2 for log in s.logs)


def permute(c, s, perm):
    logs = [()] * c.N
    for i, log in enumerate(s.logs):
        logs[perm[i]] = log
    return State(tuple(logs), NOBODY if s.leader == NOBODY else perm[s.leader], s.term)


def signature(c, s, p):
    log = s.logs[p]
    ahead = any(len(log) > len(other) for other in s.logs)
    if p == s.leader:
        return Key(log, (len(log),), ahead)
    return (log, (len(log),), ahead)


SPEC = Spec(name="namedtuple-keys", title="nested tuple and NamedTuple keys", constants=Config, init=init,
            actions=[elect, write, copy, resign], invariants=[short_logs],
            symmetry=Symmetry(lambda c: c.N, permute, signature), deadlock_expected=True)
