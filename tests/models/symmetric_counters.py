"""Interchangeable counters and a token, for the orbit trees (``--symmetry`` on the memo tables).

``N`` processes each count up to ``Max``; one at a time may hold the token
and, giving it back, resets its counter.  The processes are
interchangeable, and equal counters are common, so two processes often
have equal keys: the orbit is then the smallest fingerprint over several
renamings.  The same spec comes in four forms that differ only in how the
symmetry is declared: with a ``signature`` (``SPEC``), without one (every
renaming tried: ``SPEC_ALL``), with keys that have no order Python can rank
(frozensets: ``SPEC_UNRANKED``), and with a ``permute`` that reads every
part of the state (``SPEC_READS_ALL``), and with a ``signature`` the
tables' review refuses (``isinstance``: ``SPEC_REFUSED_SIGNATURE``).  Each
must count what the spec's own code counts.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, Symmetry, action, constant, invariant

NONE = -1


@attrs.frozen
class C:
    N: int = constant(3, "processes", minimum=1, maximum=5)
    Max: int = constant(2, "the highest count", minimum=1, maximum=4)


class S(NamedTuple):
    counters: tuple
    token: int


P = Domain("p", lambda c: range(c.N), lambda p: f"p{p}")


def init(c):
    yield S((0,) * c.N, NONE)


@action("Inc", p=P)
def inc(c, s, p):
    if s.counters[p] >= c.Max:
        return None
    return S(s.counters[:p] + (s.counters[p] + 1,) + s.counters[p + 1:], s.token)


@action("Take", p=P)
def take(c, s, p):
    return S(s.counters, p) if s.token == NONE and s.counters[p] > 0 else None


@action("Give", p=P)
def give(c, s, p):
    if s.token != p:
        return None
    return S(s.counters[:p] + (0,) + s.counters[p + 1:], NONE)


@invariant("NotAllAtMax")
def not_all_at_max(c, s):
    """Violated once every counter is at ``Max`` (a trace to compare)."""
    return not all(x == c.Max for x in s.counters)


def permute(c, s, perm):
    counters = [0] * len(perm)
    for i, x in enumerate(s.counters):
        counters[perm[i]] = x
    return S(tuple(counters), NONE if s.token == NONE else perm[s.token])


def signature(c, s, p):
    return (s.counters[p], s.token == p)


def unranked_signature(c, s, p):
    return frozenset({s.counters[p], s.token == p})


def refused_signature(c, s, p):
    return (s.counters[p], isinstance(s.token, int) and s.token == p)


def permute_reading_all(c, s, perm):
    if sum(s.counters) < 0:  # reads every counter: a leaf per state
        return s
    return permute(c, s, perm)


def _spec(name, symmetry):
    return Spec(name=name, title="symmetric counters", constants=C, init=init, actions=[inc, take, give],
                invariants=[not_all_at_max], symmetry=symmetry)


SPEC = _spec("symmetric-counters", Symmetry(lambda c: c.N, permute, signature))
SPEC_ALL = _spec("symmetric-counters-all", Symmetry(lambda c: c.N, permute))
SPEC_UNRANKED = _spec("symmetric-counters-unranked", Symmetry(lambda c: c.N, permute, unranked_signature))
SPEC_READS_ALL = _spec("symmetric-counters-reads-all", Symmetry(lambda c: c.N, permute_reading_all, signature))
SPEC_REFUSED_SIGNATURE = _spec("symmetric-counters-refused", Symmetry(lambda c: c.N, permute, refused_signature))
