"""One self-contained HTML page per counterexample: steps, swim lanes and the graph.

Everything is inline (CSS, a few lines of JavaScript, the SVG from Graphviz and
the trace data), so the page opens anywhere with no network access.  Three
views of the same trace:

* **Steps**: every action in order; selecting one shows the whole state with
  the fields it changed highlighted; the violated invariant is explained.
* **Lanes**: one row per lane (replica), one column per step: the seeds'
  LEO/HW tables, drawn, with each change highlighted.
* **Graph**: the trace graph as Graphviz lays it out.
"""

from __future__ import annotations

import html
import json

from modelcheck.counterexamples.text import flatten, show

CSS = """
body { font-family: -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif; margin: 0; color: #0f172a; background: #f8fafc; }
header { background: #1e293b; color: white; padding: 16px 24px; }
header h1 { margin: 0 0 4px 0; font-size: 20px; }
header .sub { color: #cbd5e1; font-size: 13px; }
.violation { background: #fef2f2; border-left: 4px solid #b91c1c; padding: 10px 16px; margin: 16px 24px; }
.violation b { color: #b91c1c; }
.violation .story { margin: 8px 0 0 0; }
.violation .story b { color: #0f172a; }
section { margin: 16px 24px; }
h2 { font-size: 16px; margin: 24px 0 8px 0; }
.steps { display: flex; gap: 16px; align-items: flex-start; }
.steplist { list-style: none; padding: 0; margin: 0; min-width: 320px; }
.steplist li { padding: 6px 10px; border: 1px solid #cbd5e1; border-radius: 4px; margin-bottom: 4px; cursor: pointer; background: white; font-size: 13px; }
.steplist li.selected { border-color: #2563eb; background: #eff6ff; }
.steplist li.bad { border-color: #b91c1c; }
.steplist .n { color: #64748b; display: inline-block; width: 28px; }
.detail { flex: 1; background: white; border: 1px solid #cbd5e1; border-radius: 4px; padding: 8px 12px; }
.detail table { border-collapse: collapse; font-size: 13px; }
.detail td { padding: 2px 8px; border-bottom: 1px solid #e2e8f0; font-family: ui-monospace, Menlo, monospace; }
.changed { background: #fde68a; }
table.lanes { border-collapse: collapse; font-size: 12px; background: white; }
table.lanes th, table.lanes td { border: 1px solid #cbd5e1; padding: 4px 6px; vertical-align: top; }
table.lanes th { background: #e2e8f0; }
table.lanes td.badcol, table.lanes th.badcol { border: 2px solid #b91c1c; }
table.lanes .f { color: #64748b; }
table.lanes td div { white-space: nowrap; font-family: ui-monospace, Menlo, monospace; }
.graph { background: white; border: 1px solid #cbd5e1; border-radius: 4px; padding: 8px; overflow: auto; }
.graph g.node { cursor: pointer; }
.graph rect.selbox { fill: #dbeafe; stroke: #2563eb; stroke-width: 3; }
table.lanes th.sel, table.lanes td.sel { background: #eff6ff; box-shadow: inset 0 0 0 2px #2563eb; }
table.lanes th[data-col] { cursor: pointer; }
table.lanes tr > th:first-child { position: sticky; left: 0; z-index: 1; }
.detail table.mini { margin: 6px 0 10px 0; }
.detail table.mini th { background: #e2e8f0; padding: 2px 8px; font-size: 12px; text-align: left; }
.detail h3 { font-size: 13px; margin: 10px 0 2px 0; color: #475569; }
.nav { color: #64748b; font-size: 12px; }
kbd { border: 1px solid #cbd5e1; border-radius: 3px; padding: 0 4px; background: white; font-size: 11px; }
.legend span { padding: 1px 6px; }
"""

