"""Deciding the checked liveness properties once the search is complete, and their lassos as traces.

The search recorded the behaviour graph (:mod:`modelcheck.search.graph_log`);
here it is resolved to state indices, each property's negation is searched
for a fair lasso (:mod:`modelcheck.search.liveness`), and a lasso found is
turned into a trace by replaying the spec along its states' fingerprints, as
safety traces are (:mod:`modelcheck.model.replay`).
"""

from __future__ import annotations

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


def check_liveness(model: BoundModel, parents: ParentRecords, log: GraphLog) -> list[Violation]:
    """A violation with its lasso for each checked liveness property that some fair behaviour breaks."""
    if not model.liveness_properties:
        return []
    graph, all_fps = behaviour_graph(model, parents, log)
    predicates = model.temporal_predicates

    def bit_of(p: object) -> int:
        for k, q in enumerate(predicates):
            if q is p:
                return k
        raise KeyError(p)

    found = []
    for prop, formula in zip(model.liveness_properties, model.formulas):
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
