"""Graphviz output: DOT text, and SVG/PNG through the ``dot`` program.

Each node is a small table.  When the spec provides lanes (one row per
replica), the node shows them as a grid with every lane field: a log as one
cell per offset coloured by epoch, with the HW and LEO marked between cells;
a crashed lane greyed.  The other variables that changed are listed below
(for a growing list, only what was appended), and so is any change of a
replica's variable that no lane field shows.  Changed cells are yellow.  The
violating state is framed in red with the invariant, its explanation, and
its culprit cells in red.
"""

from __future__ import annotations

import html
import shutil
import subprocess
import textwrap

import networkx as nx

from modelcheck.counterexamples import lanes as L
from modelcheck.counterexamples.palette import (CHANGED, CULPRIT_FILL, CULPRIT_LINE, DOWN_FILL, DOWN_TEXT, HW_MARK,
                                                LEO_MARK, epoch_fill)
from modelcheck.counterexamples.text import show
from modelcheck.errors import RenderError

HEADER = "#1e293b"
VIOLATING = CULPRIT_LINE
LANE_HEAD = "#e2e8f0"


def _esc(value: object) -> str:
    return html.escape(show(value) if not isinstance(value, str) else value, quote=True)


def _wrapped(text: str, width: int = 90) -> str:
    return "<BR/>".join(_esc(line) for line in textwrap.wrap(text, width)) or _esc(text)


def _marker(colour: str, caption: str) -> tuple[str, str]:
    """A bar between two log cells and its caption under it (two table cells, one per row)."""
    bar = f'<TD BORDER="0" CELLPADDING="0"><FONT COLOR="{colour}" POINT-SIZE="13"><B>|</B></FONT></TD>'
    cap = f'<TD BORDER="0" CELLPADDING="0"><FONT COLOR="{colour}" POINT-SIZE="7">{caption}</FONT></TD>'
    return bar, cap


def log_cells(value: object, width: int, hw: object, leo: object, culprits: set, down: bool,
              changed: bool) -> str | None:
    """A log as a nested table: one cell per offset up to ``width``, coloured by epoch, with HW/LEO markers.

    None when the value is not written as a log (then it is shown as text).
    """
    items = L.log_items(value)
    if items is None:
        return None
    top, bottom = [], []

    def mark(k: int) -> None:
        at_hw, at_leo = hw == k, leo == k
        if at_hw or at_leo:
            caption = "HW LEO" if at_hw and at_leo else ("HW" if at_hw else "LEO")
            bar, cap = _marker(HW_MARK if at_hw else LEO_MARK, caption)
            top.append(bar)
            bottom.append(cap)

    for k in range(max(width, len(items))):
        mark(k)
        bad = k in culprits
        if k < len(items):
            fill = DOWN_FILL if down else epoch_fill(L.epoch_of(items[k]))
            text = f'<FONT COLOR="{DOWN_TEXT}">{_esc(items[k])}</FONT>' if down else _esc(items[k])
        else:
            fill, text = "#ffffff", '<FONT COLOR="#94a3b8">·</FONT>'
        if bad:
            fill, text = CULPRIT_FILL, f'<FONT COLOR="{CULPRIT_LINE}"><B>{_esc(items[k]) if k < len(items) else "missing"}</B></FONT>'
        border = f' COLOR="{CULPRIT_LINE}" BORDER="2"' if bad else ""
        top.append(f'<TD BGCOLOR="{fill}" WIDTH="34"{border}>{text}</TD>')
        bottom.append(f'<TD BORDER="0" CELLPADDING="0"><FONT POINT-SIZE="7" COLOR="#94a3b8">{k}</FONT></TD>')
    mark(max(width, len(items)))
    if not top:  # an empty log without HW or LEO markers: Graphviz refuses a row without cells
        top.append('<TD BGCOLOR="#ffffff"><FONT COLOR="#94a3b8">empty</FONT></TD>')
        bottom.append('<TD BORDER="0" CELLPADDING="0"></TD>')
    frame = f' BGCOLOR="{CHANGED}"' if changed else ""
    return (f'<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="1" CELLPADDING="2"{frame}>'
            f'<TR>{"".join(top)}</TR><TR>{"".join(bottom)}</TR></TABLE>')


