"""The reachable state graph of a small model, or the neighbourhood of a counterexample, as DOT, SVG, PNG or JSON.

Useful to see a model's shape while writing it, or what else could have
happened around a counterexample.  It keeps every state in memory, so it
refuses, with a clear message, graphs larger than ``limit`` states.

Drawn to be read: the whole graph's boxes hold their states, with each
state's self-loops written inside it instead of drawn as loops and the
actions between two states on one edge.  The neighbourhood of a
counterexample is drawn to fit a laptop's width (:func:`around_violation_dot`):
the path top to bottom, each state as the trace's ``.dot`` draws it (lanes,
log cells, HW/LEO), the violating one framed in red, and beside each state a
column of small boxes for the actions the path did not take (the action and
what it changed), the first few drawn and the rest folded into a count.
"""

from __future__ import annotations

import html
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


def neighbourhood_graph(model: BoundModel, trace_states: list[Any], radius: int, limit: int,
                        violation: dict | None = None) -> nx.MultiDiGraph:
    """The counterexample's states plus every state within ``radius`` actions after one of them.

    Trace states and the transitions between consecutive ones are marked
    (``on_trace``), so a drawing shows the path and the roads not taken.
    Trace states also carry the spec's ``lanes`` (when it has them), and
    ``violation`` (a trace document's violation: kind, name, description,
    explanation, culprits) titles and explains the last one.
    """
    g = _explore(model, trace_states, radius, limit)
    path = [f"n{i}" for i in range(len(trace_states))]  # _explore numbers the start states first
    lanes = model.spec.lanes
    for k, (n, s) in enumerate(zip(path, trace_states)):
        g.nodes[n].update(on_trace=True, step=k + 1, parent=path[k - 1] if k else None)
        if lanes is not None:
            g.nodes[n]["lanes"] = lanes(model.c, s)
    for a, b in zip(path, path[1:]):
        for key in g[a].get(b, {}):
            g.edges[a, b, key]["on_trace"] = True
            g.nodes[b]["via"] = g.edges[a, b, key]["action"]
    g.graph["around_violation"] = True
    g.graph["path"] = path
    if violation is not None:
        g.graph["violation"] = violation
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


# DOT written as text: networkx's DOT writers need pydot or pygraphviz, and the dependencies are a fixed set.
def state_graph_dot(g: nx.MultiDiGraph) -> str:
    """DOT text; violating states in red, initial states grey; around a violation, :func:`around_violation_dot`."""
    if g.graph.get("around_violation"):
        return around_violation_dot(g)
    lines = ["digraph states {", "  graph [rankdir=TB];",
             '  node [shape=box, fontname="Helvetica", fontsize=9];', '  edge [fontname="Helvetica", fontsize=8];']
    for n, data in g.nodes(data=True):
        loops = [d["action"] for _, b, d in g.edges(n, data=True) if b == n]
        lines.append(f'  {n} [label="{_label(data, loops)}"{_style(data)}];')
    merged: dict[tuple[str, str], list[dict]] = {}
    for a, b, data in g.edges(data=True):
        if a != b:  # self-loops are written inside the state's box
            merged.setdefault((a, b), []).append(data)
    for (a, b), edges in merged.items():
        on_trace = any(e.get("on_trace") for e in edges)
        extra = ', color="#b45309", penwidth=2.5, fontcolor="#b45309", weight=20' if on_trace else ""
        label = "\\n".join(_q(e["action"]) for e in edges)
        lines.append(f'  {a} -> {b} [label="{label}"{extra}];')
    lines.append("}")
    return "\n".join(lines) + "\n"


OFF_PATH_SHOWN = 3
"""Around a violation, how many roads not taken are drawn beside a path state; the rest are folded into one node."""


