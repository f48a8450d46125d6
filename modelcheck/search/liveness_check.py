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

from modelcheck.model.bound import BoundModel
from modelcheck.model.replay import replay, step_to
from modelcheck.output.results import Violation
from modelcheck.search.graph_log import GraphLog
from modelcheck.search.liveness import BehaviourGraph, check_formula
from modelcheck.search.visited import ParentRecords


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

    found = []
    for prop, formula in zip(model.liveness_properties, model.formulas):
        room(0)
        lasso = check_formula(graph, formula, bit_of)
        if lasso is None:
            continue
        trace = replay(model, [int(all_fps[i]) for i in lasso.states])
        back = None
        if lasso.loop_start is not None:
            step = step_to(model, trace[-1].state, int(all_fps[lasso.states[lasso.loop_start]]))
            back = step.action if step is not None else None
        found.append(Violation("liveness", prop.name, prop.description, tuple(trace), lasso.loop_start, back))
    return found


def _unbounded(extra_bytes: int) -> None:
    """No budget and no stop requests: every step goes ahead."""
