"""The sequence diagram of a trace: one lifeline per actor, one row per step, messages as arrows.

Drawn directly as SVG (no Graphviz): a column per actor (the controller, a
producer, then one per broker), a row per step with the action on the left,
and each message as an arrow from its sender at the step that sent it to its
receiver at the step that applied it (horizontal when the model makes the
round trip one step).  Responses are dashed, dropped messages end in a red
cross with the reason, messages still in flight at the end run to the
bottom.  The fields of a broker that changed in a step are written beside
its lifeline, a crashed broker's lifeline is grey and dashed, and the last
row carries the violation with its explanation.  A liveness lasso has no
violating row: its loop is framed (UML's ``loop`` fragment) and closed by a
row that goes back to the loop's first step, or says it stutters forever.

The layout is compact (a trace page scales the drawing down to its box's
width, so that every lifeline stays in view on a narrow screen): lifelines
150 pixels apart, the action names in a 230-pixel gutter.

The output depends only on the trace document, so it is byte-for-byte
stable and checked in with the known traces.
"""

from __future__ import annotations

import html
import textwrap

from modelcheck.counterexamples import lanes as lanes_mod
from modelcheck.counterexamples.lasso import Loop, headline, loop_of_doc, verdict
from modelcheck.counterexamples.messages import Arrow, actors, arrows, has_messages
from modelcheck.counterexamples.palette import CULPRIT_LINE, DOWN_TEXT, kind_colours
from modelcheck.counterexamples.text import show
from modelcheck.errors import RenderError

FONT = "Helvetica, Arial, sans-serif"
CHAR = 6.3
"""Average width of a character at 11 px, to size labels without a font engine."""
GUTTER = 230
SPACING = 150
SLOT = 22
TOP = 96
LOOP_ROW = 34
"""Height of a lasso's closing row, under the last step."""
LOOP_COLOUR = "#e11d48"


def _e(text: object) -> str:
    return html.escape(text if isinstance(text, str) else show(text), quote=True)


def _fit(text: str, width: float) -> list[str]:
    """``text`` in at most two lines of about ``width`` pixels (the second cut with an ellipsis)."""
    per_line = max(8, int(width / CHAR))
    lines = textwrap.wrap(text, per_line, break_on_hyphens=False) or [""]
    if len(lines) > 2:
        lines = [lines[0], textwrap.shorten(" ".join(lines[1:]), per_line, placeholder=" ...")]
    return lines


def _split_action(action: str) -> list[str]:
    """An action label on two lines: the name, then its parameters."""
    name, sep, rest = action.partition("(")
    return [name, "(" + rest] if sep and len(action) > 34 else [action]


