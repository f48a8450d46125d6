"""The sequence diagram of a trace: one lifeline per actor, one row per step, messages as arrows.

Drawn directly as SVG (no Graphviz): a column per actor (the controller, a
producer, then one per broker) and a row per step, headed by a band with the
step's number and action.  Under the band, the step's messages, each on its
own line with its label above it, wrapped to the gap between the sender's
lifeline and the next one (a label never crosses a lifeline):

* a message applied in the step that sent it is an arrow from sender to
  receiver: a request (or one-way message) with a filled arrowhead, a
  response with an open one, both solid;
* a message applied in a later step is not a diagonal across the rows: its
  send is a short stub ending in a numbered pill (``m1``, with where it
  goes), and the row that applies it draws the arrow from the same pill,
  at the same place, to the receiver;
* a dropped message ends in a red cross before its receiver, with the
  reason under it;
* a message still in flight when the trace ends has a dotted stub and a
  dotted pill, and a last band, "still in flight when the trace ends",
  draws it dotted, stopping short of its receiver.

Under the messages, the fields of each broker that changed in the step are
written in a note on its lifeline, one field per line, wrapped, never cut
(each note and message also carries a ``<title>`` tooltip with its full
text).  A changed ``log`` (the lanes' convention, ``lanes.py``) is drawn
in its note as a strip of cells, one per offset, coloured by epoch as in
the lanes, the cells the step wrote outlined, a culprit offset red: a batch
written twice, or out of order, is seen where it happens.  A crashed broker's lifeline is grey and dashed, the last row is the
violation with a red dot on the culprit brokers, and the explanation and a
drawn legend close the diagram.  A liveness lasso has no violating row: its
loop is framed (UML's ``loop`` fragment) and closed by a row that goes back
to the loop's first step, or says it stutters forever.

Sized to fit: the drawing is :data:`FIT` pixels wide for up to eight
actors (the lifelines closer together the more actors there are), so a
trace page at 800 pixels shows it unscaled, with no text under 11 pixels;
wider screens show it at the same size.  Text widths are estimated with
DejaVu Sans's advance widths (wider than Helvetica's and Arial's), so a
label measured to fit its gap fits in every browser.

The output depends only on the trace document, so it is byte-for-byte
stable and checked in with the known traces.  The explorer draws the path
walked so far with the same function: a document whose ``violation`` is
None is a path, not a counterexample, so no row is red and no verdict is
written; it asks for a narrower drawing (``width``) to fit its state panel.
"""

from __future__ import annotations

import html
import re

import attrs

from modelcheck.counterexamples import lanes as lanes_mod
from modelcheck.counterexamples.lasso import Loop, headline, loop_of_doc, verdict
from modelcheck.counterexamples.messages import Arrow, actors, arrows, has_messages
from modelcheck.counterexamples.palette import CULPRIT_FILL, CULPRIT_LINE, DOWN_TEXT, epoch_fill, kind_colours
from modelcheck.counterexamples.text import show
from modelcheck.errors import RenderError

FONT = "Helvetica, Arial, sans-serif"
FIT = 740
"""The drawing's width: it fits a trace page's box at 800 pixels (762 pixels inside) unscaled."""
MIN_WIDTH = 600
MIN_SPACING = 86
"""Lifelines no closer than this: past eight actors the drawing grows wider than :data:`FIT` (and a narrow
page scales it down)."""
MAX_SPACING = 190
MARGIN = 10
NUM_X = 8
"""Where a row's step number starts; its action follows at :attr:`_Layout.act_x`."""
LINE = 14
"""Line height of 11-pixel text (labels, notes, legend)."""
TITLE_LINE = 15
"""Line height of a row's action (12 pixels)."""
SIZE = 11
"""The smallest text in the drawing."""
LOOP_ROW = 34
"""Height of a lasso's closing row, under the last step."""
LOOP_COLOUR = "#e11d48"
NOTE_FILL = "#fffbeb"
NOTE_LINE = "#f59e0b"
BAND_FILL = "#eef2f7"
STUB = 12
"""Length of a late message's stub, from its sender's lifeline to its pill."""
STRIP_ROW = 19
"""Height of one row of a log strip's cells in a note (a cell is 16 pixels high)."""
CELL_GAP = 2
"""Between two cells of a log strip."""

# Advance widths of DejaVu Sans (what a browser without Helvetica or Arial falls back to, and wider than
# both) for the characters 32 to 126, in hundredths of the font size; any other character counts as 100.
_NORMAL = (32, 40, 46, 84, 64, 95, 78, 27, 39, 39, 50, 84, 32, 36, 32, 34, 64, 64, 64, 64, 64, 64, 64, 64, 64,
           64, 34, 34, 84, 84, 84, 53, 100, 68, 69, 70, 77, 63, 58, 77, 75, 29, 29, 66, 56, 86, 75, 79, 60, 79,
           69, 63, 61, 73, 68, 99, 69, 61, 69, 39, 34, 39, 84, 50, 50, 61, 63, 55, 63, 62, 35, 63, 63, 28, 28,
           58, 28, 97, 63, 61, 63, 63, 41, 52, 39, 63, 59, 82, 59, 59, 52, 64, 34, 64, 84)
_BOLD = (35, 46, 52, 84, 70, 100, 87, 31, 46, 46, 52, 84, 38, 42, 38, 37, 70, 70, 70, 70, 70, 70, 70, 70, 70,
         70, 40, 40, 84, 84, 84, 58, 100, 77, 76, 73, 83, 68, 68, 82, 84, 37, 37, 77, 64, 100, 84, 85, 73, 85,
         77, 72, 68, 81, 77, 110, 77, 72, 73, 46, 37, 46, 84, 50, 50, 67, 72, 59, 72, 68, 44, 72, 71, 34, 34,
         67, 34, 104, 71, 69, 72, 72, 49, 60, 48, 71, 65, 92, 65, 65, 58, 71, 37, 71, 84)