def _last_state_caption(v: dict) -> str:
    """What the last state of the trace is, by the kind of violation."""
    if v["kind"] == "invariant":
        return f": {v['name']} violated"
    if v["kind"] == "deadlock":
        return ": deadlock"
    if v["kind"] == "step":
        return f": the step here breaks {v['name']}"
    if v.get("stuttering"):
        return ": stays here forever"
    return f": back to state {v.get('loop_start')}, forever"


def node_label(g: nx.DiGraph, node: str) -> str:
    """A state's HTML-like label: its lanes as a table, the other changes, and the violation's frame."""
    data = g.nodes[node]
    i = data["index"]
    v = g.graph["violation"]
    head_color = VIOLATING if data["violating"] else HEADER
    title = f"State {i}"
    if data["initial"]:
        title += " (initial)"
    if data["violating"]:
        title += _last_state_caption(v)
    lanes = data["lanes"]
    fields = L.fields_of(lanes) if lanes else []
    ncols = max(len(fields) + 1, 2)
    bad = L.culprit_cells(v) if data["violating"] else {}
    bad_vars = L.culprit_variables(v) if data["violating"] else set()
    width = g.graph.get("log_width", 0)
    rows = [f'<TR><TD COLSPAN="{ncols}" BGCOLOR="{head_color}"><FONT COLOR="white"><B>{_esc(title)}</B></FONT></TD></TR>']
    if lanes:
        rows.append("<TR>" + f'<TD BGCOLOR="{LANE_HEAD}"></TD>' + "".join(
            f'<TD BGCOLOR="{LANE_HEAD}"><B>{_esc(f)}</B></TD>' for f in fields) + "</TR>")
        for lane, values in lanes.items():
            changed = set(data["lane_changes"].get(lane, []))
            down = L.is_down(values)
            cells = []
            for f in fields:
                culprit = bad.get((lane, f))
                nested = None
                if f == L.LOG:
                    nested = log_cells(values.get(f, ""), width, values.get(L.HW), values.get(L.LEO),
                                       {o for o in (culprit or ()) if o is not None}, down, f in changed)
                if nested is not None:
                    whole = f' BGCOLOR="{CULPRIT_FILL}"' if culprit is not None and None in culprit else ""
                    cells.append(f'<TD CELLPADDING="1"{whole}>{nested}</TD>')
                    continue
                if culprit is not None:
                    attrs = f' BGCOLOR="{CULPRIT_FILL}" COLOR="{CULPRIT_LINE}"'
                    text = f'<FONT COLOR="{CULPRIT_LINE}"><B>{_esc(values.get(f, ""))}</B></FONT>'
                else:
                    attrs = f' BGCOLOR="{CHANGED}"' if f in changed else (f' BGCOLOR="{DOWN_FILL}"' if down else "")
                    text = (f'<FONT COLOR="{DOWN_TEXT}">{_esc(values.get(f, ""))}</FONT>' if down
                            else _esc(values.get(f, "")))
                cells.append(f'<TD ALIGN="LEFT"{attrs}>{text}</TD>')
            name = f'<FONT COLOR="{DOWN_TEXT}">{_esc(lane)} (down)</FONT>' if down else _esc(lane)
            rows.append(f'<TR><TD BGCOLOR="{DOWN_FILL if down else LANE_HEAD}"><B>{name}</B></TD>{"".join(cells)}</TR>')
    # Variables: all of them for the first state when there are no lanes, else what changed and no lane shows.
    if data["initial"] and not lanes:
        names = list(data["fields"])
    else:
        names = L.unshown_changes({"lanes": lanes, "changed": data["changed"]}, data["lane_changes"])
    names += [n for n in sorted(bad_vars) if n not in names and n in data["fields"]]
    prev = g.nodes[f"s{i - 1}"]["fields"] if i > 1 else {}
    for name in names:
        color = f' BGCOLOR="{CHANGED}"' if name in data["changed"] else ""
        if name in bad_vars:
            color = f' BGCOLOR="{CULPRIT_FILL}" COLOR="{CULPRIT_LINE}"'
        rows.append(
            f'<TR><TD ALIGN="LEFT"><FONT POINT-SIZE="10">{_esc(name)}</FONT></TD>'
            f'<TD ALIGN="LEFT" BALIGN="LEFT" COLSPAN="{ncols - 1}"{color}>'
            f'{_value_change(prev.get(name), data["fields"].get(name, ""))}</TD></TR>'
        )
    if data["violating"] and v["description"]:  # last, under everything that changed
        said = "Broken by this behaviour, not by one state" if v["kind"] == "liveness" else "Violated"
        rows.append(f'<TR><TD COLSPAN="{ncols}" ALIGN="LEFT" BALIGN="LEFT"><FONT COLOR="{VIOLATING}" POINT-SIZE="10">'
                    f'<B>{said}:</B> {_wrapped(v["description"], 110)}</FONT></TD></TR>')
    if data["violating"] and v.get("explanation"):
        rows.append(f'<TR><TD COLSPAN="{ncols}" ALIGN="LEFT" BALIGN="LEFT" BGCOLOR="{CULPRIT_FILL}">'
                    f'<FONT COLOR="{VIOLATING}"><B>Why:</B> {_wrapped(v["explanation"], 100)}</FONT></TD></TR>')
    return '<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="4">' + "".join(rows) + "</TABLE>>"


