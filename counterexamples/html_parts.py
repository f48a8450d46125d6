"""HTML fragments shared by the trace page and the explorer: logs as cells, lanes, variables.

Everything from a trace or a spec goes through :func:`esc`.  A log is drawn
offset-aligned (every cell the same width, so offset 3 is at the same place
in every row), coloured by epoch, with the HW and LEO as markers between
cells; a crashed lane is greyed; culprit cells are red.
"""

from __future__ import annotations

import html
from typing import Iterable

from modelcheck.counterexamples import lanes as L
from modelcheck.counterexamples.palette import EPOCH_FILLS
from modelcheck.counterexamples.text import show

CELL = 46
"""Width of one log cell in pixels, gap included (the CSS uses the same)."""


def esc(value: object) -> str:
    """HTML-escaped text of any plain value (TLA+-flavoured for lists, maps and booleans)."""
    return html.escape(value if isinstance(value, str) else show(value), quote=True)


def action_html(label: str) -> str:
    """An action label that may wrap after its opening parenthesis and between parameters, not inside a word."""
    return esc(label).replace("(", "(<wbr>").replace(", ", ", <wbr>")


def epoch_css() -> str:
    """One CSS class per epoch colour (``.e0``, ``.e1``...), the same colours as the SVG and DOT drawings, for log
    cells and the legend's swatches."""
    return "\n".join(f".log .cell.e{i}:not(.culprit), .swatch.e{i} {{ background: {c}; }}"
                      for i, c in enumerate(EPOCH_FILLS))


def cause_attrs(cause: object | None, what: str = "") -> str:
    """The link and tooltip of a culprit cell to the step that last changed it (``cause``: a
    :class:`.causes.Cause`, or None: no link).  Not a tab stop: the causal line above links the same steps."""
    if cause is None:
        return f' title="{esc(what)}"' if what else ""
    tip = (what + ", " if what else "") + cause.tooltip()
    return f' href="#step-{cause.step}" data-cause="{cause.step}" tabindex="-1" title="{esc(tip)}"'


def cause_link(cause: object | None, inner: str) -> str:
    """A culprit cell's content as a link to the step that last changed it (unchanged without a cause)."""
    return inner if cause is None else f'<a class="cause"{cause_attrs(cause)}>{inner}</a>'


def log_strip(value: object, width: int, hw: object, leo: object, culprits: set[int], down: bool = False,
              causes: dict | None = None) -> str | None:
    """A log as a strip of offset cells, or None when ``value`` is not written as a log (``causes``: per culprit
    offset, the step that last changed it; such a cell links to that step)."""
    items = L.log_items(value)
    if items is None:
        return None
    n = max(width, len(items))
    cells = []
    for k in range(n):
        cls = ["cell"]
        if k < len(items):
            epoch = L.epoch_of(items[k])
            if epoch is not None:
                cls.append(f"e{epoch % len(EPOCH_FILLS)}")
            text = esc(items[k])
            if len(items[k]) > 5:  # ``batch0``: six characters of 12-pixel monospace are wider than the cell
                cls.append("long")
        else:
            cls.append("empty")
            text = "missing" if k in culprits else ""
        if k in culprits:
            cls.append("culprit")
        cause = (causes or {}).get(k) if k in culprits else None
        if cause is not None:
            cells.append(f'<a class="{" ".join(cls)} cause"{cause_attrs(cause, f"offset {k}")}>{text}<i>{k}</i></a>')
        else:
            cells.append(f'<span class="{" ".join(cls)}" title="offset {k}">{text}<i>{k}</i></span>')
    marks = []
    for name, at in (("hw", hw), ("leo", leo)):
        if isinstance(at, int) and not isinstance(at, bool) and 0 <= at <= n:
            caption = "HW" if name == "hw" else "LEO"
            if name == "leo" and at == hw:
                continue  # drawn once, captioned for both
            if name == "hw" and at == leo:
                caption = "HW=LEO"
            marks.append(f'<span class="mark {name}" style="left:{at * CELL - 2}px" title="{caption} {at}">'
                         f'<b>{caption}</b></span>')
    style = f' style="width:{n * CELL}px"'
    down_cls = " down" if down else ""
    return f'<div class="log{down_cls}"{style}>{"".join(cells)}{"".join(marks)}</div>'