_TOKEN = re.compile(r"\(*[^ (]*(?:\(| +)|\(*[^ (]+|\(+")
"""Where a line may break: after spaces, or after an opening parenthesis that ends a word's name
(``LeaderAndIsr(`` | ``epoch 0``), not one that opens a word (``(controller``)."""


def text_width(text: str, size: float = SIZE, bold: bool = False) -> float:
    """The width of ``text`` in pixels, at least what a browser draws."""
    table = _BOLD if bold else _NORMAL
    return size / 100 * sum(table[ord(c) - 32] if 32 <= ord(c) < 127 else 100 for c in text)


def wrap(text: str, width: float, size: float = SIZE, bold: bool = False, balance: bool = True) -> list[str]:
    """``text`` in lines no wider than ``width``, broken after spaces and opening parentheses (a word longer
    than a line is broken inside).  The lines joined give back ``text`` exactly: nothing is cut.  Balanced,
    the lines are as even as the same number of lines allows (no last line of one word)."""
    lines = _greedy(text, width, size, bold)
    if not balance or len(lines) < 2 or len(text) > 500:
        return lines
    # Among the ways to fill as many lines with a narrower measure, the one with the most even lines that
    # breaks after punctuation (``0, `` | ``acks``) rather than inside a phrase (``record `` | ``0``).
    widest = max(text_width(tok.rstrip(), size, bold) for tok in _TOKEN.findall(text))
    low = max(width / len(lines), min(widest + 0.01, width))
    tries = {tuple(_greedy(text, low + (width - low) * j / 24, size, bold)) for j in range(25)}

    def cost(c: tuple[str, ...]) -> float:
        widths = [text_width(x.rstrip(), size, bold) for x in c]
        inside = sum(1 for x in c[:-1] if x.endswith(" ") and x.rstrip()[-1:].isalnum())
        words = sum(1 for x in c[:-1] if not x.endswith((" ", "(")))  # a word broken in two
        return sum((max(widths) - w) ** 2 for w in widths) + (inside + 4 * words) * (6 * size) ** 2

    return list(min((c for c in tries if len(c) == len(lines)), key=lambda c: (cost(c), c)))


def _greedy(text: str, width: float, size: float, bold: bool) -> list[str]:
    lines: list[str] = []
    line, line_w = "", 0.0
    for tok in _TOKEN.findall(text):
        tok_w = text_width(tok.rstrip(), size, bold)
        if line.strip() and line_w + tok_w > width:
            lines.append(line)
            line, line_w = "", 0.0
        if not line and tok_w > width and len(tok.rstrip()) > 1:
            pieces = _break_word(tok, width, size, bold)
            lines += pieces[:-1]
            tok, tok_w = pieces[-1], text_width(pieces[-1].rstrip(), size, bold)
        line += tok
        line_w = text_width(line, size, bold) if len(line) < 200 else line_w + text_width(tok, size, bold)
    if line or not lines:
        lines.append(line)
    return lines


