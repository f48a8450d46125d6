"""Equal frozensets built by different insertion orders, by union, by difference and from generators; equal
tuples built by concatenation, slicing and tuple(list). Python says they are equal, so each group is one
state, whatever the objects' identity, iteration order or table layout. The set that lacks one element is
another state, and Reveal is enabled only there."""

import json
import os
import signal
from typing import NamedTuple

import attrs

from modelcheck import Spec, action, invariant

START = 0
BIG = frozenset(range(40))
TARGET = frozenset(range(39))


def values():
    forward = frozenset(range(40))
    backward = frozenset(reversed(range(40)))
    merged = frozenset(range(0, 40, 2)) | frozenset(range(1, 40, 2))
    cut = frozenset(range(100)) - frozenset(range(40, 100))
    lazy = frozenset(x for x in range(39, -1, -1))
    short = frozenset(range(39))
    t1 = (1, 2, 3, 4)
    t2 = (1, 2) + (3, 4)
    t3 = tuple([1, 2, 3, 4])
    t4 = (0, 1, 2, 3, 4, 5)[1:5]
    return [forward, backward, merged, cut, lazy, short, t1, t2, t3, t4, frozenset({t1, t2}), frozenset({t3})]


TICKS = 3  # the counter n runs 0..TICKS beside the rest, so every value is chosen at several depths


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
    v: object
    """The value under test: START until Choose, then one of VALUES (wrapped in a 1-tuple by Wrap)."""
    phase: int
    """0 before Choose, 1 after it, 2 after Reveal, 3 after Wrap."""
    n: int
    """A counter independent of the rest."""


def init(c):
    return [S(START, 0, 0)]


@action("Choose")
def choose(c, s):
    if s.phase != 0:
        return None
    return [S(v, 1, s.n) for v in values()]


@action("Tick")
def tick(c, s):
    _stop_for_resume_test()
    if s.n >= TICKS:
        return None
    return S(s.v, s.phase, s.n + 1)


@action("Reveal")
def reveal(c, s):
    if s.phase != 1 or not s.v == TARGET:
        return None
    return S(s.v, 2, s.n)


@action("Wrap")
def wrap(c, s):
    if s.phase != 1:
        return None
    return S((s.v,), 3, s.n)


@invariant("Ok", "Always true: the run that counts states checks this one.")
def ok(c, s):
    return True


@invariant("Hidden", "Reveal never ran: violated only below the state holding TARGET.")
def hidden(c, s):
    return s.phase != 2


ACTIONS = [choose, tick, reveal, wrap]
INVARIANTS = {"Ok": ok, "Hidden": hidden}

SPEC = Spec(name="identity-built-differently", title="equal values built in different ways", constants=C, init=init, actions=ACTIONS,
            invariants=[ok, hidden], deadlock_expected=True)
