"""What happens to one parent's successors: the rules every backend applies, written once for the Python loops.

The local backend (:mod:`modelcheck.search.local`) and the worker processes
(:mod:`modelcheck.search.workers.worker`) differ in how they batch parents
and where candidates go; what a parent's successors become is decided here,
by the functions both call:

1. **Generated.**  Every successor the actions return, in the spec's order
   (a returned list counts once per element), is generated: it counts for
   its action and takes the parent's next successor index, the second half
   of its discovery key (:mod:`modelcheck.search.discovery`), whatever
   happens to it next.  :func:`parent_expander`.
2. **Constraints.**  A successor outside the state constraint, or whose step
   the action constraint refuses (asked only of successors inside the state
   constraint), stays generated but is no candidate: ``None`` takes its slot.
   It is never fingerprinted, stored, checked, nor a transition.
   :func:`parent_expander`, :func:`inside_model`.
3. **Successor limit.**  A parent that generates more than
   :data:`MAX_SUCCESSORS` successors is refused with
   :func:`~modelcheck.search.discovery.check_successor_count`'s error,
   reported at that parent as an error in its actions is.
   :func:`parent_expander`.
4. **Deadlock.**  A parent that generates no successor is deadlocked;
   successors outside the constraints count, as in TLC.  The count is what
   :func:`parent_expander`'s expansion returns; the run reports the first.
5. **Fingerprints and canonical states.**  A successor that cannot be
   fingerprinted (unhashable, not canonical, or the view's or symmetry's
   code failing on it) is the error of its parent; the successors of the
   parents before it are kept (:func:`fingerprint_parents`).  The first
   :data:`CANONICAL_CHECKS` new states of a run are also walked by
   :meth:`BoundModel.check_state <modelcheck.model.bound.BoundModel.check_state>`,
   which finds what hashing alone accepts (:func:`check_new_state`; the
   workers split the number between them).
6. **Step properties.**  Each step from a parent to a candidate with another
   fingerprint is checked (a stuttering step satisfies ``[P]_vars``); the
   first step violating each property not yet reported is reported, and a
   spec error stops at its parent.  :func:`check_steps`.
7. **Liveness transitions.**  The same steps, to a candidate with another
   fingerprint, are the behaviour graph's edges, labelled by action instance
   (:attr:`BoundModel.label_action`).  :func:`transitions`.

The other backends mirror these rules in their own loops.  The memo tables'
C loop (``mc_memo_expand`` in ``modelcheck/memo/kernel.pxd``) counts every
candidate of a parent as generated (1), marks those inside the state
constraint with bit 0 of their flag (2; specs with an action constraint or
step properties do not run on the tables), reports a parent with no
candidate as an event when deadlocks are checked (4), records an edge for
each candidate with bit 0 set and a fingerprint other than its parent's (7);
``modelcheck/memo/backend.py`` refuses a parent over the limit (3) and
checks new states' canonical form (5).  Spark's executors on the spec's own
code (``_expand_one`` in ``spark_explore/executor.py``) call
:func:`parent_expander` (1-4) and check a task's first candidates'
canonical form (5); on the tables they run the C loop.
"""

# modelcheck: compile

from __future__ import annotations

import bisect
from typing import Any, Callable, Sequence

import numpy as np

from modelcheck.errors import SpecRuntimeError
from modelcheck.model.bound import BoundModel
from modelcheck.model.fingerprint import fingerprints
from modelcheck.search.discovery import MAX_SUCCESSORS, check_successor_count

try:
    import cython  # read by Cython when ``modelcheck compile`` builds this module (see ``parent_expander``)
except ImportError:  # Cython is the optional ``compile`` extra; interpreted, local annotations are never evaluated
    pass

CANONICAL_CHECKS = 20000
"""New states given the deep canonical check in a run (the preflight walk checks a sample before the search)."""

FINGERPRINT_ERRORS = (TypeError, RecursionError, SpecRuntimeError)
"""What fingerprinting a batch raises on a successor that cannot be fingerprinted (rule 5)."""

ParentExpander = Callable[[Any, list, list], int]