class _Layout:
    """Where each row, slot and actor goes; computed once, then drawn."""

    def __init__(self, doc: dict) -> None:
        self.doc = doc
        self.steps = doc["steps"]
        self.arrows = arrows(self.steps)
        self.actors = actors(self.steps, self.arrows)
        self.lanes = list((self.steps[0].get("lanes") or {}).keys())
        self.loop: Loop | None = loop_of_doc(doc)
        self.x = {a: GUTTER + i * SPACING + SPACING // 2 for i, a in enumerate(self.actors)}
        self.width = GUTTER + len(self.actors) * SPACING + SPACING // 2
        self.send_slot: dict[int, int] = {}
        self.end_slot: dict[int, int] = {}
        slots: list[int] = [0] * len(self.steps)
        shared: dict[tuple[int, str, str], int] = {}  # a broadcast leaves its sender at one point
        for k, a in enumerate(self.arrows):
            key = (a.sent, a.sender, a.label)
            if key in shared and a.ended != a.sent:
                self.send_slot[k] = shared[key]
            else:
                self.send_slot[k] = shared[key] = slots[a.sent]
                slots[a.sent] += 2 if self._two_lines(a) else 1
        for k, a in enumerate(self.arrows):  # arrivals below the row's departures
            if a.ended is not None and a.ended != a.sent:
                self.end_slot[k] = slots[a.ended]
                slots[a.ended] += 2 if a.outcome == "dropped" else 1  # a drop's reason is written under it
        self.row_top: list[int] = []
        self.row_height: list[int] = []
        y = TOP
        for i, step in enumerate(self.steps):
            notes = 1 if self.notes(i) else 0
            h = max(44, 14 + SLOT * slots[i] + 16 * notes + 6)
            self.row_top.append(y)
            self.row_height.append(h)
            y += h
        self.bottom = y
        """The bottom of the last step's row."""
        self.end = y + (LOOP_ROW if self.loop is not None else 0)
        """The bottom of the drawing's rows (a lasso's closing row included)."""

    def _two_lines(self, a: Arrow) -> bool:
        span = abs(self.x[a.receiver] - self.x[a.sender]) + 50 if a.ended == a.sent else SPACING * 1.4
        return len(_fit(a.label, max(span, 120))) > 1

    def slot_y(self, row: int, slot: int) -> float:
        return self.row_top[row] + 20 + SLOT * slot

    def notes(self, i: int) -> dict[str, str]:
        """Per lane, the fields that changed in step ``i``, written ``field value``."""
        if i == 0:
            return {}
        changes = lanes_mod.lane_changes(self.steps[i - 1], self.steps[i])
        lanes = self.steps[i].get("lanes") or {}
        return {lane: ", ".join(f"{f} {show(lanes[lane][f])}" for f in fields)
                for lane, fields in changes.items() if fields}


def render_sequence_svg(doc: dict) -> str:
    """The sequence diagram of a trace document, as SVG text."""
    if not has_messages(doc["steps"]):
        raise RenderError(f"spec {doc['spec']} declares no messages (Spec(messages=...)), so there is no "
                          "sequence diagram; use --format svg or html")
    L = _Layout(doc)
    colours = kind_colours([a.kind for a in L.arrows])
    height = L.end + 40
    v = doc["violation"]
    said = verdict(doc)
    why = v.get("explanation") or v.get("description", "")
    if L.loop is not None:
        why = f"{L.loop.closing_text()}, and what it promises never happens ({v.get('description', '')})"
    why_lines = textwrap.wrap(f"{said}: {why}", int((L.width - 40) / 7.0)) if why else []
    legend_lines = _legend_lines(L, colours)
    legend_y = height + 16 * len(why_lines) + 8
    height = legend_y + 16 * len(legend_lines) + 20
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{L.width}" height="{height}" '
           f'viewBox="0 0 {L.width} {height}" font-family="{FONT}" font-size="11" class="seq">',
           f'<title>{_e(doc["spec"])}: {_e(said)}, messages between actors</title>',
           "<defs>"]
    for kind, colour in colours.items():
        out.append(f'<marker id="arrow-{colours_id(kind)}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
                   f'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{colour}"/></marker>')
    out.append(f'<marker id="arrow-loop" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" '
               f'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{LOOP_COLOUR}"/></marker>')
    out.append("</defs>")
    out.append(f'<rect x="0" y="0" width="{L.width}" height="{height}" fill="#ffffff"/>')
    out.append(f'<text x="16" y="24" font-size="15" font-weight="bold">{_e(doc["spec"])}: {_e(said)}</text>')
    consts = ", ".join(f"{k}={val}" for k, val in doc["constants"].items())
    length = headline(doc)[len(said):].lstrip(":").strip()  # "in 9 states", "6 states, then stuttering forever"
    out.append(f'<text x="16" y="42" fill="#475569">{_e(length)} &#183; {_e(consts)}</text>')
    _rows(out, L)
    _lifelines(out, L)
    for k, a in enumerate(L.arrows):
        _arrow(out, L, k, a, colours[a.kind])
    _labels(out, L, colours)
    if L.loop is not None:
        _loop(out, L, L.loop)
    _violation(out, L, why_lines)
    _legend(out, L, colours, legend_y, legend_lines)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def colours_id(kind: str) -> str:
    """A marker id for a kind: letters and digits only (kinds come from the trace file)."""
    return "".join(ch for ch in kind if ch.isalnum()) or "plain"


def _rows(out: list[str], L: _Layout) -> None:
    last = len(L.steps) - 1 if L.loop is None else -1  # a lasso has no violating row
    for i, step in enumerate(L.steps):
        y, h = L.row_top[i], L.row_height[i]
        fill = "#fef2f2" if i == last else ("#f8fafc" if i % 2 else "#ffffff")
        out.append(f'<g class="row" data-step="{i + 1}"><rect x="0" y="{y}" width="{L.width}" height="{h}" '
                   f'fill="{fill}"/>')
        out.append(f'<line x1="0" y1="{y}" x2="{L.width}" y2="{y}" stroke="#e2e8f0"/>')
        out.append(f'<text x="12" y="{y + 18}" font-weight="bold" fill="#64748b">{i + 1}</text>')
        lines = _split_action(step["action"]) if step["action"] else ["initial state"]
        for j, line in enumerate(lines):
            colour = CULPRIT_LINE if i == last else "#0f172a"
            out.append(f'<text x="36" y="{y + 18 + 14 * j}" fill="{colour}">{_e(line)}</text>')
        out.append("</g>")
    out.append(f'<line x1="0" y1="{L.bottom}" x2="{L.width}" y2="{L.bottom}" stroke="#e2e8f0"/>')