def replicas_table(lanes: dict, changes: dict[str, list[str]], culprits: dict[tuple[str, str], set],
                   width: int, causes: dict | None = None, keyed: bool = False) -> str:
    """Lanes as a small table: a row per lane, a column per field (the log as a strip); ``causes``
    (``(lane, field, offset) -> Cause``) links culprit cells to the steps that last changed them; ``keyed``
    names each cell's lane and field (``data-lane``, ``data-field``) so the explorer's script can find the
    cells an action would change."""
    causes = causes or {}
    if not lanes:
        return ""
    fields = L.fields_of(lanes)
    head = "<tr><th></th>" + "".join(f"<th>{esc(f)}</th>" for f in fields) + "</tr>"
    rows = []
    for lane, values in lanes.items():
        down = L.is_down(values)
        cells = []
        for f in fields:
            bad = culprits.get((lane, f))
            cls = ["changed" if f in changes.get(lane, []) else "same"]
            if bad is not None:
                cls.append("culprit")
            strip = None
            if f == L.LOG:
                strip = log_strip(values.get(f), width, values.get(L.HW), values.get(L.LEO),
                                  {o for o in (bad or ()) if o is not None}, down,
                                  {o: c for (ln, fn, o), c in causes.items() if ln == lane and fn == f})
                if bad is not None and None not in bad:
                    cls.remove("culprit")
            inner = strip if strip is not None else esc(values.get(f, ""))
            if "culprit" in cls:
                inner = cause_link(causes.get((lane, f, None)), inner)
            key = f' data-lane="{esc(lane)}" data-field="{esc(f)}"' if keyed else ""
            cells.append(f'<td class="{" ".join(cls)}"{key}>{inner}</td>')
        rows.append(f'<tr class="{"down" if down else ""}"><th>{esc(lane)}</th>{"".join(cells)}</tr>')
    return f'<table class="mini">{head}{"".join(rows)}</table>'


def variables_table(flat: dict, changed: list[str], culprit_vars: set[str]) -> str:
    """Every variable (dotted name and value); changed ones highlighted, culprits red."""
    rows = []
    for name, value in flat.items():
        cls = ["changed" if name in changed else "same"]
        if name in culprit_vars:
            cls.append("culprit")
        rows.append(f'<tr class="{" ".join(cls)}"><td>{esc(name)}</td><td>{esc(value)}</td></tr>')
    return f'<table class="vars">{"".join(rows)}</table>'


def message_list(events: list[dict], sent_before: dict[str, dict]) -> str:
    """What one step sent, delivered and dropped, as a list (``sent_before``: messages still in flight, by id)."""
    items = []
    for ev in events:
        if "send" in ev:
            verb = "sent and applied" if ev.get("delivered") else "sent"
            items.append(f'<li><span class="k">{verb}</span> {esc(ev["from"])} &rarr; {esc(ev["to"])}: '
                         f'{esc(ev["label"])}</li>')
        elif "receive" in ev and ev["receive"] in sent_before:
            m = sent_before[ev["receive"]]
            items.append(f'<li><span class="k">applied</span> {esc(m["from"])} &rarr; {esc(m["to"])}: '
                         f'{esc(m["label"])}</li>')
        elif "drop" in ev and ev["drop"] in sent_before:
            m = sent_before[ev["drop"]]
            items.append(f'<li class="dropped"><span class="k">dropped</span> {esc(m["from"])} &rarr; '
                         f'{esc(m["to"])}: {esc(m["label"])} ({esc(ev.get("why", ""))})</li>')
    return f'<ul class="msgs">{"".join(items)}</ul>' if items else ""


def message_lists(per_step: Iterable[list[dict]]) -> list[str]:
    """Each step's :func:`message_list`, following the messages in flight from step to step (a receive or a
    drop names a message an earlier step sent)."""
    out: list[str] = []
    in_flight: dict[str, dict] = {}
    for events in per_step:
        out.append(message_list(events, in_flight))
        for ev in events:
            if "send" in ev and not ev.get("delivered"):
                in_flight[ev["send"]] = ev
            elif "receive" in ev or "drop" in ev:
                in_flight.pop(ev.get("receive", ev.get("drop")), None)
    return out


def value_change(before: object, after: object) -> str:
    """``before -> after`` as HTML; for a list that grew at its end, only the items appended."""
    if isinstance(before, list) and isinstance(after, list) and len(after) > len(before) \
            and after[:len(before)] == before:
        return " ".join(f"<b>+ {esc(item)}</b>" for item in after[len(before):])
    return f"{esc(before)} &rarr; <b>{esc(after)}</b>"
