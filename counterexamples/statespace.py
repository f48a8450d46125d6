"""The reachable state graph of a small model, or the neighbourhood of a counterexample, as DOT or JSON.

Useful to see a model's shape while writing it, or what else could have
happened around a counterexample.  It keeps every state in memory, so it
refuses, with a clear message, graphs larger than ``limit`` states.
"""

from __future__ import annotations

import json
from collections import deque
from typing import Any

import networkx as nx

from modelcheck.errors import RenderError
from modelcheck.model.bound import BoundModel
from modelcheck.counterexamples.text import flatten, show


def state_graph(model: BoundModel, limit: int) -> nx.MultiDiGraph:
    """Every reachable state (node ``n0``, ``n1``... in BFS order) and every transition."""
    return _explore(model, model.init_states(), None, limit)


def neighbourhood_graph(model: BoundModel, trace_states: list[Any], radius: int, limit: int) -> nx.MultiDiGraph:
    """The counterexample's states plus every state within ``radius`` actions after one of them.

    Trace states and the transitions between consecutive ones are marked
    (``on_trace``), so a drawing shows the path and the roads not taken.
    """
    g = _explore(model, trace_states, radius, limit)
    path = [f"n{i}" for i in range(len(trace_states))]  # _explore numbers the start states first
    for n in path:
        g.nodes[n]["on_trace"] = True
    for a, b in zip(path, path[1:]):
        for key in g[a].get(b, {}):
            g.edges[a, b, key]["on_trace"] = True
    return g


def _explore(model: BoundModel, starts: list[Any], radius: int | None, limit: int) -> nx.MultiDiGraph:
    """Breadth-first from ``starts`` (all of them at depth 0), to ``radius`` actions or to the end."""
    g = nx.MultiDiGraph(spec=model.spec.name)
    ids: dict[Any, str] = {}
    depth: dict[Any, int] = {}
    queue: deque = deque()
    spec, c = model.spec, model.c

    def add(s: Any) -> str:
        if s not in ids:
            if len(ids) >= limit:
                raise RenderError(
                    f"the state graph has more than {limit} states; raise --limit or use smaller constants"
                )
            ids[s] = f"n{len(ids)}"
            invs = [inv.name for inv in model.failed_invariants(s)]
            g.add_node(ids[s], index=len(ids) - 1, state=spec.describe_state(c, s), violates=invs,
                       initial=False, on_trace=False)
            queue.append(s)
        return ids[s]

    inits = set(model.init_states())
    for s in starts:
        add(s)
        depth.setdefault(s, 0)
        g.nodes[ids[s]]["initial"] = s in inits
    while queue:
        s = queue.popleft()
        if radius is not None and depth[s] >= radius:
            continue
        for ai, b, t in model.successors(s):
            if not model.in_model(t):
                continue
            depth.setdefault(t, depth[s] + 1)
            g.add_edge(ids[s], add(t), action=model.actions[ai].label(b), on_trace=False)
    return g


def state_graph_json(g: nx.MultiDiGraph) -> str:
    """node-link JSON (networkx's), nodes in discovery order."""
    return json.dumps(nx.node_link_data(g, edges="edges"), indent=1) + "\n"


def state_graph_dot(g: nx.MultiDiGraph) -> str:
    """DOT text; violating states in red, initial states grey, the counterexample's path in amber."""
    lines = ["digraph states {", '  node [shape=box, fontname="Helvetica", fontsize=9];',
             '  edge [fontname="Helvetica", fontsize=8];']
    for n, data in g.nodes(data=True):
        text = "\\l".join(f"{k} = {show(v)}" for k, v in flatten(data["state"]).items()) + "\\l"
        style = ""
        if data["violates"]:
            style += ', color="#b91c1c", penwidth=2'
        if data.get("on_trace"):
            style += ', style="filled,bold", fillcolor="#fef3c7"'
        elif data["initial"]:
            style += ', style=filled, fillcolor="#e2e8f0"'
        lines.append(f'  {n} [label="{_q(text)}"{style}];')
    for a, b, data in g.edges(data=True):
        extra = ', color="#b45309", penwidth=2.5, fontcolor="#b45309"' if data.get("on_trace") else ""
        lines.append(f'  {a} -> {b} [label="{_q(data["action"])}"{extra}];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def _q(text: str) -> str:
    return text.replace('"', '\\"')
