"""The whole reachable state graph of a small model, as DOT or JSON.

Useful to see a model's shape while writing it.  It keeps every state in
memory, so it refuses, with a clear message, models larger than ``limit``
states.
"""

from __future__ import annotations

import json
from collections import deque
from typing import Any

import networkx as nx

from modelcheck.errors import RenderError
from modelcheck.model import BoundModel
from modelcheck.counterexamples.text import flatten, show


def state_graph(model: BoundModel, limit: int) -> nx.MultiDiGraph:
    """Every reachable state (node ``n0``, ``n1``... in BFS order) and every transition."""
    g = nx.MultiDiGraph(spec=model.spec.name)
    ids: dict[Any, str] = {}
    queue: deque = deque()
    spec, c = model.spec, model.c

    def add(s: Any) -> str:
        if s not in ids:
            if len(ids) >= limit:
                raise RenderError(
                    f"the state graph has more than {limit} states; raise --limit or use smaller constants"
                )
            ids[s] = f"n{len(ids)}"
            invs = [inv.name for inv in model.invariants if not inv.fn(c, s)]
            g.add_node(ids[s], index=len(ids) - 1, state=spec.describe_state(c, s), violates=invs,
                       initial=False)
            queue.append(s)
        return ids[s]

    for s in model.init_states():
        add(s)
        g.nodes[ids[s]]["initial"] = True
    while queue:
        s = queue.popleft()
        for ai, b, t in model.successors(s):
            if not model.in_model(t):
                continue
            g.add_edge(ids[s], add(t), action=model.actions[ai].label(b))
    return g


def state_graph_json(g: nx.MultiDiGraph) -> str:
    return json.dumps(nx.node_link_data(g, edges="edges"), indent=1) + "\n"


def state_graph_dot(g: nx.MultiDiGraph) -> str:
    lines = ["digraph states {", '  node [shape=box, fontname="Helvetica", fontsize=9];',
             '  edge [fontname="Helvetica", fontsize=8];']
    for n, data in g.nodes(data=True):
        text = "\\l".join(f"{k} = {show(v)}" for k, v in flatten(data["state"]).items()) + "\\l"
        style = ""
        if data["violates"]:
            style = ', color="#b91c1c", penwidth=2'
        elif data["initial"]:
            style = ', style=filled, fillcolor="#e2e8f0"'
        lines.append(f'  {n} [label="{_q(text)}"{style}];')
    for a, b, data in g.edges(data=True):
        lines.append(f'  {a} -> {b} [label="{_q(data["action"])}"];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def _q(text: str) -> str:
    return text.replace('"', '\\"')
