"""Predicates of steps on the memo tables: decision trees over a parent's row and a successor's, side by side.

Step properties and the action constraint are predicates of a step
``P(c, s, t)``.  Such a predicate is a pure function of two states, so the
argument of :mod:`modelcheck.memo.tries` holds for it unchanged once the two
rows are read as one: component ``k`` of the parent is position ``k`` of a
*pair row*, component ``k`` of the successor is position ``width + k``.  An
evaluation on the two traced states logs which positions it used first, in
order; every pair that agrees on them gets the same answer, and the tree
records the path to it.  The C loop writes out each transition it keeps
(its target's row beside the parent's rank, :data:`~modelcheck.memo.kernel.S_EDGE_ROWS`),
and :meth:`StepTrees.first_violations` walks every tree over them in C
(:func:`~modelcheck.memo.kernel.walk_rows`), learning where a walk meets a
branch not learnt yet.  Which steps count is the spec's own code's rule:
neither a step to a state outside the model nor a stuttering one (its
target's fingerprint the parent's) is checked, since ``[P]_vars`` allows
it; the C loop records only the others.

What the trees say is checked as every answer of the tables is: a
violation they find is confirmed by the spec's own code before it is
reported, and each step of the parents the run samples is compared with
it (both in :class:`modelcheck.memo.backend.MemoBackend`).

The action constraint's tree is walked by the C loop itself, in pass 2, on
each successor inside the state constraint (:mod:`.kernel`), since what it
rejects is not kept; a branch not learnt returns to the caller, which
learns it here (:meth:`StepTrees.holds`).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from modelcheck.memo import kernel as kn
from modelcheck.memo.layout import Layout
from modelcheck.memo.tries import MISSING, Learner, Tries
from modelcheck.memo.values import Interner


LEARN_BATCH = 32
"""Pairs whose branch was not learnt that are learnt (or found learnt meanwhile) before the rest are walked again."""


class PairLayout:
    """What :class:`~modelcheck.memo.tries.Learner` reads of a layout, for pair rows: two traced states."""

    def __init__(self, layout: Layout) -> None:
        self.inner = layout
        self.width = 2 * layout.width

    def traced_state(self, row: Sequence[int], traced: list) -> tuple[Any, Any]:
        w = self.inner.width
        return (self.inner.traced_state(row[:w], traced[:w]),
                self.inner.traced_state(row[w:], traced[w:]))


def _on_pair(fn: Callable) -> Callable:
    """``fn(c, s, t)`` called as a predicate of one argument, the pair (the learner's calling convention)."""

    def on_pair(c: Any, pair: tuple[Any, Any]) -> Any:
        return fn(c, pair[0], pair[1])

    on_pair.__name__ = getattr(fn, "__name__", "step property")
    return on_pair


class StepTrees:
    """One tree per predicate of steps (``(name, fn)``), learnt on pair rows.  All run state lives on the
    instance."""

    def __init__(self, layout: Layout, interner: Interner, c: Any, predicates: Sequence[tuple[str, Callable]],
                 state_type: type) -> None:
        self.width = layout.width
        self.names = [name for name, _fn in predicates]
        self.tries = Tries(len(predicates), 2 * layout.width)
        functions = [(_on_pair(fn), (), "predicate") for _name, fn in predicates]
        self.learner = Learner(PairLayout(layout), self.tries, interner, c, functions, state_type)

    @property
    def evaluations(self) -> int:
        return self.learner.evaluations

    def pair_rows(self, parents: np.ndarray, src: np.ndarray, targets: np.ndarray) -> np.ndarray:
        """Each transition as one row: its parent's row (``parents[src[j]]``), then its target's."""
        return np.ascontiguousarray(np.concatenate((parents[src], targets), axis=1), np.int32)

    def holds(self, f: int, pairs: np.ndarray) -> np.ndarray:
        """Whether step property ``f`` holds on each pair row (learning the branches not learnt yet).

        Raises what the spec's code raises on traced parts (the caller has
        the spec's own code report it) and the learner's refusals.
        """
        pairs = np.ascontiguousarray(pairs, np.int32)
        tries = self.tries
        tries.flush()
        codes = np.empty(len(pairs), np.int32)
        kn.walk_rows(int(tries.root[f]), tries.comp, tries.edges, pairs, codes)
        missing = np.flatnonzero(codes == MISSING)
        while len(missing):
            # The learner walks each pair first (what it learnt for an earlier pair of the batch included), so a
            # path is learnt once; the pairs after the batch are walked again in C, a batch at a time, where
            # walking them again after every evaluation would cost more than the evaluations.
            for j in missing[:LEARN_BATCH].tolist():
                codes[j] = self.learner.learn(f, tuple(pairs[j].tolist()))
            rest = missing[LEARN_BATCH:]
            if len(rest):
                tries.flush()
                again = np.empty(len(rest), np.int32)
                kn.walk_rows(int(tries.root[f]), tries.comp, tries.edges, np.ascontiguousarray(pairs[rest]), again)
                codes[rest] = again
            missing = rest[codes[rest] == MISSING]
        tries.flush()
        return tries.leaves["count"][-2 - codes] != 0

    def first_violations(self, pairs: np.ndarray, skip: set) -> dict[int, list[str]]:
        """Pair index -> the step properties not in ``skip`` whose first violating pair it is."""
        found: dict[int, list[str]] = {}
        for f, name in enumerate(self.names):
            if name in skip or not len(pairs):
                continue
            bad = np.flatnonzero(~self.holds(f, pairs))
            if len(bad):
                found.setdefault(int(bad[0]), []).append(name)
        return found

    def failed(self, pair: np.ndarray) -> set[str]:
        """The step properties one pair row violates, by the trees."""
        rows = np.ascontiguousarray(pair.reshape(1, -1), np.int32)
        return {name for f, name in enumerate(self.names) if not self.holds(f, rows)[0]}
