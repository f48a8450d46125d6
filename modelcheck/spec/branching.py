"""TLC's way of counting successors, written once: one per satisfied disjunct and per witness of an ``\\E``.

TLC's "states generated" counts every successor its evaluation of an action
meets: ``A \\/ B`` inside an action gives A's and B's, and ``\\E w \\in S :
A(w)`` gives one per witness ``w`` for which ``A(w)`` is enabled, even when
two of them are the same state.  The distinct states and the depth do not
depend on it, but a port whose generated count should equal TLC's returns
every one of them.  :func:`exists` and :func:`either` do that, so a port
reads like its TLA+ and no repeated successor has to be written by hand::

    @action("Phase1b", acc=ACC)
    def phase1b(c, s, acc):
        # \\E m \\in msgs : m.type = "phase1a" /\\ ... /\\ msgs' = msgs \\cup {...}
        return exists(sorted(s.msgs), lambda m: s._replace(...) if m.type == "phase1a" else None)

An action's result may be a list of states (the checker counts each), so
these return lists; an empty list is a disabled action, as ``None`` is.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, TypeVar

W = TypeVar("W")


def _successors(result: Any) -> list:
    if result is None:
        return []
    return list(result) if type(result) is list else [result]


def exists(witnesses: Iterable[W], step: Callable[[W], Any]) -> list:
    """``\\E w \\in witnesses : step(w)``: the successors ``step`` gives for each witness, in order, repeats kept.

    ``step(w)`` returns None (not enabled for ``w``), a state, or a list of
    states.  Iterate a set in a fixed order (``sorted``): the successors'
    order decides which of two equal states a trace shows, as TLC's does.
    """
    out: list = []
    for w in witnesses:
        out += _successors(step(w))
    return out


def either(*branches: Any) -> list:
    """``A \\/ B \\/ ...`` inside an action: the successors of every branch that is enabled, repeats kept.

    Each branch is what its disjunct gives: None (not enabled), a state or a
    list of states (from :func:`exists`, say).
    """
    out: list = []
    for b in branches:
        out += _successors(b)
    return out
