"""An action constraint that rejects every stuttering step, ``s != t``.

``Retry`` rebuilds the state (``State(*s)``) and ``Tidy`` rebuilds the set
in another order: both stutter.  Rejecting a step back to the parent keeps
nothing out, so the counts are those without the constraint; a fast path
that took a rebuilt state for a new one, or a rejection for a prune of the
parent, would count otherwise.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "holds"
VALUE = Domain("value", lambda c: (0, 8, 3), str)


@attrs.frozen
class Config:
    Length: int = constant(4, "the longest log", minimum=2, maximum=5)


class State(NamedTuple):
    log: tuple
    members: frozenset


def init(c):
    return [State(log=(), members=frozenset())]


@action("Append", value=VALUE)
def append(c, s, value):
    if len(s.log) >= c.Length:
        return None
    return State(s.log + (value,), s.members | {value})


@action("Retry")
def retry(c, s):
    return State(*s)


@action("Tidy")
def tidy(c, s):
    return State(tuple(list(s.log)), frozenset(sorted(s.members, reverse=True)))


def moves(c, s, t):
    return s != t


@invariant("MembersLogged", "Every member is in the log.")
def members_logged(c, s):
    return s.members == frozenset(s.log)


SPEC = Spec(name="stutter-rejected", title="an action constraint rejecting stuttering steps", constants=Config,
            init=init, actions=[append, retry, tidy], invariants=[members_logged], action_constraint=moves,
            deadlock_expected=True)
