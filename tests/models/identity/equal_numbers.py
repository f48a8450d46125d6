"""0, 0.0, -0.0 and False are equal in Python, and so are 1, 1.0 and True, and 2 and 2.0: a checker that
fingerprinted the type or the bits (-0.0 is not 0.0 bit for bit) would count them as different states. These
are three states per depth, not nine."""

import json
import os
import signal
from typing import NamedTuple

import attrs

from modelcheck import Spec, action, invariant

START = 5
TARGET = 2


def values():
    return [0, 0.0, -0.0, False, 1, 1.0, True, 2, 2.0]


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

SPEC = Spec(name="identity-equal-numbers", title="equal numbers of different types", constants=C, init=init, actions=ACTIONS,
            invariants=[ok, hidden], deadlock_expected=True)