# DOT written as text: networkx's DOT writers need pydot or pygraphviz, and the dependencies are a fixed set.
def around_violation_dot(g: nx.MultiDiGraph, shown: int = OFF_PATH_SHOWN) -> str:
    """DOT for a counterexample's neighbourhood, to be read at laptop width.

    The path runs top to bottom, each state drawn as the trace's ``.dot``
    draws it (its lanes as a table: log cells, HW and LEO); the violating
    state is framed in red.  Beside each path state, on its rank, the states
    one action away that the path did not take are small boxes (the action,
    then only what changed); past ``shown`` of them the rest fold into one
    box (``+5 more from State 3``).  States further out are only counted.
    """
    from modelcheck.counterexamples.dot import VIOLATING, node_label
    from modelcheck.counterexamples.graph import trace_graph

    path: list[str] = g.graph["path"]
    on_path = set(path)
    tg = trace_graph(_path_document(g, path))
    title = _q(f"{g.graph['spec']}: the counterexample top to bottom; beside each state, the other actions it enables")
    lines = ["digraph around_violation {",
             f'  graph [rankdir=TB, nodesep=0.15, ranksep=0.35, fontname="Helvetica", fontsize=12, labelloc=t, '
             f'label="{title}"];',
             '  node [fontname="Helvetica", fontsize=11];',
             '  edge [fontname="Helvetica", fontsize=10, color="#94a3b8", arrowsize=0.6];']
    index = {n: d["index"] for n, d in g.nodes(data=True)}
    further = _further_counts(g, on_path)
    side_edges: list[str] = []
    for k, n in enumerate(path, start=1):
        node = tg.nodes[f"s{k}"]
        loops = sorted({d["action"] for _, b, d in g.edges(n, data=True) if b == n})
        inner = node_label(tg, f"s{k}")[1:-1]
        rows = f"<TR><TD>{inner}</TD></TR>"
        if loops:
            rows += (f'<TR><TD ALIGN="LEFT" BALIGN="LEFT"><FONT POINT-SIZE="9" COLOR="#475569">self-loops: '
                     f'{_html(", ".join(loops))}</FONT></TD></TR>')
        frame = f'BORDER="3" COLOR="{VIOLATING}"' if node["violating"] else 'BORDER="0"'
        lines.append(f'  {n} [shape=plain, group=path, label=<<TABLE {frame} CELLBORDER="0" CELLSPACING="0" '
                     f'CELLPADDING="0">{rows}</TABLE>>];')
        # Beside it, one box listing the roads not taken from it (the first ``shown``, then a count of the rest).
        entries = _roads_not_taken(g, n, path, on_path, index, further)
        if entries:
            keep = entries if len(entries) <= shown + 1 else entries[:shown]
            cells = [cell for _, cell in keep]
            folded = entries[len(keep):]
            if folded:
                cells.append(_fold_cell([e for e, _ in folded], k))
            rows = "".join(f"<TR><TD>{c}</TD></TR>" for c in cells)
            lines.append(f'  off_{n} [shape=plain, label=<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="3" '
                         f'CELLPADDING="0">{rows}</TABLE>>];')
            lines.append(f"  {{ rank=same; {n}; off_{n}; }}")
            side_edges.append(f'  {n} -> off_{n} [style=dashed, weight=0];')
    lines += side_edges
    for a, b, data in tg.edges(data=True):  # the path, and a lasso's way back
        a, b = path[tg.nodes[a]["index"] - 1], path[tg.nodes[b]["index"] - 1]
        if data.get("back"):
            lines.append(f'  {a} -> {b} [label=" {_q(data["action"])} ", style=dashed, color="{VIOLATING}", '
                         f'fontcolor="{VIOLATING}", penwidth=2, constraint=false];')
        else:
            lines.append(f'  {a} -> {b} [label=" {_q(data["action"] or "")} ", color="#b45309", fontcolor="#92400e", '
                         f'penwidth=2.5, arrowsize=0.9, weight=100];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def _roads_not_taken(g: nx.MultiDiGraph, n: str, path: list[str], on_path: set, index: dict,
                     further: dict[str, int]) -> list[tuple[dict, str]]:
    """The other actions a path state enables: ``(summary, HTML cell)`` per state they reach, violating ones first.

    A state on the path is named (``-> State 5``); any other state lists only what differs from ``n``.
    """
    nxt = path[path.index(n) + 1] if n != path[-1] else None
    actions: dict[str, list[str]] = {}
    for _, b, d in g.out_edges(n, data=True):
        if b != n and not (b == nxt and d.get("on_trace")):
            actions.setdefault(b, []).append(d["action"])
    out = []
    before = flatten(g.nodes[n]["state"])
    for b in sorted(actions, key=lambda b: (not g.nodes[b]["violates"], index[b])):
        data = g.nodes[b]
        bad = data["violates"]
        lines = [f"<B>{_html(_short(' / '.join(sorted(actions[b]))))}</B>"]
        if b in on_path:
            lines.append(_html(f"-> State {g.nodes[b]['step']} (on the path)"))
        else:
            flat = flatten(data["state"])
            changes = [_short(_change(k, before.get(k), v)) for k, v in flat.items() if before.get(k, object()) != v]
            lines += [_html(c) for c in changes[:2]] or ["(no variable changed)"]
            if len(changes) > 2:
                lines.append(f"+{len(changes) - 2} more changes")
            if data["parent"] == n and further.get(b):
                lines.append(f"+{further[b]} states further")
        if bad:
            lines.append("<B>violates " + _html(", ".join(bad)) + "</B>")
        colour = "#b91c1c" if bad else "#94a3b8"
        text = "<BR ALIGN=\"LEFT\"/>".join(lines) + '<BR ALIGN="LEFT"/>'
        font = '<FONT POINT-SIZE="8" COLOR="#7f1d1d">' if bad else '<FONT POINT-SIZE="8">'
        cell = (f'<TABLE BORDER="1" STYLE="rounded" COLOR="{colour}" BGCOLOR="{"#fef2f2" if bad else "#f8fafc"}" '
                f'CELLBORDER="0" CELLPADDING="3"><TR><TD ALIGN="LEFT" BALIGN="LEFT">{font}{text}</FONT></TD></TR>'
                f'</TABLE>')
        summary = {"action": sorted(actions[b])[0], "violates": bool(bad),
                   "further": further.get(b, 0) if data["parent"] == n else 0}
        out.append((summary, cell))
    return out


