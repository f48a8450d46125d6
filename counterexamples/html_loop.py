"""How the trace page shows a liveness lasso's loop: where it starts, how it closes, what fairness allows.

A liveness counterexample is an infinite behaviour: no single state breaks
the property, the whole loop does.  So every view marks the loop's steps
and ends with the step that closes it ("back to step N" or "stutters
forever") rather than a red "violated" state, and the verdict names the
actions that could have left the loop, with the fairness that fails to
force them (``violation.loop_actions``, from :mod:`.loopinfo`).
"""

from __future__ import annotations

from modelcheck.counterexamples.html_parts import action_html, esc
from modelcheck.counterexamples.lasso import Loop


FAIRNESS_WORDS = {"weak": "weakly fair", "strong": "strongly fair", "none": "no fairness"}


def _fairness(kind: str) -> str:
    return FAIRNESS_WORDS.get(kind, kind)


def closing_row_html(loop: Loop) -> str:
    """The steps list's last row: a link back to the loop's first step (not an option of the listbox)."""
    mark = "&#x27F2;" if loop.stuttering else "&#x21BA;"
    return (f'<li class="loopback" role="presentation" data-goto="{loop.start - 1}">'
            f'<a href="#step-{loop.start}"><span class="n">{mark}</span>'
            f'<span>{action_html(loop.closing_text())}</span></a></li>')


def verdict_html(doc: dict, loop: Loop) -> str:
    """The sentence under a liveness verdict: the property, the loop, and the actions enabled in it."""
    v = doc["violation"]
    name = esc(v["name"])
    if loop.stuttering:
        where = (f"after step {loop.end} the behaviour stutters forever (no step changes the state again), "
                 f"so what {name} promises never happens.")
    else:
        closing = f" <code>{esc(loop.action)}</code>" if loop.action else ""
        where = (f"steps {loop.start} to {loop.end} repeat forever (the step{closing} from step {loop.end} "
                 f"goes back to step {loop.start}), and what {name} promises never happens along them.")
    acts = v.get("loop_actions") or []
    enabled = [a for a in acts if a["enabled"] != "no" or a["taken"]]
    idle_fair = [a for a in acts if a["enabled"] == "no" and not a["taken"] and a["fairness"] != "none"]
    parts = [f'<p class="loop"><b>An infinite behaviour:</b> {where}</p>']
    if enabled:
        described = ", ".join(f"<code>{esc(a['action'])}</code> ({esc(_fairness(a['fairness']))}"
                              f"{', taken' if a['taken'] else ''})" for a in enabled)
        where_enabled = "in its last state" if loop.stuttering else "in the loop"
        parts.append(f'<p class="loop">Enabled {where_enabled}: {described}.</p>')
    if idle_fair:
        names = ", ".join(f"<code>{esc(a['action'])}</code> ({esc(_fairness(a['fairness']))})" for a in idle_fair)
        parts.append(f'<p class="loop">Never enabled there: {names}.</p>')
    if acts:
        parts.append(f'<p class="note">{_why_fair(loop, acts)}</p>')
    return "".join(parts)


def _why_fair(loop: Loop, acts: list[dict]) -> str:
    """Why fairness does not force the behaviour out, in one sentence."""
    if loop.stuttering:
        return ("Stuttering forever is allowed because no fair action is enabled there; an action with no "
                "fairness may be neglected forever.")
    return ("Each fair action is taken in the loop, or (weak fairness) not enabled in every state of it, or "
            "(strong fairness) never enabled in it; an action with no fairness may be neglected forever.")