JS = r"""
(function () {
  var data = JSON.parse(document.getElementById('trace-data').textContent);
  var items = document.querySelectorAll('.steplist li');
  var detail = document.getElementById('detail');
  function esc(s) { return String(s).replace(/[&<>"]/g, function (c) { return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c]; }); }
  var current = data.steps.length - 1;
  function laneTable(step) {
    var names = Object.keys(step.lanes || {});
    if (!names.length) { return ''; }
    var fields = Object.keys(step.lanes[names[0]]);
    var head = '<tr><th></th>' + fields.map(function (f) { return '<th>' + esc(f) + '</th>'; }).join('') + '</tr>';
    var body = names.map(function (n) {
      var changed = step.laneChanges[n] || [];
      return '<tr><th>' + esc(n) + '</th>' + fields.map(function (f) {
        return '<td' + (changed.indexOf(f) >= 0 ? ' class="changed"' : '') + '>' + esc(step.lanes[n][f]) + '</td>';
      }).join('') + '</tr>';
    }).join('');
    return '<h3>Replicas</h3><table class="mini">' + head + body + '</table><h3>All variables</h3>';
  }
  function select(i) {
    current = i;
    items.forEach(function (li) { li.classList.toggle('selected', Number(li.dataset.i) === i); });
    document.querySelectorAll('table.lanes [data-col]').forEach(function (c) { c.classList.toggle('sel', Number(c.dataset.col) === i); });
    var th = document.querySelector('table.lanes th[data-col="' + i + '"]');
    if (th) {  // keep the selected step's column in view, without scrolling the page
      var box = th.closest('.lanebox'), r = th.getBoundingClientRect(), b = box.getBoundingClientRect();
      if (r.right > b.right) { box.scrollLeft += r.right - b.right; }
      else if (r.left < b.left + 40) { box.scrollLeft -= b.left + 40 - r.left; }
    }
    document.querySelectorAll('.graph rect.selbox').forEach(function (r) { r.remove(); });
    document.querySelectorAll('.graph g.node').forEach(function (g) {
      var t = g.querySelector('title');
      var on = t !== null && t.textContent === 's' + (i + 1);
      g.classList.toggle('sel', on);
      if (on && g.getBBox) {  // a frame around the whole node (a Graphviz table node has no outline of its own)
        var bb = g.getBBox(), r = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
        r.setAttribute('class', 'selbox');
        r.setAttribute('x', bb.x - 6); r.setAttribute('y', bb.y - 6);
        r.setAttribute('width', bb.width + 12); r.setAttribute('height', bb.height + 12);
        r.setAttribute('rx', 6);
        g.insertBefore(r, g.firstChild);
      }
    });
    var step = data.steps[i];
    var rows = step.fields.map(function (f) {
      var cls = step.changed.indexOf(f[0]) >= 0 ? ' class="changed"' : '';
      return '<tr><td>' + esc(f[0]) + '</td><td' + cls + '>' + esc(f[1]) + '</td></tr>';
    }).join('');
    detail.innerHTML = '<div><b>State ' + (i + 1) + '</b> ' + (step.action ? 'after <code>' + esc(step.action) + '</code>' : '(initial state)') +
      (i === data.steps.length - 1 ? ' <b style="color:#b91c1c">' + esc(data.verdict) + '</b>' : '') + '</div>' +
      laneTable(step) + '<table>' + rows + '</table>';
  }
  items.forEach(function (li) { li.addEventListener('click', function () { select(Number(li.dataset.i)); }); });
  document.querySelectorAll('table.lanes th[data-col]').forEach(function (th) {
    th.addEventListener('click', function () { select(Number(th.dataset.col)); });
  });
  document.querySelectorAll('.graph g.node').forEach(function (g) {
    var t = g.querySelector('title');
    var m = t ? /^s(\d+)$/.exec(t.textContent) : null;
    if (m) { g.addEventListener('click', function () { select(Number(m[1]) - 1); }); }
  });
  document.addEventListener('keydown', function (e) {
    var d = (e.key === 'ArrowDown' || e.key === 'ArrowRight' || e.key === 'j') ? 1 :
            (e.key === 'ArrowUp' || e.key === 'ArrowLeft' || e.key === 'k') ? -1 : 0;
    if (d !== 0 && current + d >= 0 && current + d < data.steps.length) { e.preventDefault(); select(current + d); }
  });
  var wanted = /^#step=(\d+)$/.exec(window.location.hash);  // links such as trace.html#step=4
  if (wanted && Number(wanted[1]) >= 1 && Number(wanted[1]) <= data.steps.length) { current = Number(wanted[1]) - 1; }
  select(current);
  document.body.dataset.ready = 'yes';
})();
"""


def _e(value: object) -> str:
    return html.escape(value if isinstance(value, str) else show(value), quote=True)