def _value_change(before: object, after: object) -> str:
    """A changed value; for a list that grew at its end, only the items appended (one per line)."""
    if isinstance(before, list) and isinstance(after, list) and len(after) > len(before) and after[:len(before)] == before:
        return "<BR/>".join("+ " + _esc(item) for item in after[len(before):])
    return _wrapped(show(after), 100)


# DOT written as text: networkx's DOT writers need pydot or pygraphviz, and the dependencies are a fixed set.
def to_dot(g: nx.DiGraph) -> str:
    """DOT text for a trace graph."""
    v = g.graph["violation"]
    label = f"{g.graph['spec']}: deadlock" if v["kind"] == "deadlock" else f"{g.graph['spec']}: {v['name']} violated"
    consts = ", ".join(f"{k}={val}" for k, val in g.graph["constants"].items())
    story = "".join(f"<BR/>{_esc(line)}" for line in textwrap.wrap(g.graph.get("story", ""), 90))
    why = "".join(f"<BR/>{_esc(line)}" for line in textwrap.wrap(v.get("explanation", ""), 90))
    title = (f'<<B>{_esc(label)}</B><BR/><FONT POINT-SIZE="12">{_esc(consts)}</FONT>'
             + (f'<FONT POINT-SIZE="12" COLOR="#334155">{story}</FONT>' if story else "")
             + (f'<FONT POINT-SIZE="12" COLOR="{VIOLATING}">{why}</FONT>' if why else "") + '<BR/> >')
    lines = [
        "digraph trace {",
        f'  graph [rankdir=TB, fontname="Helvetica", labelloc=t, fontsize=16, label={title}];',
        '  node [shape=plain, fontname="Helvetica", fontsize=11];',
        '  edge [fontname="Helvetica", fontsize=11, color="#475569"];',
    ]
    for node in g.nodes:
        data = g.nodes[node]
        extra = f', color="{VIOLATING}", penwidth=2' if data["violating"] else ""
        lines.append(f"  {node} [label={node_label(g, node)}{extra}];")
    for a, b, data in g.edges(data=True):
        if data.get("back"):  # a lasso's loop: drawn apart, so that the chain keeps its order
            lines.append(f'  {a} -> {b} [label=" {_dot_str(data["action"])} ", style=dashed, color="{VIOLATING}", '
                         f'fontcolor="{VIOLATING}", penwidth=2, constraint=false];')
        else:
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
