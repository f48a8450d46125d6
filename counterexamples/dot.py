"""Graphviz output: DOT text, and SVG/PNG through the ``dot`` program.

Each node is a small table.  When the spec provides lanes (one row per
replica), the node shows them as a grid; the other variables that changed are
listed below.  Changed cells are highlighted, the initial state is marked, and
the violating state is drawn in red with the invariant named.
"""

from __future__ import annotations

import html
import shutil
import subprocess
import textwrap

import networkx as nx

from modelcheck.counterexamples.text import show
from modelcheck.errors import RenderError

CHANGED = "#fde68a"
HEADER = "#1e293b"
VIOLATING = "#b91c1c"
LANE_HEAD = "#e2e8f0"


def _esc(value: object) -> str:
    return html.escape(show(value) if not isinstance(value, str) else value, quote=True)


def _node_label(g: nx.DiGraph, node: str) -> str:
    data = g.nodes[node]
    i = data["index"]
    head_color = VIOLATING if data["violating"] else HEADER
    title = f"State {i}"
    if data["initial"]:
        title += " (initial)"
    if data["violating"]:
        v = g.graph["violation"]
        title += f": {v['name']} violated" if v["kind"] == "invariant" else ": deadlock"
    lanes = data["lanes"]
    fields = list(next(iter(lanes.values())).keys()) if lanes else []
    ncols = max(len(fields) + 1, 2)
    rows = [f'<TR><TD COLSPAN="{ncols}" BGCOLOR="{head_color}"><FONT COLOR="white"><B>{_esc(title)}</B></FONT></TD></TR>']
    if lanes:
        rows.append("<TR>" + f'<TD BGCOLOR="{LANE_HEAD}"></TD>' + "".join(
            f'<TD BGCOLOR="{LANE_HEAD}"><B>{_esc(f)}</B></TD>' for f in fields) + "</TR>")
        for lane, values in lanes.items():
            changed = set(data["lane_changes"].get(lane, []))
            highlight = f' BGCOLOR="{CHANGED}"'
            cells = "".join(
                f'<TD ALIGN="LEFT"{highlight if f in changed else ""}>{_esc(values.get(f, ""))}</TD>'
                for f in fields
            )
            rows.append(f'<TR><TD BGCOLOR="{LANE_HEAD}"><B>{_esc(lane)}</B></TD>{cells}</TR>')
    # Variables: all of them for the first state when there are no lanes, else only what changed.
    if data["initial"] and not lanes:
        names = list(data["fields"])
    else:
        names = [n for n in data["changed"] if not lanes or not _is_lane_field(n, lanes)]
    for name in names:
        color = f' BGCOLOR="{CHANGED}"' if name in data["changed"] else ""
        rows.append(
            f'<TR><TD ALIGN="LEFT"><FONT POINT-SIZE="10">{_esc(name)}</FONT></TD>'
            f'<TD ALIGN="LEFT" COLSPAN="{ncols - 1}"{color}>{_esc(data["fields"].get(name, ""))}</TD></TR>'
        )
    if data["violating"] and g.graph["violation"]["description"]:  # last, under everything that changed
        rows.append(f'<TR><TD COLSPAN="{ncols}" ALIGN="LEFT"><FONT COLOR="{VIOLATING}" POINT-SIZE="10">'
                    f'<B>Violated:</B> {_esc(g.graph["violation"]["description"])}</FONT></TD></TR>')
    return '<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="4">' + "".join(rows) + "</TABLE>>"


def _is_lane_field(name: str, lanes: dict) -> bool:
    """Variables already shown in the lane grid (per-replica logs and states) are not repeated."""
    parts = name.split(".")
    return len(parts) >= 2 and parts[1] in lanes


def to_dot(g: nx.DiGraph) -> str:
    """DOT text for a trace graph."""
    v = g.graph["violation"]
    label = f"{g.graph['spec']}: {v['name']} violated" if v["kind"] == "invariant" else f"{g.graph['spec']}: deadlock"
    consts = ", ".join(f"{k}={val}" for k, val in g.graph["constants"].items())
    story = "".join(f"<BR/>{_esc(line)}" for line in textwrap.wrap(g.graph.get("story", ""), 90))
    title = (f'<<B>{_esc(label)}</B><BR/><FONT POINT-SIZE="12">{_esc(consts)}</FONT>'
             + (f'<FONT POINT-SIZE="12" COLOR="#334155">{story}</FONT>' if story else "") + '<BR/> >')
    lines = [
        "digraph trace {",
        f'  graph [rankdir=TB, fontname="Helvetica", labelloc=t, fontsize=16, label={title}];',
        '  node [shape=plain, fontname="Helvetica", fontsize=11];',
        '  edge [fontname="Helvetica", fontsize=11, color="#475569"];',
    ]
    for node in g.nodes:
        data = g.nodes[node]
        extra = f', color="{VIOLATING}", penwidth=2' if data["violating"] else ""
        lines.append(f"  {node} [label={_node_label(g, node)}{extra}];")
    for a, b, data in g.edges(data=True):
        lines.append(f'  {a} -> {b} [label=" {_dot_str(data["action"])} "];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def _dot_str(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def graphviz_available() -> bool:
    return shutil.which("dot") is not None


def graphviz_version() -> str | None:
    """``dot -V``'s version (e.g. ``2.43.0``): layouts, hence SVG bytes, differ between versions."""
    exe = shutil.which("dot")
    if exe is None:
        return None
    try:
        p = subprocess.run([exe, "-V"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    words = (p.stderr or p.stdout).split()
    return words[words.index("version") + 1] if "version" in words[:-1] else None


def run_graphviz(dot_text: str, fmt: str) -> bytes:
    """Lay out DOT text with Graphviz ``dot`` and return SVG or PNG bytes."""
    exe = shutil.which("dot")
    if exe is None:
        raise RenderError(
            f"--format {fmt} needs Graphviz's dot program, which is not installed "
            "(bin/setup installs the Debian graphviz package); use --format dot, html or json"
        )
    try:
        p = subprocess.run([exe, f"-T{fmt}"], input=dot_text.encode(), capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        raise RenderError("Graphviz took more than 120 s to lay out the graph") from None
    if p.returncode != 0:
        raise RenderError(f"Graphviz failed: {p.stderr.decode(errors='replace').strip().splitlines()[-1:]}")
    return p.stdout
