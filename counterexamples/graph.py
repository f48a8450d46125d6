"""A counterexample as a networkx graph: states as nodes, actions as labelled edges.

Node attributes carry what every renderer needs (the flattened state, which
fields changed, the per-lane view, whether it is the violating state), so the
DOT, HTML and JSON renderers read the same graph.
"""

from __future__ import annotations

import networkx as nx

from modelcheck.counterexamples.lanes import lane_changes, max_log_length
from modelcheck.counterexamples.text import flatten


def trace_graph(doc: dict) -> nx.DiGraph:
    """The trace of a trace document as a chain ``s1 -> s2 -> ...``."""
    steps = doc["steps"]
    g = nx.DiGraph(spec=doc["spec"], title=doc["title"], violation=doc["violation"], constants=doc["constants"],
                   story=doc.get("story", ""), log_width=max_log_length(steps))
    last = len(steps)
    prev: dict | None = None
    for step in steps:
        i = step["index"]
        lanes = step.get("lanes") or {}
        changes = lane_changes(prev, step)
        g.add_node(
            f"s{i}",
            index=i,
            fields=flatten(step["state"]),
            changed=list(step.get("changed", [])),
            lanes=lanes,
            lane_changes={lane: changes.get(lane, []) for lane in lanes},
            initial=i == 1,
            violating=i == last,
        )
        if i > 1:
            g.add_edge(f"s{i - 1}", f"s{i}", action=step["action"], action_name=step.get("action_name"),
                       params=step.get("params", {}))
        prev = step
    v = doc["violation"]
    if v.get("stuttering"):  # a liveness counterexample that ends stuttering forever
        g.add_edge(f"s{last}", f"s{last}", action="stutters forever", action_name=None, params={}, back=True)
    elif v.get("loop_start") is not None:  # the lasso's loop: back to an earlier state, forever
        g.add_edge(f"s{last}", f"s{v['loop_start']}", action=f"{v.get('loop_action') or 'back'} (loop, forever)",
                   action_name=None, params={}, back=True)
    return g


def graph_to_json(g: nx.DiGraph) -> dict:
    """Nodes and edges as plain JSON (node-link form), for tools that draw their own."""
    return nx.node_link_data(g, edges="edges")
