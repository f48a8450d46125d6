"""Deciding the checked liveness properties once the search is complete, and their lassos as traces.

The search recorded the behaviour graph (:mod:`modelcheck.search.graph_log`);
here it is resolved to state indices, each property's negation is searched
for a fair lasso (:mod:`modelcheck.search.liveness`), and a lasso found is
turned into a trace by replaying the spec along its states' fingerprints, as
safety traces are (:mod:`modelcheck.model.replay`).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from modelcheck.errors import SpecRuntimeError
from modelcheck.model.blame import call_spec
from modelcheck.model.bound import BoundModel
from modelcheck.model.replay import replay, step_to
from modelcheck.model.validate import as_bool, predicate_error
from modelcheck.output.results import Violation
from modelcheck.search.graph_log import GraphLog
from modelcheck.search.liveness import BehaviourGraph, check_formula
from modelcheck.search.visited import ParentRecords
from modelcheck.spec.declare import State
from modelcheck.spec.temporal import step_predicates_of


def behaviour_graph(model: BoundModel, parents: ParentRecords, log: GraphLog) -> tuple[BehaviourGraph, np.ndarray]:
    """The recorded graph by state index (initial states first), and each index's fingerprint."""
    all_fps = np.concatenate(parents.fps) if parents.fps else np.empty(0, np.int64)
    src, dst, label, masks = log.resolve(all_fps)
    fairness = [(kind, labels) for kind, _text, labels in model.fairness_classes()]
    graph = BehaviourGraph(len(all_fps), len(parents.fps[0]) if parents.fps else 0, src, dst, label, masks,
                           fairness, len(model.label_action))
    return graph, all_fps


RESOLVE_BYTES_PER_EDGE = 56
"""What resolving and keeping the graph takes per recorded transition at its peak (int64 ends and labels,
their sort positions and the filtered copies), on top of :data:`RESOLVE_BYTES_PER_STATE` per state."""
RESOLVE_BYTES_PER_STATE = 32


def check_liveness(model: BoundModel, parents: ParentRecords, log: GraphLog,
                   room: Callable[[int], None] | None = None) -> list[Violation]:
    """A violation with its lasso for each checked liveness property that some fair behaviour breaks.

    ``room(bytes)`` is asked before each step that allocates in bulk and
    between steps (with 0): it raises to stop the decision (the memory budget
    would be exceeded, or a stop was requested)."""
    if not model.liveness_properties:
        return []
    room = room or _unbounded
    states = sum(len(f) for f in parents.fps)
    room(RESOLVE_BYTES_PER_EDGE * log.edges + RESOLVE_BYTES_PER_STATE * states)
    graph, all_fps = behaviour_graph(model, parents, log)
    graph.room = room
    predicates = model.temporal_predicates

    def bit_of(p: object) -> int:
        for k, q in enumerate(predicates):
            if q is p:
                return k
        raise KeyError(p)

    steps: list = []
    for prop, formula in zip(model.liveness_properties, model.formulas):
        steps += [(prop.name, a) for a in step_predicates_of(formula) if not any(a is b for _, b in steps)]
    if steps:
        room(STEP_BITS_BYTES_PER_STATE * states + len(steps) * len(graph.src))
        graph.step_bits = step_bits(model, parents, all_fps, graph, steps)

    def step_of(a: object) -> int:
        for k, (_, b) in enumerate(steps):
            if b is a:
                return k
        raise KeyError(a)

    found = []
    for prop, formula in zip(model.liveness_properties, model.formulas):
        room(0)
        lasso = check_formula(graph, formula, bit_of, step_of)
        if lasso is None:
            continue
        trace = replay(model, [int(all_fps[i]) for i in lasso.states])
        back = None
        if lasso.loop_start is not None:
            step = step_to(model, trace[-1].state, int(all_fps[lasso.states[lasso.loop_start]]))
            back = step.action if step is not None else None
        found.append(Violation("liveness", prop.name, prop.description, tuple(trace), lasso.loop_start, back))
    return found


STEP_BITS_BYTES_PER_STATE = 400
"""What rebuilding every state for the step predicates holds per state (the state object and its index)."""


def all_states(model: BoundModel, parents: ParentRecords) -> list[State]:
    """Every recorded state by index (discovery order, initial states first), rebuilt by running the spec.

    The search keeps fingerprints only; a step predicate needs both states of
    each transition.  Each state is its parent's successor with its
    fingerprint, so every parent is expanded once more, in Python.
    """
    fp = model.fingerprint
    by_fp: dict[int, State] = {}
    for s in model.init_states():
        by_fp.setdefault(fp(s), s)
    out: list[State] = [by_fp[int(f)] for f in parents.fps[0]] if parents.fps else []
    for level in range(1, len(parents.fps)):
        before = len(out) - len(parents.fps[level - 1])
        children: dict[int, dict[int, State]] = {}
        for f, p in zip(parents.fps[level].tolist(), parents.parent_idx[level].tolist()):
            got = children.get(p)
            if got is None:
                got = children[p] = {}
                for _ai, _b, t in model.successors(out[before + p]):
                    got.setdefault(fp(t), t)
            if f not in got:
                raise SpecRuntimeError(f"spec {model.spec.name}: a recorded state could not be rebuilt; the spec's "
                                       "actions are not deterministic", spec=model.spec.name, where="replay")
            out.append(got[f])
    return out


def step_bits(model: BoundModel, parents: ParentRecords, all_fps: np.ndarray, graph: BehaviourGraph,
              steps: list) -> list[np.ndarray]:
    """For each (property name, step predicate) of ``steps``: a bool per transition of ``graph``."""
    states = all_states(model, parents)
    src, dst = graph.src.tolist(), graph.dst.tolist()
    out = []
    for name, a in steps:
        bits = np.zeros(len(src), dtype=bool)
        for k, (i, j) in enumerate(zip(src, dst)):
            r = call_spec(model.spec.name, f"property {name}", a, model.c, states[i], states[j])
            if r is not True and r is not False:
                v = as_bool(r)
                if v is None:
                    raise predicate_error(model.spec.name, f"property {name}", a, r)
                r = v
            bits[k] = r
        out.append(bits)
    return out


def _unbounded(extra_bytes: int) -> None:
    """No budget and no stop requests: every step goes ahead."""