def _loop(out: list[str], L: _Layout, loop: Loop) -> None:
    """The loop's frame around its steps, with a ``loop`` tag, and the closing row under them."""
    top = L.row_top[loop.start - 1]
    tag = "stutters forever" if loop.stuttering else "loop"
    tag_w = 16 + int(CHAR * len(tag))
    right = L.width - 3  # the tag in the frame's top right corner, clear of the step's number and action
    out.append(f'<g class="loopframe"><rect x="3" y="{top + 1}" width="{L.width - 6}" height="{L.end - top - 2}" '
               f'fill="none" stroke="{LOOP_COLOUR}" stroke-width="2"/>')
    out.append(f'<path d="M{right},{top + 1} h{-tag_w} v10 l8,8 h{tag_w - 8} z" fill="{LOOP_COLOUR}"/>')
    out.append(f'<text x="{right - 6}" y="{top + 14}" text-anchor="end" fill="#ffffff" font-weight="bold">'
               f'{_e(tag)}</text></g>')
    y = L.bottom
    out.append(f'<g class="row loopback" data-step="{loop.start}"><rect x="4" y="{y}" width="{L.width - 8}" '
               f'height="{LOOP_ROW - 3}" fill="#fff1f2"/>')
    mark = "\u27F2" if loop.stuttering else "\u21BA"
    out.append(f'<text x="12" y="{y + 21}" font-size="13" font-weight="bold" fill="{LOOP_COLOUR}">{mark}</text>')
    out.append(f'<text x="36" y="{y + 21}" font-weight="bold" fill="#9f1239">{_e(loop.closing_text())}</text></g>')
    if not loop.stuttering:  # an arrow up the left margin, from the closing row to the loop's first step
        out.append(f'<path d="M28,{y + 17} H24 V{top + 24} H30" fill="none" stroke="{LOOP_COLOUR}" stroke-width="1.6" '
                   f'marker-end="url(#arrow-loop)"/>')


def _lifelines(out: list[str], L: _Layout) -> None:
    culprit_lanes = {lane for lane, _ in lanes_mod.culprit_cells(L.doc["violation"])}
    for a in L.actors:
        x = L.x[a]
        is_lane = a in L.lanes
        out.append(f'<rect class="actor" x="{x - 60}" y="58" width="120" height="26" rx="4" '
                   f'fill="{"#1e293b" if is_lane else "#475569"}"/>')
        out.append(f'<text x="{x}" y="75" text-anchor="middle" fill="#ffffff" font-weight="bold">{_e(a)}</text>')
        for i, step in enumerate(L.steps):
            y, h = L.row_top[i], L.row_height[i]
            down = is_lane and lanes_mod.is_down((step.get("lanes") or {}).get(a, {}))
            style = f'stroke="{DOWN_TEXT}" stroke-dasharray="3,4"' if down else 'stroke="#334155"'
            out.append(f'<line x1="{x}" y1="{y}" x2="{x}" y2="{y + h}" {style} stroke-width="1.5"/>')
        if is_lane:  # the acting broker's activation bars: the lanes named in each step's parameters
            for i, step in enumerate(L.steps):
                if a in (step.get("params") or {}).values():
                    out.append(f'<rect x="{x - 4}" y="{L.row_top[i] + 4}" width="8" height="{L.row_height[i] - 8}" '
                               f'fill="#e2e8f0" stroke="#334155"/>')
        out.append(f'<line x1="{x}" y1="84" x2="{x}" y2="{L.row_top[0]}" stroke="#334155" stroke-width="1.5"/>')
        if a in culprit_lanes:
            y = L.row_top[-1] + L.row_height[-1] - 10
            out.append(f'<circle cx="{x}" cy="{y}" r="6" fill="{CULPRIT_LINE}"/>')
    for i in range(1, len(L.steps)):
        notes = L.notes(i)
        y = L.row_top[i] + L.row_height[i] - 8
        for lane, text in notes.items():
            short = textwrap.shorten(text, int((SPACING - 14) / 5.8), placeholder=" ...")
            out.append(f'<text x="{L.x[lane] + 8}" y="{y}" font-size="10" fill="#475569">{_e(short)}</text>')