def render_html(doc: dict, svg: str | None) -> str:
    """The page for a trace document; ``svg`` is the Graphviz drawing (None when unavailable)."""
    v = doc["violation"]
    verdict = f"{v['name']} violated" if v["kind"] == "invariant" else "deadlock"
    steps = doc["steps"]
    consts = ", ".join(f"{k}={val}" for k, val in doc["constants"].items())
    page_data = {
        "verdict": verdict,
        "steps": [
            {
                "action": s["action"],
                "fields": [[k, show(val)] for k, val in flatten(s["state"]).items()],
                "changed": s.get("changed", []),
                "lanes": {lane: {k: show(v) for k, v in fields.items()} for lane, fields in (s.get("lanes") or {}).items()},
                "laneChanges": _lane_changes(steps[i - 1] if i > 0 else None, s),
            }
            for i, s in enumerate(steps)
        ],
    }
    step_items = "".join(
        f'<li data-i="{i}" class="{"bad" if i == len(steps) - 1 else ""}"><span class="n">{i + 1}</span>'
        f'{_e(s["action"] or "Initial state")}</li>'
        for i, s in enumerate(steps)
    )
    lanes_html = _lanes_table(steps)
    graph_html = (
        f'<div class="graph">{svg}</div>' if svg
        else '<p>Graphviz (dot) is not installed, so the graph is not drawn; the steps and lanes above are complete.</p>'
    )
    # No "<", ">" or "&" at all in the inlined data, so no string can end the script element or open a comment.
    data_json = json.dumps(page_data).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{_e(doc['spec'])}: {_e(verdict)}</title>
<style>{CSS}</style></head>
<body>
<header><h1>{_e(doc['spec'])}: {_e(verdict)} in {len(steps)} states</h1>
<div class="sub">{_e(doc['title'])} &middot; {_e(consts)}</div></header>
<div class="violation" id="verdict"><b>{_e(verdict)}</b>{': ' + _e(v['description']) if v['description'] else ''}
<br>The last state below is the first one, in breadth-first order, where it fails; no shorter trace exists.
{'<p class="story"><b>What happens:</b> ' + _e(doc['story']) + '</p>' if doc.get('story') else ''}</div>
<section id="steps"><h2>Steps</h2>
<p class="legend">Select a step (or a lane column, or a graph node) to see its whole state; <span class="changed">highlighted</span> fields changed in that step. <span class="nav"><kbd>&uarr;</kbd> <kbd>&darr;</kbd> step through.</span></p>
<div class="steps"><ul class="steplist">{step_items}</ul><div class="detail" id="detail"></div></div></section>
<section id="lanes"><h2>Lanes</h2>{lanes_html}</section>
<section id="graph"><h2>Graph</h2>{graph_html}</section>
<script type="application/json" id="trace-data">{data_json}</script>
<script>{JS}</script>
</body></html>
"""


def _lane_changes(prev: dict | None, step: dict) -> dict[str, list[str]]:
    """Per lane, the fields that differ from the previous step (none for the first)."""
    if prev is None:
        return {}
    before = prev.get("lanes") or {}
    return {lane: [k for k, v in fields.items() if before.get(lane, {}).get(k) != v]
            for lane, fields in (step.get("lanes") or {}).items()}


def _lanes_table(steps: list[dict]) -> str:
    """Rows are lanes, columns are steps; each cell lists the lane's fields, changes highlighted."""
    if not any(s.get("lanes") for s in steps):
        return "<p>This spec does not declare lanes.</p>"
    lanes = list((steps[0].get("lanes") or {}).keys())
    last = len(steps) - 1
    head = "".join(
        f'<th data-col="{i}" class="{"badcol" if i == last else ""}">{i + 1}<br><span class="f">{_e(s["action"] or "initial")}</span></th>'
        for i, s in enumerate(steps)
    )
    rows = []
    for lane in lanes:
        cells = []
        prev: dict = {}
        for i, s in enumerate(steps):
            fields = (s.get("lanes") or {}).get(lane, {})
            parts = []
            for k, val in fields.items():
                cls = ' class="changed"' if i > 0 and prev.get(k) != val else ""
                parts.append(f'<div{cls}><span class="f">{_e(k)}</span> {_e(val)}</div>')
            cells.append(f'<td data-col="{i}" class="{"badcol" if i == last else ""}">{"".join(parts)}</td>')
            prev = fields
        rows.append(f"<tr><th>{_e(lane)}</th>{''.join(cells)}</tr>")
    return f'<div class="lanebox" style="overflow:auto"><table class="lanes"><tr><th></th>{head}</tr>{"".join(rows)}</table></div>'
