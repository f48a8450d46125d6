"""One self-contained HTML page per counterexample: steps, lanes, messages and the graph.

Everything is inline (the CSS and script from ``trace_page.css`` and
``trace_page.js`` beside this module, the SVG drawings), so the page opens
anywhere with no network access.  Every view is written out as HTML, so
with JavaScript off every step is shown, one after the other; the script
only adds selection: one step at a time, kept in the URL (``#step=N``), in
every view at once.  Four views of the same trace:

* **Steps**: the actions in order (a listbox: Tab to it, arrow keys step);
  the selected state with its lanes and every variable, the changed ones
  highlighted, the messages of that step, and for the last one the violated
  invariant's explanation with its culprit cells in red.
* **Lanes** (:mod:`.html_lanes`): per step a row per lane and a column per
  field, so a field reads straight down (the seeds' LEO/HW tables); logs
  drawn as offset-aligned cells coloured by epoch with HW and LEO markers,
  crashed brokers greyed; steps as columns on request; unchanged fields can
  be hidden.

A liveness counterexample (:mod:`.html_loop`) has no violating state: every
view marks its loop and ends with the step that closes it, and the verdict
names the actions enabled in the loop with their fairness.
* **Messages**: the sequence diagram (:mod:`.seqdiagram`), when the spec
  declares messages.
* **Graph**: the trace graph as Graphviz lays it out.
"""

from __future__ import annotations

import os

from modelcheck.counterexamples import lanes as L
from modelcheck.counterexamples.causes import causal_phrases, culprit_causes
from modelcheck.counterexamples.html_lanes import lanes_by_columns, lanes_by_rows, legend_html
from modelcheck.counterexamples.html_loop import closing_row_html, verdict_html
from modelcheck.counterexamples.lasso import Loop, headline, loop_of_doc
from modelcheck.counterexamples.html_parts import (action_html, epoch_css, esc, message_lists, replicas_table,
                                                   variables_table)
from modelcheck.counterexamples.text import flatten

_HERE = os.path.dirname(os.path.abspath(__file__))


def asset(name: str) -> str:
    """A file shipped beside this module (the page's CSS and script)."""
    with open(os.path.join(_HERE, name), encoding="utf-8") as f:
        return f.read()


def _note(doc: dict, loop: Loop | None) -> str:
    """What kind of counterexample this is, in one paragraph (for a lasso: the loop and its actions)."""
    v = doc["violation"]
    if loop is not None:
        return verdict_html(doc, loop)
    if v["kind"] == "step":
        return ('<p class="note">The last step breaks the property; it is the first such step in breadth-first '
                "order, so no shorter trace exists.</p>")
    return '<p class="note">The last state is the first one, in breadth-first order, where it fails; no shorter trace exists.</p>'


_CAUSE_CSS = """
p.how { color: #1f2937; font-size: 14px; line-height: 1.45; margin: 4px 0 8px 0; overflow-wrap: anywhere; }
p.how b { color: #7f1d1d; }
p.how a { color: #1d4ed8; white-space: nowrap; }
a.cause { color: inherit; text-decoration: none; cursor: pointer; }
td > a.cause { display: block; }
a.cause:hover > .v, a.cause:focus > .v, .log a.cell.cause:hover { text-decoration: underline dotted; }
.log a.cell.cause:hover, .log a.cell.cause:focus { box-shadow: 0 0 0 2px #7f1d1d; }
"""
"""The causal line and the culprit cells' links to the steps that changed them."""


def how_html(doc: dict, loop: Loop | None) -> str:
    """The causal line under the explanation: for each culprit field, the step that last changed it (linked)
    and that step's action; "" for a loop or a violation without lane culprits."""
    if loop is not None:
        return ""
    phrases, more = causal_phrases(doc)
    if not phrases:
        return ""
    parts = []
    for before, n, after in phrases:
        link = f'<a href="#step-{n}" data-cause="{n}">step {n}</a>' if n is not None else ""
        if after.startswith(" (") and after.endswith(")"):  # may wrap inside the action label, not before it
            after_html = f" ({action_html(after[2:-1])})"
        else:
            after_html = esc(after)
        parts.append(f"{esc(before)}{link}{after_html}")
    tail = f"; and {more} more" if more else ""
    return f'<p class="how"><b>How it happened:</b> {"; ".join(parts)}{tail}.</p>'


def _legend(doc: dict, loop: Loop | None) -> str:
    """How to read the steps; the red cells only when there are culprits, the loop only for a lasso."""
    parts = ['Select a step (here, in the lanes, the messages or the graph) to see its whole state; '
             '<span class="changed">highlighted</span> fields changed in that step']
    if doc["violation"].get("culprits"):
        parts.append(', <span class="culprit">red</span> cells break the invariant (click one for the step that '
                     'last changed it)')
    if loop is not None:
        parts.append(', states with a <span class="loopkey">rose bar</span> are the loop that repeats forever (the '
                     'step into its first state is taken once)')
    parts.append('. <span class="nav">Tab to the list, then <kbd>&uarr;</kbd> <kbd>&darr;</kbd>.</span>')
    return f'<p class="legend">{"".join(parts)}</p>'


