"""A liveness lasso's loop as every renderer reads it from a trace document.

A liveness counterexample is a stem and then a loop that repeats forever
(or a last state the behaviour stutters in forever).  The trace document
says so in ``violation.loop_start``/``loop_action``/``stuttering``; the
renderers all need the same few facts from those fields, computed here once.
"""

from __future__ import annotations

from typing import NamedTuple


class Loop(NamedTuple):
    """A lasso's loop as the renderers draw it (steps numbered from 1)."""

    start: int
    """The loop's first state (the last one when the behaviour stutters): the step that reaches it is the
    stem's last, taken once; the loop's steps are the ones after it and the one back to it."""
    end: int
    """The last step of the trace."""
    stuttering: bool
    action: str | None
    """The action of the step from ``end`` back to ``start`` (None when stuttering or unknown)."""

    def contains(self, index: int) -> bool:
        """Whether step ``index`` (1-based) is inside the loop."""
        return self.start <= index <= self.end

    def closing_text(self) -> str:
        """The row that ends every view: how the behaviour goes on forever."""
        if self.stuttering:
            return f"stutters forever in state {self.end}"
        via = f"{self.action}: " if self.action else ""
        return f"{via}back to state {self.start} (the loop repeats)"


def loop_of_doc(doc: dict) -> Loop | None:
    """The loop of a liveness trace document, or None for any other counterexample."""
    v = doc["violation"]
    end = len(doc["steps"])
    if v.get("stuttering"):
        return Loop(end, end, True, None)
    if v.get("loop_start") is not None:
        return Loop(v["loop_start"], end, False, v.get("loop_action") or None)
    return None


def verdict(doc: dict) -> str:
    """``deadlock`` or ``NAME violated``."""
    v = doc["violation"]
    return "deadlock" if v["kind"] == "deadlock" else f"{v['name']} violated"


def headline(doc: dict) -> str:
    """The verdict and the trace's length; for a lasso, how the behaviour goes on forever."""
    n = len(doc["steps"])
    loop = loop_of_doc(doc)
    if loop is None:
        return f"{verdict(doc)} in {n} states"
    if loop.stuttering:
        return f"{verdict(doc)}: {n} states, then stuttering forever"
    return f"{verdict(doc)}: {n} states, states {loop.start} to {n} repeating forever"
