"""The trace page's Lanes view: one column per lane field, so a field reads straight down (or across).

The seeds' LEO/HW tables are read by following one number, a replica's HW
say, from step to step.  That only works when every value of a field sits
in the same column: so each field (log, LEO, HW, epoch, role...) has its own
column, a step takes one row per lane, and values never wrap.  The other
layout (steps as columns) gives each (lane, field) its own row.  Logs are
drawn offset-aligned with their offsets in the header, coloured by epoch
(the legend above the table says which colour is which epoch); a liveness
loop is marked on its steps and closed by a last row that says where it goes.
"""

from __future__ import annotations

from modelcheck.counterexamples import lanes as L
from modelcheck.counterexamples.lasso import Loop
from modelcheck.counterexamples.causes import culprit_causes
from modelcheck.counterexamples.html_parts import CELL, action_html, cause_link, esc, log_strip
from modelcheck.counterexamples.palette import EPOCH_FILLS


def lane_names(steps: list[dict]) -> list[str]:
    """Every lane of the trace, in the order the spec first gives them."""
    out: list[str] = []
    for step in steps:
        for lane in step.get("lanes") or {}:
            if lane not in out:
                out.append(lane)
    return out


def field_names(steps: list[dict]) -> list[str]:
    """Every lane field of the trace, in the spec's order (the log first, where it has one)."""
    out: list[str] = []
    for step in steps:
        for fields in (step.get("lanes") or {}).values():
            for f in fields:
                if f not in out:
                    out.append(f)
    if L.LOG in out:
        out.remove(L.LOG)
        out.insert(0, L.LOG)
    return out


def epochs_in(steps: list[dict]) -> list[int]:
    """The epochs of every logged record of the trace, in order."""
    seen: set[int] = set()
    for step in steps:
        for fields in (step.get("lanes") or {}).values():
            for item in L.log_items(fields.get(L.LOG)) or []:
                e = L.epoch_of(item)
                if e is not None:
                    seen.add(e)
    return sorted(seen)


def legend_html(steps: list[dict], empty: str = "no record is written in this trace",
                changed: str = "changed in that step", preview: bool = False) -> str:
    """What the colours and bars of a log mean: one swatch per epoch in the trace, then HW and LEO, so a colour
    is never left to guess (the explorer words the empty case and the yellow for one state, and adds the
    outline its action preview draws)."""
    swatches = "".join(f'<span class="swatch e{e % len(EPOCH_FILLS)}">e{e}</span>' for e in epochs_in(steps))
    written = any(L.log_items(fields.get(L.LOG)) for step in steps for fields in (step.get("lanes") or {}).values())
    epochs = (f'<span class="item">record colour = its leader epoch:</span> {swatches}' if swatches
              else '<span class="item">a log: one cell per offset</span>' if written
              else f'<span class="item">{esc(empty)}</span>')
    more = ('<span class="sep"></span><span class="item"><span class="previewkey">outline</span>: what the action '
            'under the pointer would change</span>') if preview else ""
    return (f'<p class="lanelegend">{epochs}<span class="sep"></span>'
            '<span class="item"><span class="bar hw"></span> HW</span> <span class="item"><span class="bar leo"></span> '
            'LEO</span> <span class="item">(a bar before the offset it names)</span><span class="sep"></span>'
            f'<span class="item"><span class="changed">yellow</span>: {esc(changed)}</span>{more}</p>')


def _offsets_header(width: int) -> str:
    """The log column's header: its offsets, aligned with the cells below."""
    offs = "".join(f'<span style="width:{CELL - 2}px">{k}</span>' for k in range(width))
    return f'log<div class="offs" title="offsets">{offs}</div>' if width else "log"


def _cell(fields: dict, f: str, changed: list[str], bad: set | None, width: int, extra: str = "",
          attrs: str = "", causes: dict | None = None) -> str:
    """One field of one lane at one step, as a table cell (``extra``: more classes, ``attrs``: more attributes,
    ``causes``: offset (None: the whole field) -> the step that last changed a culprit cell, linked to)."""
    value = fields.get(f)
    causes = causes or {}
    cls = ["changed" if f in changed else "same", "f-log" if f == L.LOG else "f", *extra.split()]
    if bad is not None and (f != L.LOG or None in bad):
        cls.append("culprit")
    if f == L.LOG and f in fields:
        strip = log_strip(value, width, fields.get(L.HW), fields.get(L.LEO),
                          {o for o in (bad or ()) if o is not None}, L.is_down(fields), causes)
        if strip is not None:
            if "culprit" in cls:
                strip = cause_link(causes.get(None), strip)
            return f'<td class="{" ".join(cls)}"{attrs}>{strip}</td>'
    text = esc(value) if f in fields else ""
    inner = f'<span class="v">{text}</span>'
    if "culprit" in cls:
        inner = cause_link(causes.get(None), inner)
    return f'<td class="{" ".join(cls)}"{attrs}>{inner}</td>'


def _culprits_for(bad: dict, lane: str) -> dict[str, set]:
    return {f: offs for (ln, f), offs in bad.items() if ln == lane}


