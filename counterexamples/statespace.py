"""The reachable state graph of a small model, or the neighbourhood of a counterexample, as DOT, SVG, PNG or JSON.

Useful to see a model's shape while writing it, or what else could have
happened around a counterexample.  It keeps every state in memory, so it
refuses, with a clear message, graphs larger than ``limit`` states.

Drawn to be read: the whole graph's boxes hold their states, with each
state's self-loops written inside it instead of drawn as loops and the
actions between two states on one edge; the neighbourhood of a
counterexample labels its path "State k" and every road not taken with the
action that takes it, and each box lists only what differs from the state it
was reached from (the first state of the path in full).
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
    for k, n in enumerate(path):
        g.nodes[n].update(on_trace=True, step=k + 1, parent=path[k - 1] if k else None)
    for a, b in zip(path, path[1:]):
        for key in g[a].get(b, {}):
            g.edges[a, b, key]["on_trace"] = True
            g.nodes[b]["via"] = g.edges[a, b, key]["action"]
    g.graph["around_violation"] = True
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
                       initial=False, on_trace=False, parent=None, via=None)
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
            new = t not in ids
            label = model.actions[ai].label(b)
            g.add_edge(ids[s], add(t), action=label, on_trace=False)
            if new:  # the state it was first reached from, and how: what its box is drawn against
                g.nodes[ids[t]].update(parent=ids[s], via=label)
    return g


def state_graph_json(g: nx.MultiDiGraph) -> str:
    """node-link JSON (networkx's), nodes in discovery order."""
    return json.dumps(nx.node_link_data(g, edges="edges"), indent=1) + "\n"


def state_graph_dot(g: nx.MultiDiGraph) -> str:
    """DOT text; violating states in red, initial states grey, the counterexample's path in amber.

    Around a violation, a box holds only what changed from the state it was
    reached from; the whole graph's boxes hold whole states.
    """
    around = bool(g.graph.get("around_violation"))
    # Around a violation the path runs left to right and the roads not taken stack beside it.
    lines = ["digraph states {", f"  graph [rankdir={'LR' if around else 'TB'}];",
             '  node [shape=box, fontname="Helvetica", fontsize=9];', '  edge [fontname="Helvetica", fontsize=8];']
    for n, data in g.nodes(data=True):
        loops = [d["action"] for _, b, d in g.edges(n, data=True) if b == n]
        lines.append(f'  {n} [label="{_label(g, n, data, around, loops)}"{_style(data)}];')
    merged: dict[tuple[str, str], list[dict]] = {}
    for a, b, data in g.edges(data=True):
        if a != b:  # self-loops are written inside the state's box
            merged.setdefault((a, b), []).append(data)
    for (a, b), edges in merged.items():
        on_trace = any(e.get("on_trace") for e in edges)
        extra = ', color="#b45309", penwidth=2.5, fontcolor="#b45309", weight=20' if on_trace else ""
        target = g.nodes[b]
        if around and not on_trace and target.get("parent") == a and [e["action"] for e in edges] == [target["via"]]:
            lines.append(f"  {a} -> {b};")  # the box it leads to is titled with this action already
            continue
        label = "\\n".join(_q(e["action"]) for e in edges)
        lines.append(f'  {a} -> {b} [label="{label}"{extra}];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def _label(g: nx.MultiDiGraph, n: str, data: dict, around: bool, loops: list[str]) -> str:
    """A box's text lines (left-aligned): its title, then its variables or what changed, then its self-loops."""
    flat = flatten(data["state"])
    lines: list[str] = []
    if around and data.get("on_trace"):
        lines.append(f"State {data['step']}")
    elif around and data.get("via"):
        lines.append(data["via"])
    parent = data.get("parent")
    if around and parent is not None:
        before = flatten(g.nodes[parent]["state"])
        changed = [(k, v) for k, v in flat.items() if before.get(k, object()) != v]
        lines += [_change(k, before.get(k), v) for k, v in changed] or ["(no variable changed)"]
    else:
        lines += [f"{k} = {show(v)}" for k, v in flat.items()]
    if data["violates"]:
        lines.append("violates " + ", ".join(data["violates"]))
    if loops:
        lines.append("self-loops: " + ", ".join(loops))
    return "".join(_q(line) + "\\l" for line in lines)


def _change(name: str, before: object, after: object) -> str:
    """``name = value``; a list that grew at its end as ``name += the items appended``."""
    if isinstance(before, list) and isinstance(after, list) and len(after) > len(before) \
            and after[:len(before)] == before:
        return f"{name} += {', '.join(show(x) for x in after[len(before):])}"
    return f"{name} = {show(after)}"


def _style(data: dict) -> str:
    style = ""
    if data["violates"]:
        style += ', color="#b91c1c", penwidth=2, fontcolor="#7f1d1d"'
    if data.get("on_trace"):
        style += ', style="filled,bold", fillcolor="#fef3c7"'
    elif data["initial"]:
        style += ', style=filled, fillcolor="#e2e8f0"'
    return style


def state_graph_output(g: nx.MultiDiGraph, fmt: str) -> bytes:
    """The graph as ``dot``, ``json``, ``svg`` or ``png`` (the last two through Graphviz)."""
    if fmt == "json":
        return state_graph_json(g).encode()
    text = state_graph_dot(g)
    if fmt == "dot":
        return text.encode()
    from modelcheck.counterexamples.dot import run_graphviz

    return run_graphviz(text, fmt)


def _q(text: str) -> str:
    """Text inside a double-quoted DOT string: backslashes, quotes and line breaks escaped."""
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")
