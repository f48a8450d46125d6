"""A counterexample as a networkx graph: states as nodes, actions as labelled edges.

Node attributes carry what every renderer needs (the flattened state, which
fields changed, the per-lane view, whether it is the violating state), so the
DOT, HTML and JSON renderers read the same graph.
"""

from __future__ import annotations

import networkx as nx

from modelcheck.counterexamples.text import flatten


def trace_graph(doc: dict) -> nx.DiGraph:
    """The trace of a trace document as a chain ``s1 -> s2 -> ...``."""
    g = nx.DiGraph(spec=doc["spec"], title=doc["title"], violation=doc["violation"], constants=doc["constants"],
                   story=doc.get("story", ""))
    steps = doc["steps"]
    last = len(steps)
    prev_lanes: dict | None = None
    for step in steps:
        i = step["index"]
        lanes = step.get("lanes") or {}
        lane_changes = {
            lane: [k for k, v in fields.items() if prev_lanes is not None and prev_lanes.get(lane, {}).get(k) != v]
            for lane, fields in lanes.items()
        }
        g.add_node(
            f"s{i}",
            index=i,
            fields=flatten(step["state"]),
            changed=list(step.get("changed", [])),
            lanes=lanes,
            lane_changes=lane_changes,
            initial=i == 1,
            violating=i == last,
        )
        if i > 1:
            g.add_edge(f"s{i - 1}", f"s{i}", action=step["action"], action_name=step.get("action_name"),
                       params=step.get("params", {}))
        prev_lanes = lanes
    return g


def graph_to_json(g: nx.DiGraph) -> dict:
    """Nodes and edges as plain JSON (node-link form), for tools that draw their own."""
    return nx.node_link_data(g, edges="edges")
