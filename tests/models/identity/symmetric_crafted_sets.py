"""Three interchangeable replicas each holding the empty set, {5, 11} or {14, D} (D crafted so that the two sets
collide under hash()). Different sets are different states and orbits; Hidden is violated once two replicas
hold {14, D}. ({3} is a third value that collides with nothing.)"""

import json
import os
import signal
from typing import NamedTuple

import attrs

from modelcheck import Spec, Symmetry, action, invariant

D = 1970105411913533580
BLANK = frozenset()
TARGET = frozenset({14, D})
VALUES = (frozenset({5, 11}), frozenset({14, D}), frozenset({3}))


REPLICAS = 3
TICKS = 1


_STOPPED = []


def _stop_for_resume_test():
    """Inert unless IDENTITY_STOP_DIR is set (only tests/test_state_identity.py sets it): then SIGTERM this
    process once a checkpoint of level IDENTITY_STOP_LEVEL is in that directory, so that the run stops with a
    checkpoint in the middle of the search and ``--resume`` has real work to do."""
    directory = os.environ.get("IDENTITY_STOP_DIR")
    if not directory or _STOPPED:
        return
    try:
        with open(os.path.join(directory, "checkpoint.json")) as f:
            level = json.load(f)["body"]["level"]
    except (OSError, ValueError, KeyError):
        return
    if level >= int(os.environ["IDENTITY_STOP_LEVEL"]):
        _STOPPED.append(level)
        os.kill(os.getpid(), signal.SIGTERM)


@attrs.frozen
class C:
    pass


class S(NamedTuple):
    vals: tuple
    """Per replica: BLANK, or the one of VALUES it was set to."""
    n: int
    """A counter independent of the rest."""


def init(c):
    return [S((BLANK,) * REPLICAS, 0)]


@action("Set")
def set_value(c, s):
    out = []
    for r in range(REPLICAS):
        if s.vals[r] == BLANK:
            for v in VALUES:
                out.append(S(s.vals[:r] + (v,) + s.vals[r + 1:], s.n))
    return out or None


@action("Tick")
def tick(c, s):
    _stop_for_resume_test()
    if s.n >= TICKS:
        return None
    return S(s.vals, s.n + 1)


@invariant("Ok", "Always true: the run that counts states checks this one.")
def ok(c, s):
    return True


@invariant("Hidden", "Never two replicas hold TARGET (symmetric).")
def hidden(c, s):
    return sum(1 for x in s.vals if x == TARGET) < 2


def permute(c, s, perm):
    vals = [BLANK] * REPLICAS
    for r, x in enumerate(s.vals):
        vals[perm[r]] = x
    return S(tuple(vals), s.n)


ACTIONS = [set_value, tick]
INVARIANTS = {"Ok": ok, "Hidden": hidden}

SPEC = Spec(name="identity-symmetric-crafted-sets", title="crafted colliding sets per replica, under symmetry", constants=C, init=init, actions=ACTIONS,
            invariants=[ok, hidden], symmetry=Symmetry(lambda c: REPLICAS, permute), deadlock_expected=True)