def _arrow(out: list[str], L: _Layout, k: int, a: Arrow, colour: str) -> None:
    x1, x2 = L.x[a.sender], L.x[a.receiver]
    y1 = L.slot_y(a.sent, L.send_slot[k]) + (SLOT if L._two_lines(a) and a.ended == a.sent else 0)
    if a.ended is None:
        y2 = L.bottom - 6
    elif a.ended == a.sent:
        y2 = y1
    else:
        y2 = L.slot_y(a.ended, L.end_slot[k])
    dash = ' stroke-dasharray="6,4"' if a.response or a.ended is None else ""
    if x1 == x2:  # a message to itself: a small loop
        out.append(f'<path d="M{x1},{y1} h30 v{max(y2 - y1, 10)} h-28" fill="none" stroke="{colour}"{dash} '
                   f'stroke-width="1.6" marker-end="url(#arrow-{colours_id(a.kind)})"/>')
        return
    end = f' marker-end="url(#arrow-{colours_id(a.kind)})"' if a.outcome != "dropped" else ""
    if a.outcome == "dropped":  # stop short of the receiver, at a red cross
        x2 = x2 - 14 if x2 > x1 else x2 + 14
    out.append(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{colour}" stroke-width="1.6"{dash}{end}/>')
    if a.outcome == "dropped":
        out.append(f'<path d="M{x2 - 5},{y2 - 5} l10,10 m0,-10 l-10,10" stroke="{CULPRIT_LINE}" stroke-width="2.5"/>')
        anchor, dx = ("end", -10) if x2 > x1 else ("start", 10)
        out.append(f'<text x="{x2 + dx}" y="{y2 + 13}" text-anchor="{anchor}" font-size="10" fill="{CULPRIT_LINE}" '
                   f'stroke="#ffffff" stroke-width="3" paint-order="stroke">dropped: {_e(a.why)}</text>')
    elif a.ended is None:
        out.append(f'<text x="{x2}" y="{y2 + 14}" text-anchor="middle" font-size="10" fill="#475569">'
                   f'still in flight</text>')


def _labels(out: list[str], L: _Layout, colours: dict[str, str]) -> None:
    """Labels last, so they sit over the lines; a broadcast (same step, sender and text) is labelled once."""
    seen: set[tuple[int, str, str]] = set()
    for k, a in enumerate(L.arrows):
        key = (a.sent, a.sender, a.label)
        if key in seen:
            continue
        seen.add(key)
        x1, x2 = L.x[a.sender], L.x[a.receiver]
        y = L.slot_y(a.sent, L.send_slot[k])
        instant = a.ended == a.sent
        if instant:
            lines = _fit(a.label, max(abs(x2 - x1) + 50, 120))
            x, anchor = (x1 + x2) / 2, "middle"
        else:
            lines = _fit(a.label, SPACING * 1.4)
            x, anchor = (x1 + 8, "start") if x2 >= x1 else (x1 - 8, "end")
        for j, line in enumerate(lines):
            out.append(f'<text x="{x:.0f}" y="{y - 4 + 13 * j:.0f}" text-anchor="{anchor}" fill="{colours[a.kind]}" '
                       f'stroke="#ffffff" stroke-width="3" paint-order="stroke">{_e(line)}</text>')


def _violation(out: list[str], L: _Layout, lines: list[str]) -> None:
    for j, line in enumerate(lines):
        weight = ' font-weight="bold"' if j == 0 else ""
        out.append(f'<text x="16" y="{L.end + 24 + 16 * j}" font-size="12" fill="{CULPRIT_LINE}"{weight}>'
                   f'{_e(line)}</text>')


def _legend_lines(L: _Layout, colours: dict[str, str]) -> list[str]:
    """The legend's explanation, wrapped to the drawing's width (after one line of message kinds)."""
    what = ["solid: request", "dashed: response or still in flight", "red cross: dropped",
            "grey dashed lifeline: broker down"]
    what.append("rose frame: the loop that repeats forever" if L.loop is not None
                else "red dot: where the invariant breaks")
    return textwrap.wrap(", ".join(what), max(40, int((L.width - 32) / CHAR)))


def _legend(out: list[str], L: _Layout, colours: dict[str, str], y: int, lines: list[str]) -> None:
    x = 16
    for kind, colour in colours.items():
        out.append(f'<line x1="{x}" y1="{y}" x2="{x + 24}" y2="{y}" stroke="{colour}" stroke-width="2"/>')
        out.append(f'<text x="{x + 30}" y="{y + 4}" fill="{colour}">{_e(kind or "message")}</text>')
        x += 40 + int(CHAR * len(kind or "message"))
    for j, line in enumerate(lines):
        out.append(f'<text x="16" y="{y + 20 + 16 * j}" fill="#475569">{_e(line)}</text>')