def _causes_for(causes: dict, lane: str, field: str) -> dict:
    """One culprit field's causes, by offset (None: the whole field)."""
    return {o: c for (ln, f, o), c in causes.items() if ln == lane and f == field}


def lanes_by_rows(doc: dict, loop: Loop | None) -> str:
    """The default layout: per step, a row per lane; a column per field (read straight down)."""
    steps = doc["steps"]
    if not any(s.get("lanes") for s in steps):
        return "<p>This spec does not declare lanes.</p>"
    lanes, fields = lane_names(steps), field_names(steps)
    width = L.max_log_length(steps)
    bad = L.culprit_cells(doc["violation"])
    causes = culprit_causes(doc) if loop is None else {}
    last = len(steps) - 1
    head = ("<thead><tr><th>step</th><th>action</th><th>lane</th>"
            + "".join(f'<th class="{"f-log" if f == L.LOG else "f"}">'
                      f'{_offsets_header(width) if f == L.LOG else esc(f)}</th>' for f in fields)
            + "</tr></thead>")
    bodies = []
    for i, step in enumerate(steps):
        changes = L.lane_changes(steps[i - 1] if i else None, step)
        groups = ["step"]
        if i == last and loop is None:
            groups.append("bad")
        if loop is not None and loop.contains(i + 1):
            groups.append("inloop")
            if i + 1 == loop.start:
                groups.append("loopstart")
        rows = []
        for k, lane in enumerate(lanes):
            values = (step.get("lanes") or {}).get(lane, {})
            culprits = _culprits_for(bad, lane) if i == last else {}
            lead = ""
            if k == 0:
                lead = (f'<th data-col="{i}" tabindex="-1" rowspan="{len(lanes)}">{i + 1}</th>'
                        f'<td class="act" rowspan="{len(lanes)}">{action_html(step["action"] or "initial state")}</td>')
            cells = "".join(_cell(values, f, changes.get(lane, []), culprits.get(f), width,
                                  causes=_causes_for(causes, lane, f) if i == last else None) for f in fields)
            rows.append(f'<tr data-row="{i}" class="{"down" if L.is_down(values) else ""}">{lead}'
                        f'<th class="lane">{esc(lane)}</th>{cells}</tr>')
        bodies.append(f'<tbody class="{" ".join(groups)}">{"".join(rows)}</tbody>')
    if loop is not None:
        bodies.append(f'<tbody class="loopback"><tr><th data-col="{loop.start - 1}" tabindex="-1">'
                      f'{"&#x27F2;" if loop.stuttering else "&#x21BA;"}</th>'
                      f'<td colspan="{2 + len(fields)}">{action_html(loop.closing_text())}</td></tr></tbody>')
    return (f'<div class="lanebox" id="lanes-rows"><table class="lanes rows">{head}{"".join(bodies)}</table></div>')


def lanes_by_columns(doc: dict, loop: Loop | None) -> str:
    """The other layout: a column per step, a row per lane field (read across)."""
    steps = doc["steps"]
    if not any(s.get("lanes") for s in steps):
        return ""
    lanes, fields = lane_names(steps), field_names(steps)
    width = L.max_log_length(steps)
    bad = L.culprit_cells(doc["violation"])
    causes = culprit_causes(doc) if loop is None else {}
    last = len(steps) - 1

    def col_class(i: int) -> str:
        cls = []
        if i == last and loop is None:
            cls.append("badcol")
        if loop is not None and loop.contains(i + 1):
            cls.append("inloop")
        return " ".join(cls)

    head = "".join(
        f'<th data-col="{i}" class="{col_class(i)}">{i + 1}<br><span class="f">'
        f'{action_html(s["action"] or "initial")}</span></th>'
        for i, s in enumerate(steps))
    if loop is not None:
        head += (f'<th class="loopback" data-col="{loop.start - 1}">{"&#x27F2;" if loop.stuttering else "&#x21BA;"}'
                 f'<br><span class="f">{action_html(loop.closing_text())}</span></th>')
    rows = []
    for lane in lanes:
        for k, f in enumerate(fields):
            lead = f'<th class="lane" rowspan="{len(fields)}">{esc(lane)}</th>' if k == 0 else ""
            cells = []
            for i, step in enumerate(steps):
                changes = L.lane_changes(steps[i - 1] if i else None, step)
                values = (step.get("lanes") or {}).get(lane, {})
                culprits = _culprits_for(bad, lane) if i == last else {}
                down = " down" if L.is_down(values) else ""
                cells.append(_cell(values, f, changes.get(lane, []), culprits.get(f), width,
                                   col_class(i) + down, f' data-col="{i}"',
                                   _causes_for(causes, lane, f) if i == last else None))
            tail = '<td class="loopback"></td>' if loop is not None else ""
            rows.append(f'<tr class="{"first" if k == 0 else ""}">{lead}<th class="fname">'
                        f'{_offsets_header(width) if f == L.LOG else esc(f)}</th>{"".join(cells)}{tail}</tr>')
    return (f'<div class="lanebox" id="lanes-cols" hidden><table class="lanes cols"><tr><th></th><th></th>{head}</tr>'
            f'{"".join(rows)}</table></div>')