def _fold_cell(folded: list[dict], step: int) -> str:
    """The roads not taken past the first few: how many, by action."""
    by_action: dict[str, int] = {}
    for e in folded:
        name = e["action"].split("(")[0]
        by_action[name] = by_action.get(name, 0) + 1
    lines = [f"<B>+{len(folded)} more from State {step}</B>"]
    lines += [_html(f"{name} x{c}" if c > 1 else name) for name, c in list(by_action.items())[:4]]
    if len(by_action) > 4:
        lines.append(f"and {len(by_action) - 4} other actions")
    bad = sum(1 for e in folded if e["violates"])
    if bad:
        lines.append(f'<FONT COLOR="#b91c1c">{bad} of them violate</FONT>')
    further = sum(e["further"] for e in folded)
    if further:
        lines.append(f"+{further} states further")
    text = "<BR ALIGN=\"LEFT\"/>".join(lines) + '<BR ALIGN="LEFT"/>'
    return (f'<TABLE BORDER="1" STYLE="rounded" COLOR="#cbd5e1" CELLBORDER="0" CELLPADDING="3"><TR>'
            f'<TD ALIGN="LEFT" BALIGN="LEFT"><FONT POINT-SIZE="8" COLOR="#475569">{text}</FONT></TD></TR></TABLE>')


def _path_document(g: nx.MultiDiGraph, path: list[str]) -> dict:
    """The path as a trace document (what :func:`trace_graph` and the trace's DOT nodes read)."""
    from modelcheck.counterexamples.text import changed_fields

    last = g.nodes[path[-1]]
    violation = g.graph.get("violation") or {"kind": "invariant", "name": ", ".join(last["violates"]) or "the check",
                                             "description": ""}
    steps, prev = [], None
    for k, n in enumerate(path, start=1):
        d = g.nodes[n]
        step = {"index": k, "action": d["via"], "action_name": None, "params": {}, "state": d["state"],
                "changed": [] if prev is None else changed_fields(prev, d["state"])}
        if d.get("lanes") is not None:
            step["lanes"] = d["lanes"]
        steps.append(step)
        prev = d["state"]
    return {"spec": g.graph["spec"], "title": "", "violation": violation, "constants": {}, "steps": steps}


def _further_counts(g: nx.MultiDiGraph, on_path: set) -> dict[str, int]:
    """For each off-path state, how many states were first reached beyond it (radius > 1)."""
    count: dict[str, int] = {}
    for n, d in sorted(g.nodes(data=True), key=lambda x: -x[1]["index"]):  # children are found after parents
        p = d["parent"]
        if n not in on_path and p is not None and p not in on_path:
            count[p] = count.get(p, 0) + 1 + count.get(n, 0)
    return count


def _short(text: str, width: int = 42) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


def _html(text: str) -> str:
    return html.escape(text, quote=True)


def _label(data: dict, loops: list[str]) -> str:
    """A box's text lines (left-aligned): its variables, then its self-loops."""
    lines = [f"{k} = {show(v)}" for k, v in flatten(data["state"]).items()]
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