def parent_expander(model: BoundModel, labelled: bool) -> ParentExpander:
    """``expand(s, codes, ts)``: append ``s``'s successors to ``ts`` and return how many were generated (rules 1-4).

    ``codes`` gets each successor's action index, or with ``labelled`` its
    label (action instance, for liveness).  A successor outside the
    constraints is appended as ``None``.  A spec error, or more successors
    than :data:`MAX_SUCCESSORS`, raises :class:`SpecRuntimeError` after part
    of them may have been appended.
    """
    name = model.spec.name
    in_model = model.in_model if model.spec.state_constraint else None
    action_ok = model.action_allowed if model.spec.action_constraint else None
    if in_model is None and action_ok is None:
        # The compiled successor function (modelcheck.model.expander) appends both columns itself.
        expand_into = model.expand_labelled_into if labelled else model.expand_into

        def expand_all(s: Any, codes: list, ts: list) -> int:
            # Compiled, the counts are C integers (a parent's successors are counted on every expansion).
            before: cython.Py_ssize_t = len(ts)
            n: cython.Py_ssize_t
            expand_into(s, codes, ts)
            n = len(ts) - before
            if n > MAX_SUCCESSORS:
                check_successor_count(n, name)
            return n

        return expand_all
    expand = model.expand
    label_of = model.label_of() if labelled else None

    def expand_constrained(s: Any, codes: list, ts: list) -> int:
        n: cython.Py_ssize_t = 0
        for ai, b, r in expand(s):
            code = label_of[(ai, b)] if label_of is not None else ai
            for t in (r if type(r) is list else (r,)):
                codes.append(code)
                if (in_model is not None and not in_model(t)) or (action_ok is not None and not action_ok(s, t)):
                    ts.append(None)
                else:
                    ts.append(t)
                n += 1
        if n > MAX_SUCCESSORS:
            check_successor_count(n, name)
        return n

    return expand_constrained


def constrained(model: BoundModel) -> bool:
    """Whether :func:`parent_expander` may append ``None`` (the spec has a state or an action constraint)."""
    return model.spec.state_constraint is not None or model.spec.action_constraint is not None


def inside_model(ts: list, n: int) -> np.ndarray:
    """Which of the first ``n`` successors are candidates (not ``None``: inside the constraints, rule 2)."""
    return np.fromiter((t is not None for t in ts[:n]), dtype=bool, count=n)


def fingerprint_parents(model: BoundModel, ts: list, codes: list, label_action: Sequence[int] | None, ends: list,
                        skip_none: bool) -> tuple[np.ndarray, SpecRuntimeError | None]:
    """The fingerprints of the successors of whole parents, ``ts[:ends[-1]]`` (rule 5).

    ``ends[k]`` is where parent k's successors end in ``ts``, ``codes`` their
    actions or, with ``label_action`` (a label's action), their labels.  When
    one cannot be fingerprinted, ``ends`` is cut in place before its parent,
    and the error naming its action is returned with the fingerprints of the
    parents before it.
    """
    fingerprint = model.fingerprint
    try:
        return fingerprints(ts, ends[-1] if ends else 0, fingerprint, skip_none), None
    except FINGERPRINT_ERRORS:
        actions = codes if label_action is None else [label_action[x] for x in codes]
        bad, error = model.first_bad_state(ts, actions)
        del ends[bisect.bisect_right(ends, bad):]
        return fingerprints(ts, ends[-1] if ends else 0, fingerprint, skip_none), error


def check_new_state(model: BoundModel, t: Any, ai: int) -> None:
    """The deep canonical check of a new state from action ``ai`` (rule 5; the caller counts its budget)."""
    model.check_state(t, f"action {model.actions[ai].name}")


def check_steps(model: BoundModel, parents: Sequence, parent_fps: list, ends: list, ts: list, fps: list,
                reported: set) -> tuple[list, tuple[int, SpecRuntimeError] | None]:
    """The parents' steps against the step properties (rule 6; :meth:`BoundModel.step_violations`).

    Parent k is ``parents[k]``, fingerprint ``parent_fps[k]``, its successors
    ``ts[ends[k-1]:ends[k]]`` (``None`` outside the model) with fingerprints
    ``fps``.  Returns ``[(k, successor index, names)]``, the first step
    violating each property not yet ``reported`` (which is updated), and
    ``(k, error)`` for the first parent whose check raised (its own later
    steps and the later parents unchecked), or None.
    """
    found: list = []
    lo = 0
    for k, end in enumerate(ends):
        try:
            hits = model.step_violations(parents[k], parent_fps[k],
                                         ((kk - lo, ts[kk], fps[kk]) for kk in range(lo, end)), reported)
        except SpecRuntimeError as err:
            return found, (k, err)
        found.extend((k, j, names) for j, names in hits)
        lo = end
    return found, None


def transitions(parent_fps: np.ndarray, fps: np.ndarray, inside: np.ndarray | None) -> np.ndarray:
    """Which steps are edges of the behaviour graph (rule 7): to a candidate with another fingerprint.

    ``parent_fps[k]`` is the fingerprint of successor k's parent, ``inside``
    (None without constraints) which successors are candidates.
    """
    keep = fps != parent_fps
    if inside is not None:
        keep &= inside
    return keep