def render_html(doc: dict, svg: str | None, seq: str | None = None) -> str:
    """The page for a trace document; ``svg`` is the Graphviz drawing and ``seq`` the sequence diagram (None when
    unavailable)."""
    v = doc["violation"]
    verdict = "deadlock" if v["kind"] == "deadlock" else f"{v['name']} violated"
    loop = loop_of_doc(doc)
    steps = doc["steps"]
    consts = ", ".join(f"{k}={val}" for k, val in doc["constants"].items())
    why = v.get("explanation", "")
    why_html = f'<p class="why"><b>Why:</b> {esc(why)}</p>' if why else ""
    graph_html = (
        f'<div class="graph">{svg}</div>' if svg
        else '<p>Graphviz (dot) is not installed, so the graph is not drawn; the steps and lanes above are complete.</p>'
    )
    seq_html = (f'<div class="seqbox">{seq}</div>' if seq
                else "<p>This spec does not declare messages, so there is no sequence diagram.</p>")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(doc['spec'])}: {esc(verdict)}</title>
<style>{asset("trace_page.css")}
{epoch_css()}{_CAUSE_CSS}</style></head>
<body>
<header><h1>{esc(doc['spec'])}: {esc(headline(doc))}</h1>
<div class="sub">{esc(doc['title'])} &middot; {esc(consts)}</div>
<nav><a href="#steps">Steps</a> <a href="#lanes">Lanes</a> <a href="#messages">Messages</a> <a href="#graph">Graph</a></nav>
</header>
<div class="violation" id="verdict"><b>{esc(verdict)}</b>{': ' + esc(v['description']) if v['description'] else ''}
{why_html}{how_html(doc, loop)}
{_note(doc, loop)}
{'<p class="story"><b>What happens:</b> ' + esc(doc['story']) + '</p>' if doc.get('story') else ''}</div>
<section id="steps"><h2>Steps</h2>
{_legend(doc, loop)}
<div class="steps">{_step_list(steps, loop)}<div class="details" id="detail">{_step_details(doc, loop)}</div></div></section>
<section id="lanes"><h2>Lanes</h2>
<div class="toolbar"><button type="button" id="layout" aria-pressed="false">Show steps as columns</button>
<label><input type="checkbox" id="only-changes"> Only what changed</label></div>
{why_html}
{legend_html(steps) if any(st.get("lanes") for st in steps) else ""}
{lanes_by_rows(doc, loop)}
{lanes_by_columns(doc, loop)}</section>
<section id="messages"><h2>Messages</h2>{seq_html}</section>
<section id="graph"><h2>Graph</h2>{graph_html}</section>
<script>{asset("trace_page.js")}</script>
</body></html>
"""


def _step_list(steps: list[dict], loop: Loop | None) -> str:
    """The steps as a listbox; a lasso's loop steps are marked and a last row says where the loop goes."""
    last = len(steps) - 1
    items = []
    for i, s in enumerate(steps):
        cls = []
        if i == last and loop is None:
            cls.append("bad")
        if loop is not None and loop.contains(i + 1):
            cls.append("inloop")
        attr = f' class="{" ".join(cls)}"' if cls else ""
        items.append(f'<li role="option" id="opt-{i + 1}" tabindex="-1" aria-selected="false" data-i="{i}"{attr}>'
                     f'<a href="#step-{i + 1}"><span class="n">{i + 1}</span>'
                     f'<span>{action_html(s["action"] or "Initial state")}</span></a></li>')
    if loop is not None:
        items.append(closing_row_html(loop))
    return (f'<ol class="steplist" id="steplist" role="listbox" tabindex="0" aria-label="Steps of the trace">'
            f'{"".join(items)}</ol>')


def _step_details(doc: dict, loop: Loop | None) -> str:
    """Every step's state, written out (the script shows one at a time)."""
    steps = doc["steps"]
    v = doc["violation"]
    last = len(steps) - 1
    width = L.max_log_length(steps)
    messages = message_lists(step.get("messages") or [] for step in steps)
    causes = culprit_causes(doc) if loop is None else {}
    how = how_html(doc, loop)
    out = []
    for i, step in enumerate(steps):
        prev = steps[i - 1] if i else None
        changes = L.lane_changes(prev, step)
        bad = L.culprit_cells(v) if i == last else {}
        bad_vars = L.culprit_variables(v) if i == last else set()
        head = (f'<h3>State {i + 1} ' + (f'after <code>{esc(step["action"])}</code>' if step["action"]
                                         else "(initial state)"))
        if loop is not None and i + 1 == loop.start and not loop.stuttering:
            head += ' <span class="loopnote">the loop starts here</span>'
        if loop is not None and i == last:
            head += f' <span class="loopnote">then {esc(loop.closing_text())}</span>'
        elif i == last:
            verdict = "deadlock" if v["kind"] == "deadlock" else f"{v['name']} violated"
            head += f' <span class="verdict">{esc(verdict)}</span>'
        head += "</h3>"
        why = (f'<p class="why"><b>Why:</b> {esc(v["explanation"])}</p>' if i == last and v.get("explanation")
               else "")
        if i == last:
            why += how
        lanes = step.get("lanes") or {}
        body = ""
        if lanes:
            body += f"<h4>Lanes</h4>{replicas_table(lanes, changes, bad, width, causes if i == last else None)}"
        msgs = messages[i]
        if msgs:
            body += f"<h4>Messages in this step</h4>{msgs}"
        body += f'<h4>Variables</h4>{variables_table(flatten(step["state"]), step.get("changed", []), bad_vars)}'
        out.append(f'<div class="stepdetail{" bad" if i == last and loop is None else ""}" id="step-{i + 1}" data-i="{i}">'
                   f'{head}{why}{body}</div>')
    return "".join(out)
