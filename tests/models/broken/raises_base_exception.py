"""Spec code raising SystemExit, KeyboardInterrupt, GeneratorExit or another BaseException: spec errors, exit 2.

``Where`` picks the function that raises (on the state x == 1, so that actions
and state checks have a trace to show; init raises at once) and ``Kind`` what
it raises.  A spec must not steer the exit status: ``sys.exit(0)`` in an action
once ended a check with exit 0 and no result.
"""

import sys
from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant, sometimes

WHERE = ("init", "action", "invariant", "property", "state-constraint", "action-constraint")
KINDS = ("exit0", "exit3", "keyboard-interrupt", "generator-exit", "base-exception")


@attrs.frozen
class C:
    Where: str = constant("action", "the function that raises", choices=WHERE)
    Kind: str = constant("exit0", "what it raises", choices=KINDS)


class S(NamedTuple):
    x: int


class Custom(BaseException):
    """A BaseException of the spec's own."""


def boom(c):
    if c.Kind == "exit0":
        sys.exit(0)
    if c.Kind == "exit3":
        sys.exit(3)
    if c.Kind == "keyboard-interrupt":
        raise KeyboardInterrupt
    if c.Kind == "generator-exit":
        raise GeneratorExit("closed")
    raise Custom("the spec's own")


def init(c):
    if c.Where == "init":
        boom(c)
    return [S(0)]


@action("Inc")
def inc(c, s):
    if c.Where == "action" and s.x == 1:
        boom(c)
    return S(s.x + 1) if s.x < 3 else None


@invariant("Fine")
def fine(c, s):
    if c.Where == "invariant" and s.x == 1:
        boom(c)
    return True


@sometimes("Reaches")
def reaches(c, s):
    if c.Where == "property" and s.x == 1:
        boom(c)
    return s.x == 3


def in_model(c, s):
    if c.Where == "state-constraint" and s.x == 1:
        boom(c)
    return True


def allowed(c, s, t):
    if c.Where == "action-constraint" and t.x == 1:
        boom(c)
    return True


SPEC = Spec(name="base-exceptions", title="spec code raising BaseExceptions", constants=C, init=init,
            actions=[inc], invariants=[fine], sometimes=[reaches], state_constraint=in_model,
            action_constraint=allowed, deadlock_expected=True)