def _break_word(word: str, width: float, size: float, bold: bool) -> list[str]:
    """A word wider than a line, in pieces that fit: cut before a capital (CamelCase) or after an underscore
    or hyphen (``NOT_LEADER_FOR_`` | ``PARTITION``) when one is in the piece's second half, else where the
    line is full."""
    table = _BOLD if bold else _NORMAL
    pieces: list[str] = []
    start, used = 0, 0.0
    for n, c in enumerate(word):
        w = size / 100 * (table[ord(c) - 32] if 32 <= ord(c) < 127 else 100)
        if n > start and used + w > width and c != " ":
            camel = [m for m in range((start + n) // 2 + 1, n + 1)
                     if (word[m].isupper() and word[m - 1].islower()) or word[m - 1] in "_-"]
            cut = camel[-1] if camel else n
            pieces.append(word[start:cut])
            start, used = cut, text_width(word[cut:n], size, bold)
        used += w
    pieces.append(word[start:])
    return pieces


def _e(text: object) -> str:
    return html.escape(text if isinstance(text, str) else show(text), quote=True)


def _n(v: float) -> str:
    """A coordinate, at most one decimal (the output stays byte-stable)."""
    return f"{round(v, 1):g}"


def _text(x: float, y: float, lines: list[str], *, anchor: str = "start", size: int = SIZE, fill: str = "#0f172a",
          weight: str = "", extra: str = "", height: int = LINE) -> str:
    """One ``<text>``; several lines are tspans, so its text content is the whole text."""
    attrs_ = f'x="{_n(x)}" y="{_n(y)}"'
    if anchor != "start":
        attrs_ += f' text-anchor="{anchor}"'
    if size != SIZE:
        attrs_ += f' font-size="{size}"'
    if weight:
        attrs_ += f' font-weight="{weight}"'
    attrs_ += f' fill="{fill}"{extra}'
    if len(lines) == 1:
        return f"<text {attrs_}>{_e(lines[0])}</text>"
    spans = "".join(f'<tspan x="{_n(x)}" dy="{0 if j == 0 else height}">{_e(line)}</tspan>'
                    for j, line in enumerate(lines))
    return f"<text {attrs_}>{spans}</text>"


def _box(x: float, y: float, w: float, h: float, r: float = 3) -> str:
    """A rounded rectangle as a path (the trace page's CSS recolours only a selected row's ``rect``)."""
    return (f"M{_n(x + r)},{_n(y)} h{_n(w - 2 * r)} a{r},{r} 0 0 1 {r},{r} v{_n(h - 2 * r)} a{r},{r} 0 0 1 {-r},{r} "
            f"h{_n(2 * r - w)} a{r},{r} 0 0 1 {-r},{-r} v{_n(2 * r - h)} a{r},{r} 0 0 1 {r},{-r} z")


@attrs.define
class _Strip:
    """A changed log in a note: its items as cells, as many to a row as the note's width holds."""

    items: list[str]
    fresh: set[int]
    """Offsets the step wrote (appended, or rewrote after a truncation): outlined."""
    bad: set[int]
    """Culprit offsets (the violating row only): red."""
    label_w: float
    cell_w: float
    per_row: int

    @property
    def height(self) -> float:
        return STRIP_ROW * -(-len(self.items) // self.per_row)

    @property
    def width(self) -> float:
        return self.label_w + min(len(self.items), self.per_row) * (self.cell_w + CELL_GAP) - CELL_GAP


def _field_height(lines: list[str] | _Strip) -> float:
    return lines.height if isinstance(lines, _Strip) else LINE * len(lines)


@attrs.define
class _Item:
    """One line of a row: a message sent and applied here (``instant``), the send of a late message
    (``send``), its arrival (``arrive``), or one still in flight at the end (``pending``)."""

    what: str
    k: int
    label: list[str]
    """The label's lines above the arrow (none for the arrival, or a broadcast's second arrow)."""
    note: list[str]
    """Lines under the arrow: why it was dropped, or where a late message goes when that does not fit."""
    top: float = 0.0

    @property
    def line_y(self) -> float:
        return self.top + LINE * len(self.label) + 9

    @property
    def height(self) -> float:
        return LINE * len(self.label) + 19 + (LINE * len(self.note) + 4 if self.note else 0)


class _Layout:
    """Where each row, line and actor goes; computed once, then drawn."""

    def __init__(self, doc: dict, fit: int = FIT) -> None:
        self.doc = doc
        self.steps = doc["steps"]
        self.arrows = arrows(self.steps)
        self.actors = actors(self.steps, self.arrows)
        self.lanes = list((self.steps[0].get("lanes") or {}).keys())
        self.failing = doc.get("violation") is not None
        """False for a path drawn by the explorer: nothing is violated, so the last row is an ordinary one."""
        self.at_end = "when the trace ends" if self.failing else "in the current state"
        self.loop: Loop | None = loop_of_doc(doc) if self.failing else None
        n = len(self.actors)
        left = 40 if self.loop is not None else MARGIN  # a lasso's arrow back up runs in the left margin
        self.act_x = 40 if self.loop is not None else 34
        self.spacing = max(MIN_SPACING, min(MAX_SPACING, (fit - left - MARGIN) / max(n, 1)))
        self.width = max(min(MIN_WIDTH, fit), round(left + n * self.spacing + MARGIN))
        x0 = left + (self.width - left - MARGIN - n * self.spacing) / 2
        self.x = {a: x0 + self.spacing * (i + 0.5) for i, a in enumerate(self.actors)}
        self.late = [k for k, a in enumerate(self.arrows) if a.ended != a.sent]
        self.ident = {k: f"m{j + 1}" for j, k in enumerate(self.late)}
        self.pill_w = {k: text_width(self.ident[k], SIZE, True) + 12 for k in self.late}
        self.pending = [k for k in self.late if self.arrows[k].ended is None]

        # The heading: the verdict, then the trace's length and constants, wrapped.
        said = verdict(doc) if self.failing else "the path so far"
        self.heading = wrap(f"{doc['spec']}: {said}", self.width - 32, 15, True)
        consts = ", ".join(f"{k}={val}" for k, val in doc["constants"].items())
        length = (headline(doc)[len(said):].lstrip(":").strip() if self.failing
                  else f"{len(self.steps)} state{'' if len(self.steps) == 1 else 's'}")
        self.subtitle = wrap(f"{length} \u00b7 {consts}", self.width - 32)
        y = 24 + 19 * (len(self.heading) - 1) + 18 + LINE * (len(self.subtitle) - 1) + 14
        box_w = self.box_width()
        self.names = {a: wrap(a, box_w - 10, 12, True) for a in self.actors}
        self.head_top = y
        self.head_h = 12 + 14 * max((len(v) for v in self.names.values()), default=1)
        y += self.head_h + 12

        # The rows.
        self.items: list[list[_Item]] = [[] for _ in self.steps]
        for k, a in enumerate(self.arrows):  # arrivals first: a step applies what came, then answers
            if a.ended is not None and a.ended != a.sent:
                self.items[a.ended].append(_Item("arrive", k, [], self._drop_lines(k)))
        shared: set[tuple[int, str, str]] = set()  # a broadcast's label is written once
        for k, a in enumerate(self.arrows):
            key = (a.sent, a.sender, a.label)
            label = [] if key in shared else wrap(a.label, self.gap_width())
            shared.add(key)
            if a.ended == a.sent:
                self.items[a.sent].append(_Item("instant", k, label, self._drop_lines(k)))
            else:
                self.items[a.sent].append(_Item("send", k, label, self._whither_lines(k)))
        self.titles: list[list[str]] = []
        self.notes: list[dict[str, list[tuple[str, str]]]] = []
        self.note_lines: list[dict[str, list[list[str] | _Strip]]] = []
        tag_room = 130 if self.loop is not None else 0  # the loop's tag sits in the top right corner
        self.row_top: list[float] = []
        self.row_height: list[float] = []
        self.band_h: list[float] = []
        self.notes_top: list[float] = []
        last = len(self.steps) - 1
        for i, step in enumerate(self.steps):
            title = wrap(step["action"] or "initial state", self.width - self.act_x - 10 - tag_room, 12)
            self.titles.append(title)
            band = TITLE_LINE * len(title) + 8
            self.row_top.append(y)
            self.band_h.append(band)
            h = band + 4
            for item in self.items[i]:
                item.top = y + h
                h += item.height
            notes = self._notes(i)
            self.notes.append(notes)
            lines = {lane: [self._strip(i, lane, f) or wrap(f"{f} {v}", self.spacing - 18) for f, v in fields]
                     for lane, fields in notes.items()}
            self.note_lines.append(lines)
            self.notes_top.append(y + h + 4)
            if lines:
                h += 4 + max(sum(_field_height(x) for x in v) + 8 for v in lines.values())
            if i == last and self.loop is None and self.failing:
                h += 16  # the red dots
            h = max(h + 6, band + 16)
            self.row_height.append(h)
            y += h
        self.bottom = y
        """The bottom of the last step's row."""
        self.end = y + (LOOP_ROW if self.loop is not None else 0)
        """The bottom of the step rows (a lasso's closing row included)."""
        y = self.end
        self.pending_top = y
        self.pending_items: list[_Item] = []
        if self.pending:
            y += TITLE_LINE + 8 + 4
            for k in self.pending:
                item = _Item("pending", k, [], [])
                item.top = y
                self.pending_items.append(item)
                y += item.height
            y += 6
        self.pending_bottom = y

    # -- geometry -------------------------------------------------------------------------------------

    def box_width(self) -> float:
        return min(self.spacing - 10, 150)

    def gap_width(self) -> float:
        """How wide a label may be: the gap between two lifelines, less a margin on each side."""
        return self.spacing - 12

    def direction(self, a: Arrow) -> int:
        """Which way an arrow leaves its sender (a message to itself goes right, unless there is no room)."""
        if a.receiver != a.sender:
            return 1 if self.x[a.receiver] > self.x[a.sender] else -1
        return -1 if a.sender == self.actors[-1] and len(self.actors) > 1 else 1

    def label_x(self, a: Arrow) -> float:
        """The middle of the gap next to the sender, toward the receiver: where the label is written."""
        return self.x[a.sender] + self.direction(a) * self.spacing / 2

    def pill_left(self, k: int) -> float:
        a = self.arrows[k]
        d = self.direction(a)
        return self.x[a.sender] + STUB if d > 0 else self.x[a.sender] - STUB - self.pill_w[k]

    def _drop_lines(self, k: int) -> list[str]:
        a = self.arrows[k]
        return wrap(f"dropped: {a.why}", self.gap_width()) if a.outcome == "dropped" else []

    def _whither_lines(self, k: int) -> list[str]:
        """Where a late message goes, written after its pill, or under it when that does not fit."""
        room = self.spacing - STUB - self.pill_w[k] - 12
        text = f"\u2192 {self.arrows[k].receiver}"
        return [] if text_width(text) <= room else wrap(text, self.gap_width())

    def _strip(self, i: int, lane: str, field: str) -> _Strip | None:
        """A lane's changed ``log`` as cells, or None to write it as text (not a log, empty, or a record too wide
        for the note)."""
        if field != lanes_mod.LOG:
            return None
        items = lanes_mod.log_items((self.steps[i].get("lanes") or {}).get(lane, {}).get(field))
        if not items:
            return None
        before = lanes_mod.log_items((self.steps[i - 1].get("lanes") or {}).get(lane, {}).get(field)) or []
        fresh = {k for k, item in enumerate(items) if k >= len(before) or before[k] != item}
        last = len(self.steps) - 1 if self.loop is None and self.failing else -1
        bad = lanes_mod.culprit_cells(self.doc.get("violation") or {}).get((lane, field), set()) if i == last else set()
        label_w = text_width(field) + 5
        cell_w = max(text_width(item, bold=True) for item in items) + 6
        room = self.spacing - 18 - label_w  # as wide as a note's text may be
        if cell_w > room:
            return None
        per_row = max(1, int((room + CELL_GAP) // (cell_w + CELL_GAP)))
        return _Strip(items, fresh, {k for k in bad if k is not None}, label_w, cell_w, per_row)

    def _notes(self, i: int) -> dict[str, list[tuple[str, str]]]:
        """Per lane, the fields that changed in step ``i`` with their new values."""
        if i == 0:
            return {}
        changes = lanes_mod.lane_changes(self.steps[i - 1], self.steps[i])
        lanes = self.steps[i].get("lanes") or {}
        return {lane: [(f, show(lanes[lane][f])) for f in fields] for lane, fields in changes.items()
                if fields and lane in self.x}


def render_sequence_svg(doc: dict, width: int = FIT) -> str:
    """The sequence diagram of a trace document (or, with ``violation`` None, of a path), as SVG text; ``width``
    is the drawing's width for up to eight actors."""
    if not has_messages(doc["steps"]):
        raise RenderError(f"spec {doc['spec']} declares no messages (Spec(messages=...)), so there is no "
                          "sequence diagram; use --format svg or html")
    L = _Layout(doc, width)
    colours = kind_colours([a.kind for a in L.arrows])
    v = doc.get("violation") or {}
    said = verdict(doc) if L.failing else "the path so far"
    why = (v.get("explanation") or v.get("description", "")) if L.failing else ""
    if L.loop is not None:
        part = f" for {v['loop_part']}" if v.get("loop_part") else ""
        forever = (f"the behaviour stutters forever in state {L.loop.end}" if L.loop.stuttering else
                   f"states {L.loop.start} to {L.loop.end} repeat forever")
        why = f"{forever}; it fails{part}: {v.get('description', '')}"
    why_lines = wrap(f"{said}: {why}", L.width - 32, 12, True) if why else []
    legend_y = L.pending_bottom + 16 + 16 * len(why_lines) + 12
    legend = _legend_items(L, colours)
    legend_rows = _flow(legend, L.width - 32)
    height = round(legend_y + 22 * len(legend_rows) + 8)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{L.width}" height="{height}" '
           f'viewBox="0 0 {L.width} {height}" font-family="{FONT}" font-size="{SIZE}" class="seq">',
           f'<title>{_e(doc["spec"])}: {_e(said)}, messages between actors</title>',
           "<defs>"]
    for kind, colour in colours.items():
        cid = colours_id(kind)
        out.append(f'<marker id="arrow-{cid}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
                   f'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{colour}"/></marker>')
        out.append(f'<marker id="open-{cid}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
                   f'markerHeight="7" orient="auto-start-reverse"><path d="M1,1 L9,5 L1,9" fill="none" '
                   f'stroke="{colour}" stroke-width="1.6"/></marker>')
    out.append(f'<marker id="arrow-loop" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" '
               f'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{LOOP_COLOUR}"/></marker>')
    out.append("</defs>")
    out.append(f'<rect x="0" y="0" width="{L.width}" height="{height}" fill="#ffffff"/>')
    out.append(_text(16, 24, L.heading, size=15, weight="bold", height=19))
    out.append(_text(16, 24 + 19 * (len(L.heading) - 1) + 18, L.subtitle, fill="#475569"))
    _heads(out, L)
    for i in range(len(L.steps)):
        _row(out, L, i, colours)
    if L.loop is not None:
        _loop(out, L, L.loop)
    _pending(out, L, colours)
    _violation(out, L, why_lines)
    _legend(out, L, legend_rows, legend_y)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def colours_id(kind: str) -> str:
    """A marker id for a kind: letters and digits only (kinds come from the trace file)."""
    return "".join(ch for ch in kind if ch.isalnum()) or "plain"


def _heads(out: list[str], L: _Layout) -> None:
    """The actors' boxes, and their lifelines down to the first row."""
    w = L.box_width()
    for a in L.actors:
        x = L.x[a]
        fill = "#1e293b" if a in L.lanes else "#475569"
        out.append(f'<rect class="actor" x="{_n(x - w / 2)}" y="{_n(L.head_top)}" width="{_n(w)}" '
                   f'height="{L.head_h}" rx="4" fill="{fill}"/>')
        lines = L.names[a]
        first = L.head_top + L.head_h / 2 + 4.5 - 7 * (len(lines) - 1)
        out.append(_text(x, first, lines, anchor="middle", size=12, weight="bold", fill="#ffffff"))
        out.append(f'<line x1="{_n(x)}" y1="{_n(L.head_top + L.head_h)}" x2="{_n(x)}" y2="{_n(L.row_top[0])}" '
                   f'stroke="#334155" stroke-width="1.5"/>')


def _lifeline(x: float, y1: float, y2: float, down: bool) -> str:
    style = f'stroke="{DOWN_TEXT}" stroke-dasharray="3,4"' if down else 'stroke="#334155"'
    return f'<line x1="{_n(x)}" y1="{_n(y1)}" x2="{_n(x)}" y2="{_n(y2)}" {style} stroke-width="1.5"/>'


def _row(out: list[str], L: _Layout, i: int, colours: dict[str, str]) -> None:
    """One step: its band (number and action), lifelines, activation bars, messages and notes, in one group
    (a click anywhere on it selects the step)."""
    step = L.steps[i]
    last = len(L.steps) - 1 if L.loop is None and L.failing else -1  # a lasso or a path has no violating row
    y, h, band = L.row_top[i], L.row_height[i], L.band_h[i]
    fill = "#fef2f2" if i == last else ("#f8fafc" if i % 2 else "#ffffff")
    out.append(f'<g class="row" data-step="{i + 1}"><rect x="0" y="{_n(y)}" width="{L.width}" height="{_n(h)}" '
               f'fill="{fill}"/>')
    band_fill = "#fee2e2" if i == last else BAND_FILL
    out.append(f'<path d="M0,{_n(y)} h{L.width} v{band} h{-L.width} z" fill="{band_fill}"/>')
    out.append(f'<line x1="0" y1="{_n(y)}" x2="{L.width}" y2="{_n(y)}" stroke="#cbd5e1"/>')
    colour = CULPRIT_LINE if i == last else "#0f172a"
    out.append(_text(NUM_X, y + 16, [str(i + 1)], size=12, weight="bold", fill="#64748b"))
    out.append(_text(L.act_x, y + 16, L.titles[i], size=12, weight="600" if i == last else "", fill=colour,
                     height=TITLE_LINE))
    lanes = step.get("lanes") or {}
    for a in L.actors:
        down = a in L.lanes and lanes_mod.is_down(lanes.get(a, {}))
        out.append(_lifeline(L.x[a], y + band, y + h, down))
        if a in L.lanes and a in (step.get("params") or {}).values():  # the acting broker's activation bar
            out.append(f'<path d="{_box(L.x[a] - 4, y + band + 3, 8, h - band - 6, 1)}" fill="#e2e8f0" '
                       f'stroke="#334155"/>')
    for item in L.items[i]:
        _message(out, L, item, colours)
    _notes(out, L, i, last)
    if i == last:
        for a in _culprit_lanes(L):
            out.append(f'<circle cx="{_n(L.x[a])}" cy="{_n(y + h - 13)}" r="6" fill="{CULPRIT_LINE}"/>')
    out.append("</g>")
    if i == len(L.steps) - 1:
        out.append(f'<line x1="0" y1="{_n(L.bottom)}" x2="{L.width}" y2="{_n(L.bottom)}" stroke="#cbd5e1"/>')


def _culprit_lanes(L: _Layout) -> list[str]:
    found = {lane for lane, _ in lanes_mod.culprit_cells(L.doc.get("violation") or {})}
    return [a for a in L.actors if a in found]


def _notes(out: list[str], L: _Layout, i: int, last: int) -> None:
    """The changed fields of each broker, in a note on its lifeline: a field a line, wrapped, never cut; a log as
    a strip of cells."""
    top = L.notes_top[i]
    culprits = set(_culprit_lanes(L)) if i == last else set()
    for lane, fields in L.notes[i].items():
        lines = L.note_lines[i][lane]
        height = sum(_field_height(x) for x in lines)
        w = min(L.spacing - 8, max(x.width if isinstance(x, _Strip) else
                                   max(text_width(line.rstrip()) for line in x) for x in lines) + 12)
        x = L.x[lane] - w / 2
        full = ", ".join(f"{f} {v}" for f, v in fields)
        stroke = CULPRIT_LINE if lane in culprits else NOTE_LINE
        out.append(f'<g class="seq-note"><title>{_e(lane)} after step {i + 1}: {_e(full)}</title>'
                   f'<path d="{_box(x, top, w, height + 8)}" fill="{NOTE_FILL}" stroke="{stroke}"/>')
        spans = []
        y = top + 4  # the top of the field's first line
        for (f, _), wrapped in zip(fields, lines):
            if isinstance(wrapped, _Strip):
                spans.append(f'<tspan x="{_n(x + 5)}" y="{_n(y + 13)}" fill="#64748b">{_e(f)}</tspan>')
                spans += _strip(out, wrapped, x + 5, y)
                y += wrapped.height
                continue
            for k, line in enumerate(wrapped):
                if k == 0 and line.startswith(f):  # the field's name in grey, its value in black
                    body = f'<tspan fill="#64748b">{_e(f)}</tspan>{_e(line[len(f):])}'
                else:
                    body = _e(line)
                spans.append(f'<tspan x="{_n(x + 5)}" y="{_n(y + 9 + LINE * k)}">{body}</tspan>')
            y += LINE * len(wrapped)
        out.append(f'<text fill="#1e293b">{"".join(spans)}</text></g>')


def _strip(out: list[str], strip: _Strip, x: float, y: float) -> list[str]:
    """A log's cells from (``x``, ``y``), after its field's name: drawn into ``out``; their texts are returned, to
    go into the note's text (so the note reads as one text, its field names and values in order)."""
    spans = []
    for k, item in enumerate(strip.items):
        cx = x + strip.label_w + (k % strip.per_row) * (strip.cell_w + CELL_GAP)
        cy = y + 1 + (k // strip.per_row) * STRIP_ROW
        fill, line, width, ink = epoch_fill(lanes_mod.epoch_of(item)), "#94a3b8", 1, "#1e293b"
        if k in strip.fresh:
            line, width = NOTE_LINE, 2
        if k in strip.bad:
            fill, line, width, ink = CULPRIT_FILL, CULPRIT_LINE, 2, CULPRIT_LINE
        out.append(f'<path class="seq-cell" d="{_box(cx, cy, strip.cell_w, 16, 2)}" fill="{fill}" stroke="{line}" '
                   f'stroke-width="{width}"><title>offset {k}: {_e(item)}</title></path>')
        weight = ' font-weight="bold"' if k in strip.fresh or k in strip.bad else ""
        spans.append(f'<tspan x="{_n(cx + strip.cell_w / 2)}" y="{_n(cy + 12)}" text-anchor="middle" '
                     f'fill="{ink}"{weight}>{_e(item)}</tspan>')
    return spans


def _pill(L: _Layout, k: int, y: float, colour: str, pending: bool) -> str:
    x = L.pill_left(k)
    w = L.pill_w[k]
    dash = ' stroke-dasharray="2,2"' if pending else ""
    return (f'<path d="{_box(x, y - 8, w, 16, 8)}" fill="#ffffff" stroke="{colour}" stroke-width="1.5"{dash}/>'
            + _text(x + w / 2, y + 4, [L.ident[k]], anchor="middle", weight="bold", fill=colour))


def _head(a: Arrow) -> str:
    return f' marker-end="url(#{"open" if a.response else "arrow"}-{colours_id(a.kind)})"'


def _tooltip(L: _Layout, item: _Item) -> str:
    a = L.arrows[item.k]
    name = f"{L.ident[item.k]}: " if item.k in L.ident else ""
    where = f"{a.sender} \u2192 {a.receiver}"
    if a.ended is None:
        when = f"sent in step {a.sent + 1}, still in flight {L.at_end}"
    elif a.ended == a.sent:
        when = f"step {a.sent + 1}"
    else:
        when = f"sent in step {a.sent + 1}, {'applied' if a.outcome == 'delivered' else 'ended'} in step {a.ended + 1}"
    if a.outcome == "dropped":
        when += f"; dropped: {a.why}"
    return f"<title>{_e(name + a.label)} ({_e(where)}; {_e(when)})</title>"


def _message(out: list[str], L: _Layout, item: _Item, colours: dict[str, str]) -> None:
    """One line of a row: the label above, the arrow (or stub, or pill and arrow), what is under it."""
    a = L.arrows[item.k]
    colour = colours[a.kind]
    x1, x2 = L.x[a.sender], L.x[a.receiver]
    y = item.line_y
    d = L.direction(a)
    out.append(f'<g class="seq-msg" data-what="{item.what}">{_tooltip(L, item)}')
    if item.label:
        out.append(_text(L.label_x(a), item.top + 11, item.label, anchor="middle", fill=colour))
    pending = a.ended is None
    under = y + 17  # the first line under the arrow
    if item.what == "instant":
        if x1 == x2:  # a message to itself: a small loop
            out.append(f'<path d="M{_n(x1)},{_n(y - 4)} h{24 * d} v8 h{-20 * d}" fill="none" stroke="{colour}" '
                       f'stroke-width="1.6"{_head(a)}/>')
        elif a.outcome == "dropped":
            _dropped(out, L, a, x1, y, colour)
        else:
            out.append(f'<line x1="{_n(x1)}" y1="{_n(y)}" x2="{_n(x2)}" y2="{_n(y)}" stroke="{colour}" '
                       f'stroke-width="1.6"{_head(a)}/>')
    elif item.what == "send":
        left = L.pill_left(item.k)
        end = left if d > 0 else left + L.pill_w[item.k]
        dash = ' stroke-dasharray="2,3"' if pending else ""
        out.append(f'<line x1="{_n(x1)}" y1="{_n(y)}" x2="{_n(end)}" y2="{_n(y)}" stroke="{colour}" '
                   f'stroke-width="1.6"{dash}/>')
        out.append(_pill(L, item.k, y, colour, pending))
        whither = f"\u2192 {a.receiver}"
        if not item.note:  # after the pill, on the arrow's line
            if d > 0:
                out.append(_text(left + L.pill_w[item.k] + 5, y + 4, [whither], fill=colour))
            else:
                out.append(_text(left - 5, y + 4, [whither], anchor="end", fill=colour))
    elif item.what == "arrive":
        start = L.pill_left(item.k) + (L.pill_w[item.k] if d > 0 else 0)
        out.append(_pill(L, item.k, y, colour, False))
        if a.outcome == "dropped":
            _dropped(out, L, a, start, y, colour)
        elif x1 == x2:  # back from the pill to the sender's own lifeline
            near = L.pill_left(item.k) + (0 if d > 0 else L.pill_w[item.k])
            out.append(f'<line x1="{_n(near)}" y1="{_n(y)}" x2="{_n(x1)}" y2="{_n(y)}" stroke="{colour}" '
                       f'stroke-width="1.6"{_head(a)}/>')
        else:
            out.append(f'<line x1="{_n(start)}" y1="{_n(y)}" x2="{_n(x2)}" y2="{_n(y)}" stroke="{colour}" '
                       f'stroke-width="1.6"{_head(a)}/>')
    if item.note:  # why it was dropped, beside the receiver; or where it goes, beside the sender
        dropped = a.outcome == "dropped" and item.what != "send"
        under_x = x2 - d * L.spacing / 2 if dropped else L.label_x(a)
        out.append(_text(under_x, under, item.note, anchor="middle", fill=CULPRIT_LINE if dropped else colour))
    out.append("</g>")


def _dropped(out: list[str], L: _Layout, a: Arrow, start: float, y: float, colour: str) -> None:
    """A line that stops short of its receiver at a red cross (the reason is written under it)."""
    x2 = L.x[a.receiver]
    end = x2 - 14 if x2 > start else x2 + 14
    out.append(f'<line x1="{_n(start)}" y1="{_n(y)}" x2="{_n(end)}" y2="{_n(y)}" stroke="{colour}" '
               f'stroke-width="1.6"/>')
    out.append(f'<path d="M{_n(end - 5)},{_n(y - 5)} l10,10 m0,-10 l-10,10" stroke="{CULPRIT_LINE}" '
               f'stroke-width="2.5"/>')


def _pending(out: list[str], L: _Layout, colours: dict[str, str]) -> None:
    """The messages still in flight when the trace ends: dotted, from their pill, short of the receiver."""
    if not L.pending:
        return
    top, bottom = L.pending_top, L.pending_bottom
    lanes = L.steps[-1].get("lanes") or {}
    out.append(f'<g class="seq-inflight"><rect x="0" y="{_n(top)}" width="{L.width}" height="{_n(bottom - top)}" '
               f'fill="#ffffff"/>')
    band = TITLE_LINE + 8
    out.append(f'<path d="M0,{_n(top)} h{L.width} v{band} h{-L.width} z" fill="{BAND_FILL}"/>')
    out.append(f'<line x1="0" y1="{_n(top)}" x2="{L.width}" y2="{_n(top)}" stroke="#cbd5e1"/>')
    out.append(_text(L.act_x, top + 16, [f"still in flight {L.at_end}"], size=12, fill="#475569"))
    for a in L.actors:
        down = a in L.lanes and lanes_mod.is_down(lanes.get(a, {}))
        out.append(_lifeline(L.x[a], top + band, bottom, down))
    for item in L.pending_items:
        a = L.arrows[item.k]
        colour = colours[a.kind]
        d = L.direction(a)
        y = item.line_y
        start = L.pill_left(item.k) + (L.pill_w[item.k] if d > 0 else 0)
        end = L.x[a.receiver] - 12 * d if a.receiver != a.sender else L.x[a.sender] + 2 * d
        out.append(f'<g class="seq-msg" data-what="pending">{_tooltip(L, item)}')
        out.append(_pill(L, item.k, y, colour, True))
        out.append(f'<line x1="{_n(start)}" y1="{_n(y)}" x2="{_n(end)}" y2="{_n(y)}" stroke="{colour}" '
                   f'stroke-width="1.6" stroke-dasharray="2,3"{_head(a)}/></g>')
    out.append(f'<line x1="0" y1="{_n(bottom)}" x2="{L.width}" y2="{_n(bottom)}" stroke="#cbd5e1"/></g>')


def _loop(out: list[str], L: _Layout, loop: Loop) -> None:
    """The loop's frame around its steps, with a ``loop`` tag, and the closing row under them.

    The frame starts under the row of the loop's first state: that row's
    action (and its messages) is the stem's last step, taken once; what
    repeats is every row after it and the closing step back to it."""
    top = L.row_top[loop.start] if loop.start < len(L.steps) else L.bottom
    tag = "stutters forever" if loop.stuttering else "loop"
    tag_w = 16 + int(text_width(tag, SIZE, True))
    right = L.width - 3  # the tag in the frame's top right corner, clear of the step's number and action
    out.append(f'<g class="loopframe"><rect x="3" y="{_n(top + 1)}" width="{L.width - 6}" '
               f'height="{_n(L.end - top - 2)}" fill="none" stroke="{LOOP_COLOUR}" stroke-width="2"/>')
    out.append(f'<path d="M{right},{_n(top + 1)} h{-tag_w} v10 l8,8 h{tag_w - 8} z" fill="{LOOP_COLOUR}"/>')
    out.append(f'<text x="{right - 6}" y="{_n(top + 14)}" text-anchor="end" fill="#ffffff" font-weight="bold">'
               f'{_e(tag)}</text></g>')
    y = L.bottom
    out.append(f'<g class="row loopback" data-step="{loop.start}"><rect x="4" y="{_n(y)}" width="{L.width - 8}" '
               f'height="{LOOP_ROW - 3}" fill="#fff1f2"/>')
    mark = "\u27F2" if loop.stuttering else "\u21BA"
    out.append(f'<text x="{NUM_X}" y="{_n(y + 21)}" font-size="13" font-weight="bold" fill="{LOOP_COLOUR}">'
               f'{mark}</text>')
    out.append(f'<text x="{L.act_x}" y="{_n(y + 21)}" font-weight="bold" fill="#9f1239">{_e(loop.closing_text())}'
               f'</text></g>')
    if not loop.stuttering:  # an arrow up the left margin, from the closing row to the loop's first step
        out.append(f'<path d="M{L.act_x - 6},{_n(y + 17)} H32 V{_n(top + 12)} H{L.act_x - 3}" fill="none" '
                   f'stroke="{LOOP_COLOUR}" stroke-width="1.6" marker-end="url(#arrow-loop)"/>')


def _violation(out: list[str], L: _Layout, lines: list[str]) -> None:
    if lines:
        out.append(_text(16, L.pending_bottom + 24, lines, size=12, fill=CULPRIT_LINE, weight="bold", height=16,
                         extra=' class="seq-verdict"'))


# -- the legend: a small drawing and a few words per item, flowed into lines ---------------------------


def _legend_items(L: _Layout, colours: dict[str, str]) -> list[tuple[str, str]]:
    """(drawing, words) per item; drawings are 28 pixels wide, centred on y=0."""
    items = []
    for kind, colour in colours.items():
        items.append((f'<line x1="0" y1="0" x2="24" y2="0" stroke="{colour}" stroke-width="3"/>', kind or "message"))
    grey = "#475569"
    items.append((f'<line x1="0" y1="0" x2="26" y2="0" stroke="{grey}" stroke-width="1.6" '
                   f'marker-end="url(#arrow-legend)"/>', "request"))
    if any(a.response for a in L.arrows):
        items.append((f'<line x1="0" y1="0" x2="26" y2="0" stroke="{grey}" stroke-width="1.6" '
                      f'marker-end="url(#open-legend)"/>', "response"))
    if L.late:
        items.append((f'<path d="{_box(0, -8, 26, 16, 8)}" fill="#ffffff" stroke="{grey}" stroke-width="1.5"/>'
                      f'<text x="13" y="4" text-anchor="middle" font-weight="bold" fill="{grey}">m1</text>',
                      "applied in a later step, from the same pill"))
    if L.pending:
        items.append((f'<path d="{_box(0, -8, 26, 16, 8)}" fill="#ffffff" stroke="{grey}" stroke-width="1.5" '
                      f'stroke-dasharray="2,2"/><text x="13" y="4" text-anchor="middle" font-weight="bold" '
                      f'fill="{grey}">m2</text>', f"still in flight {L.at_end}"))
    if any(a.outcome == "dropped" for a in L.arrows):
        items.append((f'<path d="M9,-5 l10,10 m0,-10 l-10,10" stroke="{CULPRIT_LINE}" stroke-width="2.5"/>', "dropped"))
    items.append((f'<path d="{_box(0, -8, 26, 16)}" fill="{NOTE_FILL}" stroke="{NOTE_LINE}"/>',
                  "fields that changed"))
    if any(lanes_mod.is_down(v) for st in L.steps for v in (st.get("lanes") or {}).values()):
        items.append((f'<line x1="13" y1="-9" x2="13" y2="9" stroke="{DOWN_TEXT}" stroke-dasharray="3,4" '
                      f'stroke-width="1.5"/>', "broker down"))
    if L.loop is not None:
        items.append((f'<path d="{_box(1, -7, 24, 14, 1)}" fill="none" stroke="{LOOP_COLOUR}" stroke-width="2"/>',
                      "the loop that repeats forever"))
    elif _culprit_lanes(L):
        items.append((f'<circle cx="13" cy="0" r="6" fill="{CULPRIT_LINE}"/>', "where the invariant breaks"))
    return items


def _flow(items: list[tuple[str, str]], width: float) -> list[list[tuple[float, str, str]]]:
    rows: list[list[tuple[float, str, str]]] = [[]]
    x = 0.0
    for drawing, words in items:
        w = 34 + text_width(words)
        if rows[-1] and x + w > width:
            rows.append([])
            x = 0.0
        rows[-1].append((x, drawing, words))
        x += w + 18
    return rows


def _legend(out: list[str], L: _Layout, rows: list[list[tuple[float, str, str]]], y: float) -> None:
    grey = "#475569"
    out.append('<g class="seq-legend"><defs>'
               f'<marker id="arrow-legend" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
               f'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{grey}"/></marker>'
               f'<marker id="open-legend" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
               f'orient="auto"><path d="M1,1 L9,5 L1,9" fill="none" stroke="{grey}" stroke-width="1.6"/></marker>'
               "</defs>")
    for j, row in enumerate(rows):
        for x, drawing, words in row:
            at_x, at_y = 16 + x, y + 22 * j
            out.append(f'<g transform="translate({_n(at_x)},{_n(at_y)})">{drawing}</g>')
            out.append(_text(at_x + 34, at_y + 4, [words], fill=grey))
    out.append("</g>")
